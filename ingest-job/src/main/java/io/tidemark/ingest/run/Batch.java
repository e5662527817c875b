package io.tidemark.ingest.run;

import io.tidemark.ingest.commit.CommitOutcome;
import io.tidemark.ingest.commit.CommitRequest;
import io.tidemark.ingest.kernel.IngestException;
import io.tidemark.ingest.merge.MergeBasis;
import io.tidemark.ingest.merge.MergePlan;
import io.tidemark.ingest.validate.BatchSource;
import io.tidemark.ingest.validate.ValidatedBatch;
import io.tidemark.model.report.IngestCounts;
import java.util.Optional;

/**
 * A chosen batch: what it reads and how it behaves in the stages every batch goes through ({@link
 * BatchPipeline}). A batch of raw files ({@link FileBatch}) and a batch of quarantined records
 * ({@link ReplayBatch}) differ only where these methods say.
 */
interface Batch {
  /** The batch's id; null when it comes from the records themselves (a replay). */
  String batchId();

  /** What the validation stage reads. */
  BatchSource source();

  /** After validation: the batch's id, or how the run ends (a replay with nothing valid). */
  Next validated(ValidatedBatch v);

  /** What the batch is planned against. */
  MergeBasis basis();

  /** The batch's size in records, which decides whether its keys are broadcast. */
  long size(ValidatedBatch v);

  /** What the batch counts, once planned. */
  IngestCounts counts(ValidatedBatch v, MergePlan plan);

  /** What the batch is called in messages: {@code batch}, {@code replay batch}. */
  String noun();

  /**
   * After planning, before anything is written: the batch's own checks and notes; empty to commit,
   * or how the run ends without committing (a dry run, a replay already committed).
   *
   * @throws IngestException when the batch must not be committed (the validation policy)
   */
  Optional<Ending> planned(String batchId, ValidatedBatch v, IngestCounts counts);

  /** Just before the commit: what must hold or exist for it. */
  void beforeCommit(String batchId, ValidatedBatch v);

  /** The batch as the commit stage takes it. */
  CommitRequest commitRequest(String batchId, ValidatedBatch v, MergePlan plan, IngestCounts c);

  /** What the log says after a batch's counts when it landed: where the watermark went. */
  String committedNote(ValidatedBatch v);

  /** After the commit is recorded and its failure point reached. */
  void afterCommit(String batchId, ValidatedBatch v);

  /** Another run committed this very batch. */
  Ending alreadyCommitted(String batchId, long snapshotId, ValidatedBatch v);

  /** Another run committed first: what the failure adds to say nothing was committed. */
  String conflictNote(CommitOutcome.Conflict c);

  /** What comes after validation: the batch goes on under its id, or the run ends. */
  record Next(String batchId, Ending ending) {
    static Next proceed(String batchId) {
      return new Next(batchId, null);
    }

    static Next end(Ending ending) {
      return new Next(null, ending);
    }
  }
}
