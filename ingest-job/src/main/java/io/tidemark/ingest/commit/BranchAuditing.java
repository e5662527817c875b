package io.tidemark.ingest.commit;

import io.tidemark.ingest.audit.AuditException;
import io.tidemark.ingest.audit.VerifiedPublish;
import io.tidemark.model.audit.AuditRequest;
import io.tidemark.model.report.BatchAudit;
import io.tidemark.model.report.IngestErrorCode;
import io.tidemark.model.report.ReconciliationReport;

/** Asking for an audit, and what a run says when it gets no verdict. */
public final class BranchAuditing {
  private BranchAuditing() {}

  /**
   * The audit of the request's branch.
   *
   * @throws AuditException AUDIT_UNAVAILABLE when the auditor could not be asked or answered
   *     nothing usable
   */
  public static BatchAudit ask(VerifiedPublish verified, String dataset, AuditRequest request) {
    ReconciliationReport report;
    try {
      report = verified.audit().audit(dataset, request);
    } catch (RuntimeException e) {
      throw new AuditException(
          IngestErrorCode.AUDIT_UNAVAILABLE,
          "Cannot audit batch "
              + request.batchId()
              + " on branch "
              + request.branch()
              + ": "
              + e.getMessage()
              + "; nothing was published and rerunning is safe",
          null,
          e);
    }
    return BatchAudit.of(report, request);
  }

  /** The failure of a run whose audit erred: nothing published, rerunning is safe. */
  public static AuditException noVerdict(String batchId, String table, BatchAudit audit) {
    return new AuditException(
        IngestErrorCode.AUDIT_UNAVAILABLE,
        "Cannot publish batch "
            + batchId
            + " to "
            + table
            + ": its audit "
            + audit.reconciliationId()
            + " ended "
            + audit.status()
            + " ("
            + audit.describeFailures()
            + "); nothing was published and rerunning is safe",
        audit,
        null);
  }
}
