package io.tidemark.model.contract.layout;

import java.time.DateTimeException;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Folders named by date, one or more levels deep: {@code ingest_date=YYYY-MM-DD}, {@code
 * dt=YYYYMMDD}, {@code YYYY/MM/DD/HH} (Kinesis Data Firehose), {@code YYYY-MM-DD} (AWS DMS with a
 * {@code DASH} delimiter). A pattern is text in which {@code YYYY}, {@code MM}, {@code DD} and
 * {@code HH} stand for the year, month, day and hour in digits and {@code /} separates folder
 * levels; everything else is literal. The year, month and day must each appear once, the hour at
 * most once, after the day.
 *
 * <p>A file's partition is the day its folders name; folders below the day (an hour) are part of
 * its name within the partition, e.g. {@code 10/part-0.parquet}.
 *
 * @param pattern the pattern as the contract gives it
 */
public record DateFolders(String pattern) {
  private static final Pattern TOKEN = Pattern.compile("YYYY|MM|DD|HH");

  public DateFolders {
    Objects.requireNonNull(pattern, "pattern is null");
    check(pattern);
  }

  /**
   * Hive-style folders {@code <column>=<date>}, the date written as {@code dateFormat} in Java's
   * letters ({@code yyyy-MM-dd}, {@code yyyyMMdd}, {@code yyyy-MM-dd-HH}).
   */
  public static DateFolders hive(String column, String dateFormat) {
    Objects.requireNonNull(column, "column is null");
    String f = dateFormat.replace("yyyy", "YYYY").replace("dd", "DD");
    if (f.contains("/")) {
      throw new IllegalArgumentException(
          "'" + dateFormat + "' is not a one-folder date format: it holds '/'");
    }
    return new DateFolders(column + "=" + f);
  }

  private static void check(String pattern) {
    if (pattern.isEmpty() || pattern.startsWith("/") || pattern.endsWith("/")) {
      throw new IllegalArgumentException(
          "'" + pattern + "' is not a folder pattern: empty, or '/' at an end");
    }
    List<String> tokens = new ArrayList<>();
    Matcher m = TOKEN.matcher(pattern);
    while (m.find()) {
      tokens.add(m.group());
    }
    for (String needed : List.of("YYYY", "MM", "DD")) {
      if (tokens.stream().filter(needed::equals).count() != 1) {
        throw new IllegalArgumentException(
            "'" + pattern + "' must name " + needed + " exactly once (with YYYY, MM, DD, HH)");
      }
    }
    long hours = tokens.stream().filter("HH"::equals).count();
    if (hours > 1 || (hours == 1 && tokens.indexOf("HH") < tokens.indexOf("DD"))) {
      throw new IllegalArgumentException("'" + pattern + "' may name HH once, after DD");
    }
    for (String level : pattern.split("/", -1)) {
      if (level.isEmpty()) {
        throw new IllegalArgumentException("'" + pattern + "' has an empty folder level");
      }
      if (level.startsWith("_") || level.startsWith(".")) {
        throw new IllegalArgumentException(
            "'" + pattern + "' names hidden folders (starting with '_' or '.')");
      }
    }
  }

  /** The folder levels, outermost first. */
  public List<Level> levels() {
    List<Level> out = new ArrayList<>();
    for (String level : pattern.split("/", -1)) {
      out.add(new Level(level));
    }
    return out;
  }

  /** How many levels name the day (the partition); deeper levels belong to a file's name. */
  public int dayDepth() {
    List<Level> levels = levels();
    for (int i = 0; i < levels.size(); i++) {
      if (levels.get(i).names("DD")) {
        return i + 1;
      }
    }
    throw new IllegalStateException("unreachable: DD is checked at construction");
  }

  /** The day's folder path (levels down to the day), e.g. {@code 2026/12/01}. */
  public String dayPath(LocalDate day) {
    List<String> parts = new ArrayList<>();
    List<Level> levels = levels();
    for (int i = 0; i < dayDepth(); i++) {
      parts.add(levels.get(i).format(day, 0));
    }
    return String.join("/", parts);
  }

