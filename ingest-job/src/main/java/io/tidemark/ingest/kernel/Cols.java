package io.tidemark.ingest.kernel;

/**
 * Names of the job's working columns; none can clash with a contract column (they start with _).
 */
public final class Cols {
  /** The change marker, parsed to the configured type; null when missing or unparseable. */
  public static final String MARKER = "_marker";

  /** Whether the raw change-marker value was present (non-null) before parsing. */
  public static final String MARKER_PRESENT = "_marker_present";

  /** The operation, {@code U} when the column is absent or null. */
  public static final String OP = "_op";

  public static final String SOURCE_FILE = "_source_file";
  public static final String ROW_INDEX = "_row_index";

  /** The raw row as a JSON object, every column of the file: what quarantine keeps for replay. */
  public static final String ORIGINAL = "_original";

  /** Whether the row's file is new in this batch (not in the processed set). */
  public static final String NEW_FILE = "_new_file";

  /** The quarantine reason, null for a valid row. */
  public static final String REASON = "_reason";

  public static final String DETAIL = "_detail";

  /** Whether the row is a candidate change of this batch (always, in files mode). */
  public static final String CANDIDATE = "_candidate";

  private Cols() {}
}
