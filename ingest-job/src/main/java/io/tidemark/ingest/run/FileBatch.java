package io.tidemark.ingest.run;

import io.tidemark.ingest.commit.BatchCommitter;
import io.tidemark.ingest.commit.CommitOutcome;
import io.tidemark.ingest.commit.CommitRequest;
import io.tidemark.ingest.kernel.FailurePoint;
import io.tidemark.ingest.kernel.IngestException;
import io.tidemark.ingest.kernel.RunLog;
import io.tidemark.ingest.merge.MergeBasis;
import io.tidemark.ingest.merge.MergePlan;
import io.tidemark.ingest.validate.BatchSource;
import io.tidemark.ingest.validate.RawFiles;
import io.tidemark.ingest.validate.ReadCounts;
import io.tidemark.ingest.validate.ValidatedBatch;
import io.tidemark.model.report.IngestCounts;
import io.tidemark.model.report.IngestErrorCode;
import java.util.HashSet;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * A batch of raw files, as its mode's {@link FileSelection} chose and shapes it.
 *
 * @param run the run
 * @param mode the mode's selection, which says how the batch behaves where modes differ
 * @param plan what the batch reads
 */
record FileBatch(RunContext run, FileSelection mode, BatchPlan plan) implements Batch {
  @Override
  public String batchId() {
    return plan.batchId();
  }

  @Override
  public BatchSource source() {
    return new RawFiles(
        run.spark(),
        run.settings().dataset(),
        new RawFiles.Target(
            plan.batchId(), run.settings().curatedSparkName(), run.tables().curatedTypes()),
        plan.toRead(),
        plan.newPaths(),
        mode.candidate(plan.state()),
        mode.late(plan.state()));
  }

  @Override
  public Next validated(ValidatedBatch v) {
    ReadCounts c = v.counts();
    run.trail().watermarkAfter(watermarkAfter(v));
    RunLog.LOG.info(
        "Batch {}: read {} record(s), {} candidate change(s), {} invalid {}, {} late; {} file(s)"
            + " quarantined",
        plan.batchId(),
        c.rowsRead(),
        c.changed(),
        c.invalid(),
        v.byReason(),
        c.late(),
        v.problems().size());
    run.hooks().reached(FailurePoint.AFTER_READ, plan.batchId());
    return Next.proceed(plan.batchId());
  }

  private String watermarkAfter(ValidatedBatch v) {
    return mode.watermarkAfter(plan, v.counts().maxValidMarker());
  }

  @Override
  public MergeBasis basis() {
    return mode.basis(plan);
  }

  @Override
  public long size(ValidatedBatch v) {
    return v.counts().changed();
  }

  @Override
  public IngestCounts counts(ValidatedBatch v, MergePlan merge) {
    IngestCounts.Builder counts =
        IngestCounts.builder()
            .filesDiscovered(plan.discovery().discovered().size())
            .filesNew(plan.discovery().newFiles().size())
            .filesSkipped(plan.discovery().skipped())
            .filesQuarantined(v.problems().size());
    return merge.countInto(v.counts().countInto(counts)).build();
  }

  @Override
  public String noun() {
    return "batch";
  }

  /** The validation policy: above the invalid ratio, the batch is rejected. */
  @Override
  public Optional<Ending> planned(String batchId, ValidatedBatch v, IngestCounts counts) {
    mode.unknownDeletes(counts);
    if (counts.invalidRatio() > run.settings().maxInvalidRatio()) {
      throw new IngestException(
          IngestErrorCode.BATCH_REJECTED,
          String.format(
              Locale.ROOT,
              "Cannot commit batch %s: invalid ratio %.4f (%d of %d candidate records) is above the"
                  + " limit %.4f; by reason %s; quarantined files %s; nothing was committed",
              batchId,
              counts.invalidRatio(),
              counts.recordsInvalid(),
              counts.recordsChanged(),
              run.settings().maxInvalidRatio(),
              v.byReason(),
              v.quarantinedFiles()));
    }
    return Optional.empty();
  }

  /** The report must be writable, and the tables must exist. */
  @Override
  public void beforeCommit(String batchId, ValidatedBatch v) {
    new Housekeeping(run).checkReportWritable();
    run.tables().ensureTables();
  }

  @Override
  public CommitRequest commitRequest(
      String batchId, ValidatedBatch v, MergePlan merge, IngestCounts counts) {
    long unreadable =
        v.quarantinedFiles().stream().filter(s -> s.contains(": UNREADABLE_FILE")).count();
    return new CommitRequest(
        batchId,
        run.start(),
        plan.baseSnapshot(),
        mode.basis(plan).kind() == MergeBasis.Kind.REBUILD,
        new CommitRequest.Quarantine(
            v.invalidCandidates(),
            v.problemRows(),
            v.problems().size(),
            unreadable,
            CommitRequest.FileRange.of(sourceFiles(v))),
        merge.planned(),
        counts,
        mode.commitProperties(plan, watermarkAfter(v), counts),
        v.validatedAt(),
        mode.rawArrivedBy(plan));
  }

  /**
   * The paths the batch's quarantine rows can name: the files it read, the quarantined ones too.
   */
  private Set<String> sourceFiles(ValidatedBatch v) {
    Set<String> paths = new HashSet<>();
    plan.toRead().forEach(f -> paths.add(f.path()));
    v.problems().forEach(p -> paths.add(p.file().path()));
    return paths;
  }

  @Override
  public String committedNote(ValidatedBatch v) {
    return "watermark " + plan.state().watermark() + " -> " + watermarkAfter(v);
  }

  @Override
  public void afterCommit(String batchId, ValidatedBatch v) {}

  @Override
  public Ending alreadyCommitted(String batchId, long snapshotId, ValidatedBatch v) {
    RunLog.LOG.info(
        "Batch {} was committed by another run (snapshot {}): nothing more to do",
        batchId,
        snapshotId);
    return FileSelection.alreadyCommitted(plan, snapshotId);
  }

  @Override
  public String conflictNote(CommitOutcome.Conflict c) {
    return "nothing of this batch was committed to the curated table and rerunning is safe"
        + (c.cause() == null ? "" : " (" + BatchCommitter.refusal(c.cause()) + ")");
  }
}
