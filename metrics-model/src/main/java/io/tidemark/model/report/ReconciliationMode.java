package io.tidemark.model.report;

/** What a reconciliation compares. */
public enum ReconciliationMode {
  /** Keys whose raw records changed in the window (default: since the last successful run). */
  WINDOW,
  /** Every key. */
  FULL
}
