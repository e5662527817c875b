package io.tidemark.ingest.merge;

/** What the MERGE's version guard does with one deduplicated record. */
public enum Action {
  /** The key was absent (and not deleted by a newer delete): inserted. */
  INSERTED,
  /** The key was present with an older change marker: updated. */
  UPDATED,
  /** A delete not older than the present version: the key is removed. */
  DELETED,
  /** The table already held a newer or equal version (or a newer delete): nothing changes. */
  UNCHANGED,
  /** A delete for a key the table did not hold: counted, remembered, not an error. */
  DELETE_OF_UNKNOWN_KEY
}
