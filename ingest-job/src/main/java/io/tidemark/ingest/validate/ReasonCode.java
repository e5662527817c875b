package io.tidemark.ingest.validate;

/** Why a record or a file went to quarantine. Stable: reports, alarms and replays key on them. */
public enum ReasonCode {
  /** A key column is null, or blank for a text key. */
  NULL_KEY(false),
  /** The change-marker column is null. */
  MISSING_CHANGE_MARKER(false),
  /** The change marker is text that does not parse as the configured type. */
  UNPARSEABLE_CHANGE_MARKER(false),
  /** The change marker is later than now plus the future tolerance. */
  FUTURE_CHANGE_MARKER(false),
  /** The operation is neither {@code U} nor {@code D}. */
  UNKNOWN_OPERATION(false),
  /** The file could not be read as Parquet; quarantined as one row without values. */
  UNREADABLE_FILE(true),
  /** The file lacks a contract column; all its rows are quarantined. */
  MISSING_COLUMN(true),
  /** A contract column of the file has a type the contract does not accept; rows quarantined. */
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
