package io.tidemark.ingest.run;

import static org.apache.spark.sql.functions.lit;

import io.tidemark.ingest.checkpoint.TableState;
import io.tidemark.ingest.discovery.ProcessedFiles;
import io.tidemark.ingest.merge.MergeBasis;
import io.tidemark.model.report.IngestCounts;
import java.util.List;
import org.apache.spark.sql.Column;

/**
 * {@code --mode full-refresh}: rebuilds the curated table and its remembered deletes from every raw
 * file (the baseline, and recovery), with a new checkpoint.
 */
final class FullRefreshSelection extends FileSelection {
  FullRefreshSelection(RunContext run) {
    super(run);
  }

  /** A rebuild needs no checkpoint: it is how a table that lost its own starts again. */
  @Override
  void check(TableState state) {}

  @Override
  String withoutCheckpoint() {
    return "full refresh from every raw file";
  }

  @Override
  Window window(TableState state) {
    return new Window(null, null, List.of(), "(all)");
  }

  @Override
  ProcessedFiles processed(TableState state) {
    return ProcessedFiles.NONE;
  }

  /** Nothing is late in a rebuild. */
  @Override
  Column late(TableState state) {
    return lit(false);
  }

  @Override
  MergeBasis basis(BatchPlan plan) {
    return MergeBasis.of(plan.baseSnapshot(), true);
  }

  /** A rebuild starts empty: every key whose latest raw version is a delete lands here. */
  @Override
  void unknownDeletes(IngestCounts counts) {
    if (counts.deletesOfUnknownKeys() > 0) {
      LOG.info(
          "Full refresh: {} key(s) whose latest version is a delete are left out of the rebuilt"
              + " table and remembered as deleted",
          counts.deletesOfUnknownKeys());
    }
  }
}
