package io.tidemark.model.audit;

import io.tidemark.model.json.Checks;
import io.tidemark.model.json.InvalidDocumentException;
import java.time.Instant;

/**
 * What an ingest run with verified publish asks the reconciler to audit before it publishes: the
 * head of its branch, against raw as the run found it. The reconciler runs the dataset's
 * record-level rules (counts, missing, unexpected and duplicate keys, stale versions, values) over
 * that snapshot and answers with a reconciliation report, which it does not store: the batch is not
 * on {@code main}, so the audit says nothing of the published table.
 *
 * @param runId the run asking
 * @param batchId the batch on the branch
 * @param branch the branch's name (for the logs and the answer; the snapshot is what is read)
 * @param snapshotId the branch's head: the curated snapshot audited
 * @param rawArrivedBy raw files that arrived (were last modified) after this are not read: the run
 *     had not listed them
 * @param now the run's clock when it validated the batch: a change marker later than this plus the
 *     contract's future tolerance was quarantined by the run, and is no version to the audit either
 */
public record AuditRequest(
    String runId,
    String batchId,
    String branch,
    long snapshotId,
    Instant rawArrivedBy,
    Instant now) {
  public AuditRequest {
    Checks.name("runId", runId);
    Checks.nonBlank("batchId", batchId);
    Checks.nonBlank("branch", branch);
    if (!branch.matches("[a-z0-9_]{1,200}")) {
      throw new InvalidDocumentException(
          "branch", branch, "must be a Tidemark branch name: a-z, 0-9 and _");
    }
    Checks.required("rawArrivedBy", rawArrivedBy);
    Checks.required("now", now);
  }
}