  /** The folder path of an hour (all levels), e.g. {@code 2026/12/01/10}. */
  public String path(LocalDate day, int hour) {
    List<String> parts = new ArrayList<>();
    for (Level l : levels()) {
      parts.add(l.format(day, hour));
    }
    return String.join("/", parts);
  }

  /** Whether the pattern names an hour. */
  public boolean hourly() {
    return pattern.contains("HH");
  }

  /**
   * One folder level: a regular expression of its name with the date fields it holds.
   *
   * @param text the level's pattern text, e.g. {@code ingest_date=YYYY-MM-DD} or {@code MM}
   */
  public record Level(String text) {
    /** Whether this level names the field ({@code YYYY}, {@code MM}, {@code DD} or {@code HH}). */
    public boolean names(String field) {
      return text.contains(field);
    }

    /** This level's name for a date and hour. */
    public String format(LocalDate day, int hour) {
      return text.replace("YYYY", String.format(Locale.ROOT, "%04d", day.getYear()))
          .replace("MM", String.format(Locale.ROOT, "%02d", day.getMonthValue()))
          .replace("DD", String.format(Locale.ROOT, "%02d", day.getDayOfMonth()))
          .replace("HH", String.format(Locale.ROOT, "%02d", hour));
    }

    /**
     * The fields a folder name gives at this level, or null when the name does not match.
     *
     * @param name the folder's name
     * @param known the fields of the levels above
     */
    public Fields match(String name, Fields known) {
      StringBuilder regex = new StringBuilder();
      List<String> order = new ArrayList<>();
      Matcher m = TOKEN.matcher(text);
      int last = 0;
      while (m.find()) {
        regex.append(Pattern.quote(text.substring(last, m.start())));
        regex.append(m.group().equals("YYYY") ? "(\\d{4})" : "(\\d{2})");
        order.add(m.group());
        last = m.end();
      }
      regex.append(Pattern.quote(text.substring(last)));
      Matcher n = Pattern.compile(regex.toString()).matcher(name);
      if (!n.matches()) {
        return null;
      }
      Fields f = known;
      for (int i = 0; i < order.size(); i++) {
        f = f.with(order.get(i), Integer.parseInt(n.group(i + 1)));
      }
      return f.valid() ? f : null;
    }
  }

  /**
   * Date fields read from folder names so far; -1 where not read yet.
   *
   * @param year the year
   * @param month the month, 1..12
   * @param day the day of the month
   * @param hour the hour, 0..23
   */
  public record Fields(int year, int month, int day, int hour) {
    public static final Fields NONE = new Fields(-1, -1, -1, -1);

    Fields with(String field, int value) {
      return switch (field) {
        case "YYYY" -> new Fields(value, month, day, hour);
        case "MM" -> new Fields(year, value, day, hour);
        case "DD" -> new Fields(year, month, value, hour);
        default -> new Fields(year, month, day, value);
      };
    }

    boolean valid() {
      if (month != -1 && (month < 1 || month > 12)) {
        return false;
      }
      if (hour != -1 && hour > 23) {
        return false;
      }
      if (day != -1) {
        try {
          LocalDate.of(year == -1 ? 2000 : year, month == -1 ? 1 : month, day);
        } catch (DateTimeException e) {
          return false;
        }
      }
      return true;
    }

    /** The day, once year, month and day are known; null before. */
    public LocalDate date() {
      return year < 0 || month < 0 || day < 0 ? null : LocalDate.of(year, month, day);
    }

    /**
     * Whether every day these fields allow is before {@code from}: a year folder before the start's
     * year holds nothing a window starting at {@code from} reads.
     */
    public boolean before(LocalDate from) {
      if (from == null || year < 0) {
        return false;
      }
      if (year != from.getYear()) {
        return year < from.getYear();
      }
      if (month < 0 || month != from.getMonthValue()) {
        return month >= 0 && month < from.getMonthValue();
      }
      return day >= 0 && day < from.getDayOfMonth();
    }

    /** Whether every day these fields allow is after {@code to}. */
    public boolean after(LocalDate to) {
      if (to == null || year < 0) {
        return false;
      }
      if (year != to.getYear()) {
        return year > to.getYear();
      }
      if (month < 0 || month != to.getMonthValue()) {
        return month > to.getMonthValue();
      }
      return day > to.getDayOfMonth();
    }
  }
}
