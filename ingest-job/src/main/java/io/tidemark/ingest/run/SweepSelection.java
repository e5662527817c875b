package io.tidemark.ingest.run;

import io.tidemark.ingest.checkpoint.Checkpoint;
import io.tidemark.ingest.checkpoint.CheckpointCodec;
import io.tidemark.ingest.checkpoint.TableState;
import io.tidemark.ingest.discovery.CommittedFiles;
import io.tidemark.ingest.discovery.ContractLayout;
import io.tidemark.ingest.discovery.DiscoveryResult;
import io.tidemark.ingest.discovery.ProcessedFiles;
import io.tidemark.ingest.kernel.IngestException;
import io.tidemark.ingest.kernel.RawFile;
import io.tidemark.model.report.IngestErrorCode;
import java.io.IOException;
import java.time.LocalDate;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * {@code --mode sweep}: lists every partition and processes, as an incremental batch would, the
 * files no committed batch read: late beyond the lookback, in partitions discovery no longer lists.
 * What a batch read is told from the table's history and the run reports ({@link CommittedFiles}).
 */
final class SweepSelection extends FileSelection {
  SweepSelection(RunContext run) {
    super(run);
  }

  @Override
  Window window(TableState state) {
    return new Window(null, null, List.of(), "(all)");
  }

  /** The files the checkpoint lists, and in partitions it folded, those committed batches read. */
  @Override
  ProcessedFiles processed(TableState state) {
    Checkpoint cp = state.checkpoint();
    if (cp == null) {
      return ProcessedFiles.NONE;
    }
    CommittedFiles committed = committedFiles(state);
    return (f, fingerprints) ->
        cp.isProcessed(f, fingerprints)
            || (!cp.processed().containsKey(f.partition()) && committed.contains(f, fingerprints));
  }

  /**
   * The partition column whose folders run reports' input paths are read by: the Hive layout's;
   * null for the other layouts, whose files are found in the checkpoint and the table's history
   * only (a report's path alone does not say which day such a file was placed in).
   */
  private String partitionColumn() {
    return ContractLayout.hiveDayColumn(spec.raw().layout());
  }

  /** The files committed batches read, from the table's history and the run reports. */
  private CommittedFiles committedFiles(TableState state) {
    try {
      CommittedFiles c =
          CommittedFiles.gather(
              state.curated(), settings.stateRoot(), spec.name(), partitionColumn(), run.hadoop());
      LOG.info(
          "Sweep: committed files from the history of {} and {} run report(s) under {}",
          settings.curatedSparkName(),
          c.reportsRead(),
          settings.stateRoot());
      return c;
    } catch (IOException e) {
      throw new IngestException(
          IngestErrorCode.IO_FAILED,
          "Cannot sweep: the run reports under "
              + settings.stateRoot()
              + " cannot be listed, so files batches read cannot be told from files none read: "
              + e.getMessage(),
          e);
    }
  }

  /** The new files before where an incremental run's discovery starts: late beyond the lookback. */
  @Override
  Integer missedByLookback(TableState state, DiscoveryResult found) {
    if (state.checkpoint() == null) {
      return 0;
    }
    LocalDate incrementalFrom = incrementalFrom(state, null);
    List<RawFile> missed =
        found.newFiles().stream()
            .filter(f -> incrementalFrom == null || f.partition().isBefore(incrementalFrom))
            .toList();
    if (!missed.isEmpty()) {
      String warning =
          "The sweep found "
              + missed.size()
              + " file(s) no committed batch had read in partitions before "
              + incrementalFrom
              + ", where incremental runs no longer look (late beyond the lookback of "
              + lookbackDays
              + " day(s)): "
              + missed.stream().map(f -> f.partition() + "/" + f.name()).limit(20).toList();
      LOG.warn(warning);
      run.trail().warn(warning);
    }
    return missed.size();
  }

  @Override
  String nothingToDo(TableState state) {
    return "every raw file is in a committed batch";
  }

  /**
   * The new checkpoint, and the files in partitions it folds at once: they are named nowhere else a
   * crashed run leaves behind, so the commit names them, and a rerun does not read them again.
   */
  @Override
  Map<String, String> checkpoint(BatchPlan plan, String watermarkAfter) {
    Checkpoint next = next(plan, watermarkAfter);
    Map<String, String> props = new LinkedHashMap<>(CheckpointCodec.encode(next));
    Map<String, Map<String, String>> swept = new TreeMap<>();
    for (RawFile f : plan.toRead()) {
      if (!next.processed().containsKey(f.partition())) {
        swept
            .computeIfAbsent(f.partition().toString(), p -> new TreeMap<>())
            .put(f.name(), f.stamp());
      }
    }
    if (!swept.isEmpty()) {
      props.put(CheckpointCodec.SWEPT_FILES, CheckpointCodec.compactJson(swept));
    }
    return props;
  }
}
