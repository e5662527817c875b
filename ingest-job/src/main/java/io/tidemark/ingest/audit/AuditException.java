package io.tidemark.ingest.audit;

import io.tidemark.ingest.kernel.IngestException;
import io.tidemark.model.report.BatchAudit;
import io.tidemark.model.report.IngestErrorCode;

/**
 * A batch not published for its audit: AUDIT_FAILED (held for inspection) or AUDIT_UNAVAILABLE (no
 * verdict; dropped), with the audit when there was one.
 */
public final class AuditException extends IngestException {
  private final transient BatchAudit audit;

  public AuditException(IngestErrorCode code, String message, BatchAudit audit, Throwable cause) {
    super(code, message, cause);
    this.audit = audit;
  }

  /** The audit; null when none answered. */
  public BatchAudit audit() {
    return audit;
  }
}
