package io.tidemark.reconcile.engine;

import java.util.Objects;

/**
 * A raw file an engine left out whole, as the ingest job quarantines it whole.
 *
 * @param path the file's path
 * @param reason the ingest job's reason code: {@value #UNREADABLE_FILE}, {@value #MISSING_COLUMN}
 *     or {@value #INCOMPATIBLE_TYPE}
 * @param detail what is wrong, in words
 */
public record ExcludedFile(String path, String reason, String detail) {
  public static final String UNREADABLE_FILE = "UNREADABLE_FILE";
  public static final String MISSING_COLUMN = "MISSING_COLUMN";
  public static final String INCOMPATIBLE_TYPE = "INCOMPATIBLE_TYPE";

  public ExcludedFile {
    Objects.requireNonNull(path, "path is null");
    Objects.requireNonNull(reason, "reason is null");
    Objects.requireNonNull(detail, "detail is null");
  }

  /** {@code file:<path> (<reason>: <detail>)}. */
  @Override
  public String toString() {
    return "file:" + path + " (" + reason + ": " + detail + ")";
  }
}
