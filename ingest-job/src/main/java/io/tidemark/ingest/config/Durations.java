package io.tidemark.ingest.config;

import io.tidemark.model.json.InvalidDocumentException;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads durations written as ISO-8601 ({@code P2D}, {@code PT36H}) or short ({@code 2d}, {@code
 * 36h}).
 */
public final class Durations {
  private static final Pattern SHORT = Pattern.compile("(\\d+)\\s*(d|h|m|s)");

  private Durations() {}

  /**
   * Parses a non-negative duration.
   *
   * @param field the option or config key, named in the error
   * @throws InvalidDocumentException naming the field and value when it does not parse
   */
  public static Duration parse(String field, String value) {
    if (value == null || value.isBlank()) {
      throw new InvalidDocumentException(field, value, "must not be blank");
    }
    String v = value.trim().toLowerCase(Locale.ROOT);
    Duration d;
    Matcher m = SHORT.matcher(v);
    if (m.matches()) {
      long n = Long.parseLong(m.group(1));
      d =
          switch (m.group(2)) {
            case "d" -> Duration.ofDays(n);
            case "h" -> Duration.ofHours(n);
            case "m" -> Duration.ofMinutes(n);
            default -> Duration.ofSeconds(n);
          };
    } else {
      try {
        d = Duration.parse(value.trim().toUpperCase(Locale.ROOT));
      } catch (DateTimeParseException e) {
        throw new InvalidDocumentException(
            field, value, "not a duration (ISO-8601 like P2D or PT36H, or 2d, 36h, 90m, 30s)");
      }
    }
    if (d.isNegative()) {
      throw new InvalidDocumentException(field, value, "must not be negative");
    }
    return d;
  }

  /** Whole days covering the duration, rounded up: how many daily partitions a lookback spans. */
  public static long daysCeil(Duration d) {
    long days = d.toDays();
    return d.equals(Duration.ofDays(days)) ? days : days + 1;
  }
}
