package io.tidemark.model.contract.athena;

import io.tidemark.model.contract.DatasetContract;
import io.tidemark.model.contract.layout.DateFolders;
import io.tidemark.model.contract.layout.Layout;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The Athena raw tables of a dataset contract: an external Parquet table over the contract's raw
 * location, named {@link DatasetContract#rawTableName()}, its columns and types the contract's,
 * partitioned as the layout's folders are.
 *
 * <ul>
 *   <li>Hive-style folders {@code <column>=<date>}: the column is the partition key, a projected
 *       date in the folders' format.
 *   <li>A date path ({@code YYYY/MM/DD}, Firehose's {@code YYYY/MM/DD/HH}) and DMS's CDC date
 *       folders: a projected date key {@value #DATE_KEY} in the folders' format, placed in the path
 *       by the location template; an hour in a folder of its own is a second, integer key {@value
 *       #HOUR_KEY} (Athena's date projection takes one key, so year, month and day are not three).
 *   <li>DMS without date folders, and arrival order: one folder, no partitions; queries filter by
 *       {@code "$path"}.
 *   <li>DMS with date folders: the projected table reads the CDC folders only, while the full-load
 *       files ({@code LOAD….parquet}) lie directly in the table's folder, where no projected
 *       partition reaches. A second, unpartitioned table {@code <name>}{@value #ALL_SUFFIX} over
 *       the same folder reads every file (Athena reads a table's location recursively): rebuilding
 *       the expected state needs that one ({@link #readTable}).
 * </ul>
 */
public final class AthenaRawTables {
  /** The partition key of date folders that name no column (date paths, DMS's CDC folders). */
  public static final String DATE_KEY = "folder_date";

  /** The partition key of an hour folder below the day's. */
  public static final String HOUR_KEY = "folder_hour";

  /** The suffix of a DMS dataset's table over every file of its folder. */
  public static final String ALL_SUFFIX = "_all";

  private static final Pattern TOKEN = Pattern.compile("YYYY|MM|DD|HH");

  private AthenaRawTables() {}

  /**
   * The data columns of a dataset's raw tables, in contract order: lower-case name to Hive type.
   */
  public static Map<String, String> columns(DatasetContract d) {
    Map<String, String> cols = new LinkedHashMap<>();
    d.columns().forEach((name, type) -> cols.put(name.toLowerCase(Locale.ROOT), type.sqlName()));
    return cols;
  }

  /** The raw tables of a dataset over its contract's location: one, or two for DMS with folders. */
  public static List<AthenaRawTable> tables(DatasetContract d) {
    return tables(d, d.raw().location());
  }

  /**
   * The raw tables of a dataset over {@code location} (the contract's, as the caller normalises
   * it).
   */
  public static List<AthenaRawTable> tables(DatasetContract d, String location) {
    String root = location.replaceAll("/+$", "");
    String name = d.rawTableName();
    Map<String, String> columns = columns(d);
    Layout layout = d.raw().layout();
    List<AthenaRawTable> out = new ArrayList<>();
    String described = "Raw files of dataset " + d.name() + ": Parquet in " + layout.describe();
    if (layout instanceof Layout.Dated dated) {
      Partitioning p =
          dated.kind().equals(Layout.HIVE)
              ? hive(dated.folders().pattern(), root)
              : folders(dated.folders().pattern(), root);
      out.add(
          new AthenaRawTable(
              AthenaRawTable.Kind.PROJECTED,
              name,
              described,
              root,
              columns,
              p.keys(),
              p.template()));
    } else if (layout instanceof Layout.Dms dms && dms.cdcFolders() != null) {
      Partitioning p = folders(dms.cdcFolders().pattern(), root);
      out.add(
          new AthenaRawTable(
              AthenaRawTable.Kind.PROJECTED,
              name,
              "CDC files of dataset "
                  + d.name()
                  + " (AWS DMS) in folders "
                  + dms.cdcFolders().pattern()
                  + "; the full load lies in "
                  + name
                  + ALL_SUFFIX,
              root,
              columns,
              p.keys(),
              p.template()));
      out.add(
          new AthenaRawTable(
              AthenaRawTable.Kind.ALL,
              name + ALL_SUFFIX,
              "Every file of dataset "
                  + d.name()
                  + " (AWS DMS), read recursively: the full load (LOAD*.parquet, directly in the"
                  + " folder) and the CDC files in their date folders; \"$path\" tells them apart",
              root,
              columns,
              List.of(),
              null));
    } else {
      out.add(
          new AthenaRawTable(
              AthenaRawTable.Kind.FLAT,
              name,
              "Raw files of dataset "
                  + d.name()
                  + ": "
                  + layout.describe()
                  + "; not partitioned, filter by \"$path\"",
              root,
              columns,
              List.of(),
              null));
    }
    return out;
  }

  /**
   * The table a reconciliation reads raw rows from: the one that holds every data file the layout
   * places (for DMS with date folders, {@value #ALL_SUFFIX}; otherwise the only one).
   */
  public static AthenaRawTable readTable(DatasetContract d) {
    List<AthenaRawTable> all = tables(d);
    return all.get(all.size() - 1);
  }

  /** The partition keys a layout gives its table, for checks against the data columns. */
  public static List<String> partitionKeys(Layout layout) {
    if (layout instanceof Layout.Dated dated && dated.kind().equals(Layout.HIVE)) {
      String p = dated.folders().pattern();
      return List.of(p.substring(0, p.indexOf('=')).toLowerCase(Locale.ROOT));
    }
    DateFolders folders =
        layout instanceof Layout.Dated dated
            ? dated.folders()
            : layout instanceof Layout.Dms dms ? dms.cdcFolders() : null;
    if (folders == null) {
      return List.of();
    }
    return folders(folders.pattern(), "s3://x/y").keys().stream()
        .map(PartitionProjection::key)
        .toList();
  }

  /** A partitioned table's keys and the template placing a partition's folder. */
  private record Partitioning(List<PartitionProjection> keys, String template) {}

  /** Hive-style {@code column=<date>}: the column is the one key, its value the whole date. */
  private static Partitioning hive(String pattern, String root) {
    int eq = pattern.indexOf('=');
    String column = pattern.substring(0, eq).toLowerCase(Locale.ROOT);
    String value = pattern.substring(eq + 1);
    return new Partitioning(
        List.of(new DateProjection(column, value)),
        root + "/" + pattern.substring(0, eq + 1) + "${" + column + "}/");
  }

  /**
   * Folders of a date pattern without a column name: one date key spanning the year, month and day
   * (and an hour in the same folder), and an integer hour key when the hour has a folder of its
   * own.
   */
  private static Partitioning folders(String pattern, String root) {
    int spanStart = Integer.MAX_VALUE;
    int spanEnd = -1;
    int hourStart = -1;
    Matcher m = TOKEN.matcher(pattern);
    while (m.find()) {
      if (m.group().equals("HH")) {
        hourStart = m.start();
      } else {
        spanStart = Math.min(spanStart, m.start());
        spanEnd = Math.max(spanEnd, m.end());
      }
    }
    boolean hourKey = hourStart >= spanEnd && pattern.substring(spanEnd, hourStart).contains("/");
    if (hourStart >= 0 && !hourKey) {
      spanStart = Math.min(spanStart, hourStart);
      spanEnd = Math.max(spanEnd, hourStart + 2);
    }
    List<PartitionProjection> keys = new ArrayList<>();
    keys.add(new DateProjection(DATE_KEY, pattern.substring(spanStart, spanEnd)));
    String location =
        pattern.substring(0, spanStart) + "${" + DATE_KEY + "}" + pattern.substring(spanEnd);
    if (hourKey) {
      keys.add(new IntegerProjection(HOUR_KEY, 0, 23, 2));
      int at = location.lastIndexOf("HH");
      location = location.substring(0, at) + "${" + HOUR_KEY + "}" + location.substring(at + 2);
    }
    return new Partitioning(keys, root + "/" + location + "/");
  }
}
