package io.tidemark.ingest.merge;

/**
 * What a batch is planned against: the curated table's state the version guard compares each record
 * with.
 *
 * @param kind which state
 * @param snapshot the curated snapshot planned against; -1 when the table has none
 */
public record MergeBasis(Kind kind, long snapshot) {
  public enum Kind {
    /** A full refresh: an empty table and no remembered deletes; the batch rebuilds both. */
    REBUILD,
    /** The table's first batch: no rows yet, but the deletes remembered so far count. */
    FIRST_BATCH,
    /** The table as of {@link #snapshot}, and its remembered deletes. */
    SNAPSHOT
  }

  /** The basis of a batch of files: a rebuild, or the table as of {@code base} (if it has one). */
  public static MergeBasis of(long base, boolean rebuild) {
    if (rebuild) {
      return new MergeBasis(Kind.REBUILD, base);
    }
    return base < 0 ? new MergeBasis(Kind.FIRST_BATCH, base) : snapshot(base);
  }

  /** The table as of the snapshot. */
  public static MergeBasis snapshot(long snapshotId) {
    return new MergeBasis(Kind.SNAPSHOT, snapshotId);
  }

  /** Whether the batch is planned against no rows at all. */
  boolean emptyTable() {
    return kind != Kind.SNAPSHOT;
  }
}
