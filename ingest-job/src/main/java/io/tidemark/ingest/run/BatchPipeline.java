package io.tidemark.ingest.run;

import io.tidemark.ingest.commit.BatchCommitter;
import io.tidemark.ingest.commit.CommitOutcome;
import io.tidemark.ingest.kernel.FailurePoint;
import io.tidemark.ingest.kernel.IngestException;
import io.tidemark.ingest.kernel.RunLog;
import io.tidemark.ingest.kernel.RunPhases;
import io.tidemark.ingest.lease.Lease;
import io.tidemark.ingest.merge.MergePlan;
import io.tidemark.ingest.merge.MergePlanning;
import io.tidemark.ingest.validate.BatchValidator;
import io.tidemark.ingest.validate.ValidatedBatch;
import io.tidemark.model.report.IngestCounts;
import io.tidemark.model.report.IngestErrorCode;
import java.util.Optional;

/**
 * The stages every chosen batch goes through, whatever the mode: validate, plan, check, commit,
 * record. The {@link Batch} says where its mode differs; each stage's result is recorded on the
 * run's trail.
 */
final class BatchPipeline {
  private final RunContext run;
  private final RunTrail trail;
  private final Lease lease;

  /**
   * @param lease confirmed by the commit stage before it writes to the run's branch and before it
   *     publishes
   */
  BatchPipeline(RunContext run, Lease lease) {
    this.run = run;
    this.trail = run.trail();
    this.lease = lease;
  }

  void process(Batch batch) {
    RunPhases phases = run.resources().phases();
    ValidatedBatch v =
        phases.time(
            "read",
            () ->
                new BatchValidator(run.settings(), run.resources())
                    .validate(batch.batchId(), batch.source()));
    trail.reached(v);
    Batch.Next next = batch.validated(v);
    if (next.ending() != null) {
      trail.ended(next.ending());
      return;
    }
    String batchId = next.batchId();
    trail.identified(batchId);
    MergePlan plan =
        phases.time(
            "plan",
            () ->
                new MergePlanning(run.spark(), run.settings(), run.tables(), run.resources())
                    .plan(v.rows(), v.columnTypes(), batch.basis(), batch.size(v)));
    IngestCounts counts = phases.time("plan", () -> batch.counts(v, plan));
    trail.counted(counts);
    if (!counts.accountingErrors().isEmpty()) {
      throw new IngestException(
          IngestErrorCode.INTERNAL_ERROR,
          "Cannot commit "
              + batch.noun()
              + " "
              + batchId
              + ": its counts do not add up: "
              + counts.accountingErrors());
    }
    Optional<Ending> ending = batch.planned(batchId, v, counts);
    if (ending.isPresent()) {
      trail.ended(ending.get());
      return;
    }
    batch.beforeCommit(batchId, v);
    BatchCommitter committer =
        new BatchCommitter(
            run.spark(), run.settings(), run.tables(), run.hooks(), lease, run.resources());
    CommitOutcome outcome = committer.commit(batch.commitRequest(batchId, v, plan, counts));
    record(batch, batchId, v, counts, outcome);
  }

  /** The record stage: what the commit came to. */
  private void record(
      Batch batch, String batchId, ValidatedBatch v, IngestCounts counts, CommitOutcome outcome) {
    if (outcome instanceof CommitOutcome.Committed c) {
      trail.landed();
      if (c.audit() != null) {
        trail.audited(c.audit());
      }
      RunLog.LOG.info(
          "Committed {} {} as snapshot {} of {}: inserted {}, updated {}, deleted {}, unchanged {},"
              + " deletes of unknown keys {}, superseded {}; {}",
          batch.noun(),
          batchId,
          c.snapshotId(),
          run.settings().curatedSparkName(),
          counts.recordsInserted(),
          counts.recordsUpdated(),
          counts.recordsDeleted(),
          counts.recordsUnchanged(),
          counts.deletesOfUnknownKeys(),
          counts.recordsSuperseded(),
          batch.committedNote(v));
      trail.ended(Ending.succeeded(c.snapshotId()));
      run.hooks().reached(FailurePoint.AFTER_COMMIT, batchId);
      batch.afterCommit(batchId, v);
    } else if (outcome instanceof CommitOutcome.AlreadyCommitted a) {
      trail.ended(batch.alreadyCommitted(batchId, a.snapshotId(), v));
    } else if (outcome instanceof CommitOutcome.Conflict c) {
      throw new IngestException(
          IngestErrorCode.CONCURRENT_COMMIT,
          "Cannot commit "
              + batch.noun()
              + " "
              + batchId
              + " to "
              + run.settings().curatedSparkName()
              + ": another run committed first: "
              + c.describe()
              + "; "
              + batch.conflictNote(c),
          c.cause());
    }
  }
}
