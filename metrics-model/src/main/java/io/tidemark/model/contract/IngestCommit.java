package io.tidemark.model.contract;

import java.time.Instant;
import java.util.Objects;

/**
 * One commit of the ingest job on the curated table's main history, as its snapshot summary records
 * it: the job writes {@link #RUN_ID_PROPERTY} and {@link #BATCH_ID_PROPERTY} (with the rest of its
 * checkpoint) into the commit that completes the batch's data (a batch with new keys and updates
 * appends the new keys just before, in a commit that carries only the run id). The reconciler reads
 * them back to match commits with run reports, both ways.
 *
 * @param snapshotId the commit's snapshot
 * @param committedAt when it was committed
 * @param runId the run that committed it
 * @param batchId the batch it holds
 */
public record IngestCommit(long snapshotId, Instant committedAt, String runId, String batchId) {
  /** The snapshot summary key of the committing run's id. */
  public static final String RUN_ID_PROPERTY = "tidemark.run-id";

  /** The snapshot summary key of the committed batch's id. */
  public static final String BATCH_ID_PROPERTY = "tidemark.batch-id";

  public IngestCommit {
    Objects.requireNonNull(committedAt, "committedAt is null");
    Objects.requireNonNull(batchId, "batchId is null");
  }
}
