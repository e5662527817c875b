package io.tidemark.reconcile.report;

/**
 * A report could not be written because its stored copy is not the one this process expects:
 * another replica created the same report, or changed it since this process last wrote or read it.
 * Nothing was overwritten.
 */
public class ReportConflictException extends RuntimeException {
  private final String id;

  public ReportConflictException(String id, String message, Throwable cause) {
    super(message, cause);
    this.id = id;
  }

  /** The report's id. */
  public String id() {
    return id;
  }
}
