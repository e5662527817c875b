package io.tidemark.ingest.run;

import io.tidemark.ingest.commit.RunBranches;
import io.tidemark.ingest.kernel.IngestException;
import io.tidemark.ingest.kernel.RunLog;
import io.tidemark.ingest.report.ReportRecovery;
import io.tidemark.ingest.report.RunReports;
import io.tidemark.model.report.IngestErrorCode;
import java.io.IOException;
import java.time.ZoneOffset;
import java.util.List;
import org.apache.iceberg.Table;

/**
 * What a run does for the runs before and after it: rebuilds a predecessor's missing report, drops
 * the branches crashed runs left, and makes sure its own report can be written before it commits.
 */
final class Housekeeping {
  private final RunContext run;

  Housekeeping(RunContext run) {
    this.run = run;
  }

  /** Rebuilds the report of the previous run if it committed and ended before writing it. */
  void recoverMissingReport(Table curated) {
    try {
      ReportRecovery.recover(curated, run.settings(), run.hadoop());
    } catch (IOException | RuntimeException e) {
      RunLog.LOG.warn(
          "Cannot check or rebuild the report of the last committed batch under {}: {}",
          run.settings().stateRoot(),
          e.toString());
    }
  }

  /**
   * A committed batch whose report cannot be written leaves data and reports disagreeing, and every
   * rerun finds the batch committed: find out before committing, while a rerun still repairs all.
   */
  void checkReportWritable() {
    try {
      RunReports.checkWritable(
          run.settings().stateRoot(),
          run.start().startedAt().atZone(ZoneOffset.UTC).toLocalDate(),
          run.start().runId(),
          run.hadoop());
    } catch (IOException | RuntimeException e) {
      throw new IngestException(
          IngestErrorCode.IO_FAILED,
          "Cannot commit batch "
              + run.trail().batchId()
              + ": its run report cannot be written under the state root "
              + run.settings().stateRoot()
              + " ("
              + e.getMessage()
              + "); nothing was committed",
          e);
    }
  }

  /**
   * Drops the run branches that crashed runs left behind (see {@link RunBranches#STALE_AFTER});
   * true when it changed the table's metadata. Failing to drop them never fails the run.
   */
  boolean dropLeftoverBranches(Table t) {
    List<String> stale = RunBranches.stale(t.refs(), run.start().startedAt());
    if (stale.isEmpty()) {
      return false;
    }
    String curated = run.settings().curatedSparkName();
    try {
      RunBranches.drop(run.tables()::loadCurated, stale);
      RunLog.LOG.info(
          "Dropped {} run branch(es) of {} left by runs that never finished: {}",
          stale.size(),
          curated,
          stale);
    } catch (RuntimeException e) {
      RunLog.LOG.warn(
          "Cannot drop the run branches {} of {} left by runs that never finished (a later run"
              + " retries): {}",
          stale,
          curated,
          e.toString());
    }
    return true;
  }
}
