package io.tidemark.ingest.run;

import io.tidemark.ingest.checkpoint.CheckpointLog;
import io.tidemark.ingest.config.IngestSettings;
import io.tidemark.ingest.kernel.RunLog;
import io.tidemark.ingest.tables.OutputTables;
import io.tidemark.model.report.IngestErrorCode;
import io.tidemark.model.report.IngestStatus;
import java.util.Optional;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.spark.sql.SparkSession;

/**
 * What a stopped run reports. The truth is the table: a batch published before the stop took effect
 * is committed, and the report says so (with a warning naming the signal), never FAILED; a run that
 * failed because of the stop (at a failure point, or a Spark job the stop cancelled) and whose
 * batch is not on the table reports {@link IngestErrorCode#STOPPED_BY_SIGTERM}. A run that ended on
 * its own before the stop mattered (nothing to do, rejected) keeps its status.
 */
record StopSettlement(SparkSession spark, IngestSettings settings, String signal) {
  void settle(RunTrail run) {
    if (!run.committed() && run.status() == IngestStatus.FAILED && run.batchId() != null) {
      findLanded(run);
    }
    if (run.committed()) {
      if (run.status() == null) {
        run.ended(Ending.succeeded(null));
      }
      String warning =
          "Stopped by "
              + signal
              + " after batch "
              + run.batchId()
              + " was committed (snapshot "
              + (run.ending() == null ? null : run.ending().snapshotId())
              + "): the batch is on the table, and this report accounts for it";
      RunLog.LOG.warn("Run {}: {}", run.runId(), warning);
      run.warn(warning);
      return;
    }
    RunTrail.Failure failure = run.failure();
    if (run.status() != IngestStatus.FAILED
        || failure.code() == IngestErrorCode.STOPPED_BY_SIGTERM) {
      return;
    }
    // Another failure, most often a Spark job the stop cancelled: the stop is why.
    run.fail(
        IngestErrorCode.STOPPED_BY_SIGTERM,
        "Cannot finish batch "
            + run.batchId()
            + ": stopped by "
            + signal
            + "; nothing was published to "
            + settings.curatedSparkName()
            + " and rerunning is safe (the step in progress ended with "
            + failure.code()
            + ": "
            + failure.message()
            + ")",
        null);
  }

  /** The stop may have ended the run while its commit landed: look at the table. */
  private void findLanded(RunTrail run) {
    try {
      Table curated = new OutputTables(spark, settings).loadCurated();
      Optional<Snapshot> landed =
          curated == null ? Optional.empty() : CheckpointLog.findBatch(curated, run.batchId());
      if (landed.isPresent()) {
        run.landedBeforeTheStop(landed.get().snapshotId());
      }
    } catch (RuntimeException e) {
      RunLog.LOG.warn(
          "Run {}: cannot check whether batch {} landed before {}: {}",
          run.runId(),
          run.batchId(),
          signal,
          e.toString());
    }
  }
}
