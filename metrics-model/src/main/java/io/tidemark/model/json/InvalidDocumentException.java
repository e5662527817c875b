package io.tidemark.model.json;

/**
 * A document (config, report) that breaks the contract. The message names the field and the value,
 * e.g. {@code Cannot read DatasetSpec: field 'keyColumns[0]' has invalid value 'bad name': not an
 * identifier}.
 */
public class InvalidDocumentException extends IllegalArgumentException {
  private final String field;
  private final Object value;
  private final String reason;

  public InvalidDocumentException(String field, Object value, String reason) {
    super("field '" + field + "' has invalid value " + quote(value) + ": " + reason);
    this.field = field;
    this.value = value;
    this.reason = reason;
  }

  public InvalidDocumentException(String message, String field, Throwable cause) {
    super(message, cause);
    this.field = field;
    this.value = null;
    this.reason = message;
  }

  /** The offending value; null when it was missing or is unknown. */
  public Object value() {
    return value;
  }

  /** Why the value is wrong, e.g. {@code is not a column}. */
  public String reason() {
    return reason;
  }

  /** The path of the offending field, e.g. {@code rules[2].threshold}. */
  public String field() {
    return field;
  }

  /** A value as messages show it: quoted and cut at 200 characters; {@code null} bare. */
  public static String quote(Object value) {
    if (value == null) {
      return "null";
    }
    String s = String.valueOf(value);
    if (s.length() > 200) {
      s = s.substring(0, 200) + "...";
    }
    return "'" + s + "'";
  }
}
