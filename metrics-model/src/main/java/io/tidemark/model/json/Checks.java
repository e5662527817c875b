package io.tidemark.model.json;

import java.util.List;
import java.util.regex.Pattern;

/**
 * Argument checks for the contract's records. Every failure is an {@link InvalidDocumentException}
 * naming the field and the value, so a bad config file points at its own mistake.
 */
public final class Checks {
  /**
   * A SQL-safe identifier: letters, digits and underscores, not starting with a digit. Identifiers
   * in generated SQL only ever come from values that passed this check.
   */
  public static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,127}");

  /** A name usable as a CloudWatch dimension value, a file name and a URL path segment. */
  public static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]{0,127}");

  private Checks() {}

  public static <T> T required(String field, T value) {
    if (value == null) {
      throw new InvalidDocumentException(field, null, "is required");
    }
    return value;
  }

  public static String nonBlank(String field, String value) {
    required(field, value);
    if (value.isBlank()) {
      throw new InvalidDocumentException(field, value, "must not be blank");
    }
    return value;
  }

  public static String identifier(String field, String value) {
    nonBlank(field, value);
    if (!IDENTIFIER.matcher(value).matches()) {
      throw new InvalidDocumentException(
          field, value, "not an identifier (letters, digits, '_'; not starting with a digit)");
    }
    return value;
  }

  /** A possibly dotted identifier, e.g. {@code curated.customers}: each part is an identifier. */
  public static String qualifiedIdentifier(String field, String value) {
    nonBlank(field, value);
    for (String part : value.split("\\.", -1)) {
      if (!IDENTIFIER.matcher(part).matches()) {
        throw new InvalidDocumentException(
            field, value, "not a dotted identifier (each part: letters, digits, '_')");
      }
    }
    return value;
  }

  public static String name(String field, String value) {
    nonBlank(field, value);
    if (!NAME.matcher(value).matches()) {
      throw new InvalidDocumentException(
          field, value, "not a name (letters, digits, '_', '.', '-'; up to 128 characters)");
    }
    return value;
  }

  public static List<String> identifiers(String field, List<String> values, boolean nonEmpty) {
    if (values == null) {
      if (nonEmpty) {
        throw new InvalidDocumentException(field, null, "is required");
      }
      return List.of();
    }
    if (nonEmpty && values.isEmpty()) {
      throw new InvalidDocumentException(field, values, "must name at least one column");
    }
    for (int i = 0; i < values.size(); i++) {
      identifier(field + "[" + i + "]", values.get(i));
    }
    if (values.stream().distinct().count() != values.size()) {
      throw new InvalidDocumentException(field, values, "names a column twice");
    }
    return List.copyOf(values);
  }

  public static long nonNegative(String field, long value) {
    if (value < 0) {
      throw new InvalidDocumentException(field, value, "must not be negative");
    }
    return value;
  }

  public static double finiteNonNegative(String field, double value) {
    if (!Double.isFinite(value) || value < 0) {
      throw new InvalidDocumentException(field, value, "must be a finite number >= 0");
    }
    return value;
  }
}
