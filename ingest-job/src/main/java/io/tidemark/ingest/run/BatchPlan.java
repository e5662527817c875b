package io.tidemark.ingest.run;

import io.tidemark.ingest.checkpoint.Checkpoint;
import io.tidemark.ingest.checkpoint.TableState;
import io.tidemark.ingest.discovery.DiscoveryResult;
import io.tidemark.ingest.kernel.RawFile;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * What a run of raw files decided to read, after reading the checkpoint and listing the raw layer.
 *
 * @param state the curated table as the run found it
 * @param discovery what discovery found
 * @param toRead the files the batch reads: the new ones, or every discovered one in watermark mode
 * @param batchId the batch's deterministic id
 * @param lookbackDays the lookback, in whole days
 */
record BatchPlan(
    TableState state,
    DiscoveryResult discovery,
    List<RawFile> toRead,
    String batchId,
    long lookbackDays) {
  BatchPlan {
    toRead = List.copyOf(toRead);
  }

  /** The latest checkpoint in the curated table's history; null when it has none. */
  Checkpoint checkpoint() {
    return state.checkpoint();
  }

  /** The curated snapshot the batch is planned and counted against; -1 when there is none. */
  long baseSnapshot() {
    return state.baseSnapshot();
  }

  /** The paths of the new files. */
  Set<String> newPaths() {
    return discovery.newFiles().stream().map(RawFile::path).collect(Collectors.toUnmodifiableSet());
  }

  /** The batch as the report names it: its id, the files it reads and their partitions. */
  RunTrail.BatchIdentity identity() {
    return new RunTrail.BatchIdentity(
        batchId,
        toRead.stream().map(RawFile::path).toList(),
        toRead.stream().map(f -> f.partition().toString()).distinct().sorted().toList());
  }
}
