package io.tidemark.model.contract.athena;

import java.time.LocalDate;
import java.util.Locale;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A date partition key, written in the folders' own format.
 *
 * @param key the key
 * @param pattern the value as the folders write it, in the contract's tokens: {@code YYYY}, {@code
 *     MM}, {@code DD}, {@code HH} and literal text ({@code YYYY-MM-DD}, {@code YYYY/MM/DD}, {@code
 *     YYYYMMDDHH})
 */
public record DateProjection(String key, String pattern) implements PartitionProjection {
  /**
   * The last value projection enumerates, relative to the query's start: a day ahead, so that a
   * file an exporter ahead of UTC lands in tomorrow's folder is still read.
   */
  public static final String END = "NOW+1DAYS";

  private static final Pattern TOKEN = Pattern.compile("YYYY|MM|DD|HH");

  public DateProjection {
    Objects.requireNonNull(key, "key is null");
    Objects.requireNonNull(pattern, "pattern is null");
  }

  /** Whether a value names an hour: projection then steps by hours. */
  public boolean hourly() {
    return pattern.contains("HH");
  }

  /** Athena's {@code projection.<key>.interval.unit}. */
  public String intervalUnit() {
    return hourly() ? "HOURS" : "DAYS";
  }

  /** Athena's {@code projection.<key>.format}: the pattern in Java's letters, literals quoted. */
  public String format() {
    StringBuilder out = new StringBuilder();
    Matcher m = TOKEN.matcher(pattern);
    int last = 0;
    while (m.find()) {
      out.append(quoted(pattern.substring(last, m.start())));
      out.append(
          switch (m.group()) {
            case "YYYY" -> "yyyy";
            case "DD" -> "dd";
            default -> m.group();
          });
      last = m.end();
    }
    return out.append(quoted(pattern.substring(last))).toString();
  }

  private static String quoted(String literal) {
    if (literal.isEmpty() || literal.matches("[^A-Za-z'\\[\\]{}#]*")) {
      return literal;
    }
    return "'" + literal.replace("'", "''") + "'";
  }

  /** The value naming a day's first hour, as the folders write it. */
  public String value(LocalDate day) {
    return pattern
        .replace("YYYY", String.format(Locale.ROOT, "%04d", day.getYear()))
        .replace("MM", String.format(Locale.ROOT, "%02d", day.getMonthValue()))
        .replace("DD", String.format(Locale.ROOT, "%02d", day.getDayOfMonth()))
        .replace("HH", "00");
  }

  /** Athena's {@code projection.<key>.range} from {@code start}: {@code <start>,NOW+1DAYS}. */
  public String range(LocalDate start) {
    return value(start) + "," + END;
  }

  @Override
  public String valueRegex() {
    StringBuilder out = new StringBuilder();
    Matcher m = TOKEN.matcher(pattern);
    int last = 0;
    while (m.find()) {
      out.append(Pattern.quote(pattern.substring(last, m.start())));
      out.append(m.group().equals("YYYY") ? "\\d{4}" : "\\d{2}");
      last = m.end();
    }
    return out.append(Pattern.quote(pattern.substring(last))).toString();
  }
}
