package io.tidemark.model.report;

/** The state of one reconciliation. */
public enum ReconciliationStatus {
  RUNNING,
  /** Every rule passed. */
  PASSED,
  /** At least one rule failed (or could not be evaluated). */
  FAILED,
  /** The reconciliation itself broke before it could evaluate its rules. */
  ERROR,
  /** The service stopped while the run was RUNNING; marked on the next start. */
  ABANDONED;

  public boolean finished() {
    return this != RUNNING;
  }
}
