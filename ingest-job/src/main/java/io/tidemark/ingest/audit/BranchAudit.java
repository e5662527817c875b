package io.tidemark.ingest.audit;

import io.tidemark.model.audit.AuditRequest;
import io.tidemark.model.report.ReconciliationReport;

/** Audits the head of a run's branch: the reconciler's record-level rules, PASSED or not. */
@FunctionalInterface
public interface BranchAudit {
  /**
   * @return the audit's report (PASSED, FAILED or ERROR)
   * @throws RuntimeException when no verdict could be had (the reconciler unreachable, refusing)
   */
  ReconciliationReport audit(String dataset, AuditRequest request);
}
