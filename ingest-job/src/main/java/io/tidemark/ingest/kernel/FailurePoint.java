package io.tidemark.ingest.kernel;

/**
 * The named points of a run where a failure matters for exactly-once; see {@link FailurePoints}.
 */
public enum FailurePoint {
  /** The batch has been read and validated; nothing written yet. */
  AFTER_READ,
  /**
   * The quarantine table was checked for rows of the batch's raw files, which decides whether its
   * quarantine rows are appended or MERGEd; they are not written yet. Only reached by a batch with
   * rows to quarantine.
   */
  QUARANTINE_CHECKED,
  /** Quarantine and tombstone rows are written; the curated table is untouched. */
  AFTER_QUARANTINE_WRITE,
  /**
   * The run's branch exists at the planned snapshot; just before the batch's data is written to
   * that branch. {@code main} is untouched.
   */
  BEFORE_COMMIT,
  /**
   * The new rows are appended to the run's branch (new keys' and, with position deletes, updated
   * keys'); the commit of the updates and deletes (position deletes or a MERGE), which carries the
   * checkpoint, has not run. {@code main} is untouched. Only reached by a batch with rows to append
   * and updates or deletes.
   */
  AFTER_INSERTS,
  /**
   * Data and checkpoint are committed to the run's branch; {@code main} is not fast-forwarded to it
   * yet, so the batch is not published and the table's readers and checkpoint do not see it.
   */
  BEFORE_PUBLISH,
  /** {@code main} was fast-forwarded: data and checkpoint are published; no run report yet. */
  AFTER_COMMIT
}
