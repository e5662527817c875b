package io.tidemark.ingest;

import io.tidemark.ingest.checkpoint.Checkpoint;
import io.tidemark.ingest.discovery.RawFile;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * What a run decided to do after reading the checkpoint and listing the raw layer.
 *
 * @param checkpoint the latest checkpoint in the curated table's history; null when it has none
 * @param baseSnapshot the curated snapshot the batch is planned and counted against; -1 when the
 *     table has none
 * @param fullRefresh whether the batch rebuilds the tables from every raw file
 * @param watermarkMode whether records are chosen by change marker rather than by file
 * @param lookbackDays the lookback, in whole days
 * @param discovered every file listed
 * @param newFiles the files not processed before
 * @param toRead the files the batch reads: the new ones, or every discovered one in watermark mode
 * @param batchId the batch's deterministic id
 */
record BatchPlan(
    Checkpoint checkpoint,
    long baseSnapshot,
    boolean fullRefresh,
    boolean watermarkMode,
    long lookbackDays,
    List<RawFile> discovered,
    List<RawFile> newFiles,
    List<RawFile> toRead,
    String batchId) {
  BatchPlan {
    discovered = List.copyOf(discovered);
    newFiles = List.copyOf(newFiles);
    toRead = List.copyOf(toRead);
  }

  /** The paths of the new files. */
  Set<String> newPaths() {
    return newFiles.stream().map(RawFile::path).collect(Collectors.toUnmodifiableSet());
  }

  /** The watermark before the batch; null when there is none. */
  String watermarkBefore() {
    return checkpoint == null ? null : checkpoint.watermark();
  }
}
