package io.tidemark.model.contract.layout;

import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * How a dataset's raw files are laid out under its raw location, and so which day (partition) each
 * file belongs to. Discovery lists only the partitions a run can need, and the checkpoint tracks
 * processed files per partition, so every layout gives each data file a day:
 *
 * <ul>
 *   <li>{@link Dated}: date folders, Hive-style ({@code ingest_date=YYYY-MM-DD}, any column name
 *       and date format) or a date path ({@code YYYY/MM/DD[/HH]}, as Kinesis Data Firehose writes);
 *       the folders name the day.
 *   <li>{@link Dms}: AWS DMS's S3 target: full-load files ({@code LOAD00000001.parquet}, named by a
 *       hexadecimal counter) and change-data-capture files named by time ({@code
 *       20141029-1134010000.parquet}) in the table's folder, or the latter in date folders ({@code
 *       DatePartitionEnabled}); a CDC file's day is the one its name (or folder) gives, a full-load
 *       file's the day it arrived.
 *   <li>{@link Arrival}: a flat folder where a file's arrival (its modification time, UTC) is what
 *       orders it and gives its day.
 * </ul>
 *
 * Whatever the layout, a visible entry that fits none of it (a folder whose name is no date, a file
 * outside the date folders, a file that is not {@code .parquet}) is a stray entry: read by neither
 * half and named by both (see {@link RawListing}).
 */
public sealed interface Layout {
  /** The layout's kind as a contract names it. */
  String kind();

  /** What the layout expects, for messages, e.g. {@code folders ingest_date=YYYY-MM-DD}. */
  String describe();

  /** The date folders, outermost first; empty when files lie directly in the raw location. */
  List<DateFolders.Level> levels();

  /**
   * The day of a file lying directly in the raw location, or null when such a file does not belong
   * there (it is a stray entry).
   *
   * @param name the file's name
   * @param modifiedMillis its modification time, epoch milliseconds
   */
  LocalDate rootFileDay(String name, long modifiedMillis);

  /** Why a data file directly in the raw location is a stray entry. */
  String rootFileProblem();

  /**
   * Date folders.
   *
   * @param kind {@code hive} or {@code date-path}
   * @param folders the folder pattern
   */
  record Dated(String kind, DateFolders folders) implements Layout {
    public Dated {
      Objects.requireNonNull(kind, "kind is null");
      Objects.requireNonNull(folders, "folders is null");
    }

    /** Hive-style folders {@code <column>=<date>}. */
    public static Dated hive(String column, String dateFormat) {
      return new Dated(HIVE, DateFolders.hive(column, dateFormat));
    }

    /** A date path such as {@code YYYY/MM/DD/HH}. */
    public static Dated datePath(String pattern) {
      return new Dated(DATE_PATH, new DateFolders(pattern));
    }

    @Override
    public String describe() {
      return "folders " + folders.pattern();
    }

    @Override
    public List<DateFolders.Level> levels() {
      return folders.levels();
    }

    @Override
    public LocalDate rootFileDay(String name, long modifiedMillis) {
      return null;
    }

    @Override
    public String rootFileProblem() {
      return "a file outside any partition folder";
    }
  }

  /**
   * AWS DMS's S3 target layout.
   *
   * @param cdcFolders the CDC files' date folders ({@code DatePartitionSequence} and {@code
   *     DatePartitionDelimiter}, e.g. {@code YYYY/MM/DD}); null when they lie in the table's folder
   */
  record Dms(DateFolders cdcFolders) implements Layout {
    /** A full-load file: {@code LOAD} and a hexadecimal counter (parallel loads add segments). */
    static final Pattern FULL_LOAD =
        Pattern.compile("LOAD[0-9A-Fa-f]+(_[0-9A-Fa-f]+)*\\.parquet", Pattern.CASE_INSENSITIVE);

    /** A CDC file named by time: {@code yyyyMMdd-HHmmss…}. */
    static final Pattern CDC =
        Pattern.compile("(\\d{8})-\\d{6,}[^/]*\\.parquet", Pattern.CASE_INSENSITIVE);

    @Override
    public String kind() {
      return DMS;
    }

    @Override
    public String describe() {
      return "AWS DMS files (LOAD*.parquet, then CDC files named yyyyMMdd-HHmmss…"
          + (cdcFolders == null ? "" : " in folders " + cdcFolders.pattern())
          + ")";
    }

    @Override
    public List<DateFolders.Level> levels() {
      return cdcFolders == null ? List.of() : cdcFolders.levels();
    }

    @Override
    public LocalDate rootFileDay(String name, long modifiedMillis) {
      if (FULL_LOAD.matcher(name).matches()) {
        return arrivalDay(modifiedMillis);
      }
      var m = CDC.matcher(name);
      if (m.matches()) {
        String d = m.group(1);
        DateFolders.Fields f =
            new DateFolders.Fields(
                Integer.parseInt(d.substring(0, 4)),
                Integer.parseInt(d.substring(4, 6)),
                Integer.parseInt(d.substring(6, 8)),
                -1);
        return f.valid() ? f.date() : null;
      }
      return null;
    }

    @Override
    public String rootFileProblem() {
      return "neither a DMS full-load file (LOAD…) nor a CDC file named by time (yyyyMMdd-HHmmss…)";
    }
  }

  /** A flat folder ordered by arrival. */
  record Arrival() implements Layout {
    @Override
    public String kind() {
      return ARRIVAL;
    }

    @Override
    public String describe() {
      return "files in one folder, ordered by arrival";
    }

    @Override
    public List<DateFolders.Level> levels() {
      return List.of();
    }

    @Override
    public LocalDate rootFileDay(String name, long modifiedMillis) {
      return arrivalDay(modifiedMillis);
    }

    @Override
    public String rootFileProblem() {
      return "unreachable: every data file in the folder is placed";
    }
  }

  /** Kind names, as a contract writes them. */
  String HIVE = "hive";

  String DATE_PATH = "date-path";
  String DMS = "dms";
  String ARRIVAL = "arrival";

  /** Every kind, for messages and the JSON Schema. */
  List<String> KINDS = List.of(HIVE, DATE_PATH, DMS, ARRIVAL);

  /** The UTC day of an arrival time. */
  static LocalDate arrivalDay(long modifiedMillis) {
    return LocalDate.ofInstant(Instant.ofEpochMilli(modifiedMillis), ZoneOffset.UTC);
  }

  /** Whether a kind name is one of {@link #KINDS}, ignoring case. */
  static boolean isKind(String kind) {
    return kind != null && KINDS.contains(kind.toLowerCase(Locale.ROOT));
  }
}
