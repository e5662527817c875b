package io.tidemark.ingest.run;

import io.tidemark.ingest.commit.LandedUnseenException;
import io.tidemark.ingest.commit.RunBranches;
import io.tidemark.ingest.config.IngestSettings;
import io.tidemark.ingest.config.IngestSpark;
import io.tidemark.ingest.kernel.Causes;
import io.tidemark.ingest.kernel.FailurePoint;
import io.tidemark.ingest.kernel.FailurePoints;
import io.tidemark.ingest.kernel.IngestException;
import io.tidemark.ingest.kernel.RunLog;
import io.tidemark.ingest.kernel.RunPhases;
import io.tidemark.ingest.kernel.RunResources;
import io.tidemark.ingest.kernel.RunStart;
import io.tidemark.ingest.kernel.StopRequest;
import io.tidemark.ingest.lease.Lease;
import io.tidemark.ingest.lease.RunLease;
import io.tidemark.ingest.metrics.RunEvents;
import io.tidemark.ingest.metrics.RunLineage;
import io.tidemark.ingest.metrics.RunMetrics;
import io.tidemark.ingest.report.RunReports;
import io.tidemark.ingest.tables.OutputTables;
import io.tidemark.model.json.InvalidDocumentException;
import io.tidemark.model.report.IngestErrorCode;
import io.tidemark.model.report.IngestMode;
import io.tidemark.model.report.IngestRunReport;
import java.io.IOException;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.apache.spark.sql.SparkSession;

/**
 * One ingest run: discover new raw files, read and validate them, quarantine what is invalid,
 * deduplicate, and write the batch into the curated Iceberg table (new keys appended, updates and
 * deletes merged) with the checkpoint in the commit that completes it; then write the run report
 * and publish metrics.
 *
 * <p>The run is a sequence of stages, each returning an immutable result that the run's {@link
 * RunTrail} records and the report is assembled from: the lease, the mode's {@link Selection}
 * (checkpoint and discovery, or the quarantined records to replay), then for the chosen batch the
 * {@link BatchPipeline} (validate, plan, check, commit, record), the report and the metrics.
 *
 * <p>The commits go through the run's own branch (see {@link RunBranches}): they land on a branch
 * created at the snapshot the batch was planned and counted against, and {@code main} is then
 * fast-forwarded to it. Iceberg refuses the fast-forward atomically when another commit reached
 * {@code main} in between, so a batch is never published on top of a snapshot it was not planned
 * on.
 *
 * <p>The caller owns the {@link SparkSession} (see {@link IngestSpark}); the job only registers the
 * catalog on it. {@link #run()} never throws for a failed run: the outcome carries the report and
 * the exit code. Only a {@link Error} (a simulated crash in tests, or the JVM dying) escapes, and
 * then nothing after the failure point happens, as in a real crash.
 */
public final class IngestJob {
  private final SparkSession spark;
  private final IngestSettings settings;
  private final FailurePoints hooks;
  private final StopRequest stop;

  public IngestJob(SparkSession spark, IngestSettings settings) {
    this(spark, settings, FailurePoints.none());
  }

  public IngestJob(SparkSession spark, IngestSettings settings, FailurePoints failurePoints) {
    this(spark, settings, failurePoints, new StopRequest());
  }

  /**
   * A run that {@code stop} can end early (see {@link StopRequest}): before its batch is published
   * it stops at the next {@link FailurePoint} and reports {@link
   * IngestErrorCode#STOPPED_BY_SIGTERM}; once the batch is published it finishes, and its report
   * says the batch is committed.
   */
  public IngestJob(
      SparkSession spark, IngestSettings settings, FailurePoints failurePoints, StopRequest stop) {
    this.spark = Objects.requireNonNull(spark, "spark is null");
    this.settings = Objects.requireNonNull(settings, "settings is null");
    Objects.requireNonNull(failurePoints, "failurePoints is null");
    this.stop = Objects.requireNonNull(stop, "stop is null");
    this.hooks = stopAt(failurePoints, stop, settings);
  }

  /**
   * The run's failure points: the caller's hook, then the stop, which ends a run that has not
   * published its batch at the next point.
   */
  private static FailurePoints stopAt(
      FailurePoints failurePoints, StopRequest stop, IngestSettings settings) {
    return FailurePoints.withBatchId(
        (point, batchId) -> {
          failurePoints.reached(point, batchId);
          if (stop.requested() && point != FailurePoint.AFTER_COMMIT) {
            throw new IngestException(
                IngestErrorCode.STOPPED_BY_SIGTERM,
                "Cannot finish batch "
                    + batchId
                    + ": stopped by "
                    + stop.signal()
                    + " at "
                    + point
                    + "; nothing was published to "
                    + settings.curatedSparkName()
                    + " and rerunning is safe");
          }
        });
  }

  /**
   * The keys every line the run's thread logs carries (the JSON layout shows them in "mdc"): the
   * run id, the dataset and the mode.
   */
  public static final java.util.List<String> LOG_CONTEXT =
      java.util.List.of("runId", "dataset", "mode");

  /** Runs once; see the class comment. */
  public IngestOutcome run() {
    RunStart start = RunStart.of(settings.runId(), settings.clock().instant());
    org.slf4j.MDC.put("runId", start.runId());
    org.slf4j.MDC.put("dataset", settings.dataset().name());
    org.slf4j.MDC.put("mode", settings.mode().name());
    try {
      return runNamed(start);
    } finally {
      LOG_CONTEXT.forEach(org.slf4j.MDC::remove);
    }
  }

