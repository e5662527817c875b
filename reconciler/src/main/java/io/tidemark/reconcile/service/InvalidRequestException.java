package io.tidemark.reconcile.service;

/** A request field the service refuses; the message names the field and the value. */
public class InvalidRequestException extends IllegalArgumentException {
  private final String field;

  public InvalidRequestException(String field, Object value, String reason) {
    this("start a reconciliation", field, value, reason);
  }

  /**
   * @param action what could not be done, e.g. {@code list reconciliations}
   */
  public InvalidRequestException(String action, String field, Object value, String reason) {
    super(
        "Cannot "
            + action
            + ": field '"
            + field
            + "' has invalid value "
            + (value == null ? "null" : "'" + shorten(String.valueOf(value)) + "'")
            + ": "
            + reason);
    this.field = field;
  }

  public String field() {
    return field;
  }

  private static String shorten(String s) {
    return s.length() > 100 ? s.substring(0, 100) + "..." : s;
  }
}
