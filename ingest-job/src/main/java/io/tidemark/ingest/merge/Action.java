package io.tidemark.ingest.merge;

/** What the MERGE's version guard does with one deduplicated record. */
public enum Action {
  /** The key was absent (and not deleted by a newer delete): inserted. */
  INSERTED,
  /** The key was present with an older change marker: updated. */
  UPDATED,
  /** A delete not older than the present version: the key is removed. */
  DELETED,
  /**
   * The table already held a newer or equal version, or a newer delete, or the record deletes a key
   * that is already deleted (a re-delivered or replayed delete): nothing changes.
   */
  UNCHANGED,
  /**
   * A delete of a key never seen: neither the table nor its remembered deletes hold it. Counted,
   * remembered, not an error.
   */
  DELETE_OF_UNKNOWN_KEY
}
