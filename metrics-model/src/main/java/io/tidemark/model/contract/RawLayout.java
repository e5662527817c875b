package io.tidemark.model.contract;

import java.time.DateTimeException;
import java.time.LocalDate;
import java.time.format.DateTimeFormatter;
import java.time.format.ResolverStyle;
import java.util.Locale;
import java.util.Objects;

/**
 * Which entries of a dataset's raw folder hold data: {@code
 * <location>/<partitionColumn>=YYYY-MM-DD/<name>.parquet}.
 *
 * <ul>
 *   <li>A data file's name ends in {@code .parquet} in any case ({@code X.PARQUET} is data); any
 *       other character is allowed in the name, glob metacharacters ({@code * ? [ ] { }}) and
 *       {@code :} included: engines must read each file by its literal path.
 *   <li>Names starting with {@code _} or {@code .} are hidden: writers' markers ({@code _SUCCESS}),
 *       temporary and checksum files. Hidden entries are skipped silently, files or folders.
 *   <li>A partition folder is named exactly {@code <partitionColumn>=YYYY-MM-DD} (case matters, the
 *       date is a real calendar date). Any other visible folder, and any visible file directly
 *       under the dataset folder, is a stray entry: not read, but reported, so that rows parked in
 *       a mistyped folder are never silently left out.
 * </ul>
 */
public final class RawLayout {
  /** A data file's suffix, compared without case. */
  public static final String DATA_FILE_SUFFIX = ".parquet";

  private static final DateTimeFormatter DATE =
      DateTimeFormatter.ofPattern("uuuu-MM-dd", Locale.ROOT)
          .withResolverStyle(ResolverStyle.STRICT);

  private RawLayout() {}

  /** Whether an entry's name marks it hidden (starts with {@code _} or {@code .}). */
  public static boolean isHidden(String name) {
    Objects.requireNonNull(name, "name is null");
    return name.startsWith("_") || name.startsWith(".");
  }

  /** Whether a file inside a partition folder is a data file: visible and {@code *.parquet}. */
  public static boolean isDataFile(String name) {
    return !isHidden(name) && name.toLowerCase(Locale.ROOT).endsWith(DATA_FILE_SUFFIX);
  }

  /** The folder name of one partition: {@code <partitionColumn>=YYYY-MM-DD}. */
  public static String partitionFolder(String partitionColumn, LocalDate date) {
    Objects.requireNonNull(partitionColumn, "partitionColumn is null");
    Objects.requireNonNull(date, "date is null");
    return partitionColumn + "=" + DATE.format(date);
  }

  /** A strict {@code YYYY-MM-DD} date, or null when the text is not one. */
  public static LocalDate parseDate(String text) {
    if (text == null || text.length() != 10) {
      return null;
    }
    try {
      if (isPlainDate(text)) {
        // The common case without the formatter (listing a year of partitions parses them all).
        return LocalDate.of(
            Integer.parseInt(text, 0, 4, 10),
            Integer.parseInt(text, 5, 7, 10),
            Integer.parseInt(text, 8, 10, 10));
      }
      return LocalDate.parse(text, DATE);
    } catch (DateTimeException e) {
      return null;
    }
  }

  /** Ten characters shaped {@code dddd-dd-dd} in ASCII digits, which is all DATE accepts. */
  private static boolean isPlainDate(String text) {
    for (int i = 0; i < 10; i++) {
      char c = text.charAt(i);
      boolean ok = i == 4 || i == 7 ? c == '-' : c >= '0' && c <= '9';
      if (!ok) {
        return false;
      }
    }
    return true;
  }

  /**
   * What a folder directly under the dataset folder is.
   *
   * @param partitionColumn the dataset's partition column
   * @param name the folder's name
   */
  public static Folder classifyFolder(String partitionColumn, String name) {
    Objects.requireNonNull(partitionColumn, "partitionColumn is null");
    if (isHidden(name)) {
      return Folder.HIDDEN;
    }
    String prefix = partitionColumn + "=";
    int eq = name.indexOf('=');
    if (name.startsWith(prefix)) {
      String value = name.substring(prefix.length());
      LocalDate date = parseDate(value);
      return date != null
          ? Folder.partition(date)
          : Folder.stray("'" + value + "' is not a date YYYY-MM-DD");
    }
    if (eq > 0 && name.substring(0, eq).equalsIgnoreCase(partitionColumn)) {
      return Folder.stray(
          "the partition column is '" + partitionColumn + "' (names are case-sensitive)");
    }
    return Folder.stray("not a " + partitionColumn + "=YYYY-MM-DD partition folder");
  }

  /**
   * A folder under the dataset folder: a partition (with its date), hidden, or stray (with why).
   *
   * @param kind what it is
   * @param date the partition's date; null unless a partition
   * @param problem why a stray folder is not a partition; null otherwise
   */
  public record Folder(Kind kind, LocalDate date, String problem) {
    static final Folder HIDDEN = new Folder(Kind.HIDDEN, null, null);

    public Folder {
      Objects.requireNonNull(kind, "kind is null");
      if ((kind == Kind.PARTITION) != (date != null)) {
        throw new IllegalArgumentException("Cannot make a folder: only a partition has a date");
      }
      if ((kind == Kind.STRAY) != (problem != null)) {
        throw new IllegalArgumentException("Cannot make a folder: only a stray one has a problem");
      }
    }

    static Folder partition(LocalDate date) {
      return new Folder(Kind.PARTITION, date, null);
    }

    static Folder stray(String problem) {
      return new Folder(Kind.STRAY, null, problem);
    }

    /** Folder kinds. */
    public enum Kind {
      PARTITION,
      HIDDEN,
      STRAY
    }
  }

  /**
   * A visible entry of the dataset folder that is neither a partition nor hidden: a folder whose
   * name does not parse, or a file outside any partition. Reported by both halves, read by neither.
   *
   * @param path the entry's path as the lister saw it
   * @param problem why it is not read
   */
  public record StrayEntry(String path, String problem) {
    public StrayEntry {
      Objects.requireNonNull(path, "path is null");
      Objects.requireNonNull(problem, "problem is null");
    }

    /** A file lying directly under the dataset folder. */
    public static StrayEntry file(String path) {
      return new StrayEntry(path, "a file outside any partition folder");
    }

    @Override
    public String toString() {
      return path + " (" + problem + ")";
    }
  }
}
