package io.tidemark.model.contract;

/**
 * Why a record or a whole file of the raw layer is invalid. The ingest job quarantines with these
 * codes and the reconciler excludes with them. Stable: reports, alarms and replays key on them.
 */
public enum ReasonCode {
  /** A key column is null, or blank text (see {@link RawKeys}). */
  NULL_KEY(false),
  /**
   * A text key has a control or invisible format character (NUL, U+200B…), or leading or trailing
   * white space (see {@link RawKeys}).
   */
  MALFORMED_KEY(false),
  /** The change-marker column is null. */
  MISSING_CHANGE_MARKER(false),
  /** The change marker is text that does not parse as the configured type. */
  UNPARSEABLE_CHANGE_MARKER(false),
  /** The change marker is later than now plus the future tolerance. */
  FUTURE_CHANGE_MARKER(false),
  /** The operation is neither {@code U} nor {@code D} (null means {@code U}). */
  UNKNOWN_OPERATION(false),
  /** The file could not be read as Parquet (footer or data pages); quarantined whole. */
  UNREADABLE_FILE(true),
  /** The file lacks a required contract column (see {@link RawSchema}). */
  MISSING_COLUMN(true),
  /** Two columns of the file have names that differ only in case: which one is meant is unclear. */
  DUPLICATE_COLUMN(true),
  /** A contract column of the file has a type the contract does not accept. */
  INCOMPATIBLE_TYPE(true);

  private final boolean wholeFile;

  ReasonCode(boolean wholeFile) {
    this.wholeFile = wholeFile;
  }

  /** Whether the reason applies to a whole file rather than to one record. */
  public boolean wholeFile() {
    return wholeFile;
  }
}
