package io.tidemark.ingest;

/**
 * The named points of a run where a failure matters for exactly-once; see {@link FailurePoints}.
 */
public enum FailurePoint {
  /** The batch has been read and validated; nothing written yet. */
  AFTER_READ,
  /** Quarantine and tombstone rows are written; the curated table is untouched. */
  AFTER_QUARANTINE_WRITE,
  /** Inside the commit callback, just before the MERGE that commits data and checkpoint runs. */
  BEFORE_COMMIT,
  /** Data and checkpoint are committed; the run report is not written yet. */
  AFTER_COMMIT
}