  private IngestOutcome runNamed(RunStart start) {
    RunTrail trail = new RunTrail(start, settings);
    // A stop cancels the Spark jobs in flight, so that a long step ends early and the run stops.
    stop.onRequest(() -> spark.sparkContext().cancelAllJobs());
    LeaseStep lease = new LeaseStep(settings, trail);
    RunResources resources = new RunResources(spark, start.runId());
    try {
      if (resources.phases().time("lease", lease::take)) {
        execute(trail, resources, lease.lease());
      }
    } catch (Exception e) {
      failed(trail, e);
    } catch (Error e) {
      // The run is dying (a crash drill, the JVM out of memory): nothing more happens, the lease
      // is neither renewed nor released and lapses, as when the process is killed.
      lease.abandon();
      throw e;
    } finally {
      resources.release();
    }
    if (stop.requested()) {
      new StopSettlement(spark, settings, stop.signal()).settle(trail);
    }
    return report(trail, lease, resources.phases().millis());
  }

  /** The stages of a run; each records what it found on the trail. */
  private void execute(RunTrail trail, RunResources resources, Lease lease) {
    IngestSpark.register(spark, settings.catalog());
    RunContext run =
        new RunContext(spark, settings, trail, hooks, resources, new OutputTables(spark, settings));
    Optional<Ending> heldBatch =
        resources.phases().time("select", () -> new HeldBatches(run, lease).settle());
    if (heldBatch.isPresent()) {
      trail.ended(heldBatch.get());
      return;
    }
    if (settings.mode() == IngestMode.MAINTAIN) {
      trail.ended(
          resources.phases().time("maintain", () -> new MaintainRun(run, lease).maintain()));
      return;
    }
    Selection.Choice choice = resources.phases().time("select", () -> Selection.of(run).select());
    if (choice instanceof Selection.Choice.End end) {
      trail.ended(end.ending());
    } else if (choice instanceof Selection.Choice.Process process) {
      new BatchPipeline(run, lease).process(process.batch());
    }
  }

  /** What a failure says in the report. */
  private void failed(RunTrail trail, Exception e) {
    if (e instanceof io.tidemark.ingest.audit.AuditException audit && audit.audit() != null) {
      trail.audited(audit.audit());
    }
    if (e instanceof LandedUnseenException landed) {
      trail.landed();
      trail.fail(landed.code(), landed.getMessage(), landed);
    } else if (e instanceof IngestException ie) {
      trail.fail(ie.code(), ie.getMessage(), ie);
    } else if (e instanceof InvalidDocumentException) {
      trail.fail(IngestErrorCode.INVALID_CONFIG, "Cannot run ingest: " + e.getMessage(), e);
    } else if (e instanceof RunLease.LostException) {
      trail.fail(
          IngestErrorCode.LEASE_LOST,
          "Cannot commit batch " + trail.batchId() + ": " + e.getMessage() + "; nothing committed",
          e);
    } else {
      // Exception, not RuntimeException: Spark's Scala code throws checked exceptions
      // (SparkException, AnalysisException) that Java's compiler does not see.
      IngestErrorCode code =
          Causes.has(e, IOException.class)
              ? IngestErrorCode.IO_FAILED
              : IngestErrorCode.INTERNAL_ERROR;
      trail.fail(
          code,
          "Cannot ingest dataset "
              + settings.dataset().name()
              + " into "
              + settings.curatedSparkName()
              + " (batch "
              + trail.batchId()
              + "): "
              + e,
          e);
    }
  }

  /**
   * Writes the report, releases the lease once it is written, publishes the metrics, puts the run's
   * event and emits its lineage.
   */
  private IngestOutcome report(RunTrail trail, LeaseStep lease, Map<String, Long> phases) {
    IngestRunReport report = trail.report(settings.clock().instant(), phases);
    String location = null;
    int exit = exitCode(report);
    try {
      location = RunReports.write(settings, report, spark.sparkContext().hadoopConfiguration());
      RunLog.LOG.info(
          "Run {} ended {} ({}); report written to {}",
          trail.runId(),
          report.status(),
          RunPhases.describe(phases),
          location);
    } catch (IOException | RuntimeException e) {
      RunLog.LOG.error(
          "Run {} ended {} but its report could not be written under {}: {}"
              + " (a committed batch's counts are also in the snapshot summary)",
          trail.runId(),
          report.status(),
          settings.stateRoot(),
          e.toString());
      exit = exit == 0 ? 1 : exit;
    } finally {
      // Released after the report is written, so that the next run finds it.
      lease.release();
    }
    RunMetrics.publish(settings.cloudWatch(), report);
    RunEvents.put(settings.events(), report, location);
    RunLineage.emit(settings.lineage(), report, settings.dataset(), settings.catalog());
    return new IngestOutcome(report, location, exit, trail.partitionsListed());
  }

  private static int exitCode(IngestRunReport report) {
    return switch (report.status()) {
      case SUCCEEDED, NOTHING_TO_DO, ALREADY_COMMITTED, LEASE_HELD -> 0;
      case REJECTED -> IngestErrorCode.BATCH_REJECTED.exitCode();
      case FAILED -> report.errorCode().exitCode();
    };
  }
}
