package io.tidemark.stack;

import static io.tidemark.stack.Cfn.join;
import static io.tidemark.stack.Cfn.selectSplit;
import static io.tidemark.stack.Cfn.sub;
import static io.tidemark.stack.Cfn.text;

import com.fasterxml.jackson.databind.JsonNode;
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
 * A dataset's raw layer as Glue tables Athena reads: an external Parquet table over the contract's
 * raw location, its columns and types from the contract, partitioned as the layout's folders are so
 * that Athena needs no crawler and no {@code MSCK REPAIR} (partition projection: a query's
 * predicate on the partition key names the folders it reads).
 *
 * <ul>
 *   <li>Hive-style folders {@code <column>=<date>}: the column is the partition key, a projected
 *       date in the folders' format.
 *   <li>A date path ({@code YYYY/MM/DD}, Firehose's {@code YYYY/MM/DD/HH}) and DMS's CDC date
 *       folders: a projected date key {@value #DATE_KEY} in the folders' format (e.g. {@code
 *       yyyy/MM/dd}), placed in the path by {@code storage.location.template}; an hour in a folder
 *       of its own is a second, integer key {@value #HOUR_KEY}, as AWS's Firehose example splits it
 *       (Athena's date projection takes one key, so year, month and day are not three).
 *   <li>DMS without date folders, and arrival order: one folder, no partitions; Athena filters by
 *       {@code "$path"}.
 *   <li>DMS with date folders: the projected table reads the CDC folders only, while the full-load
 *       files ({@code LOAD….parquet}) lie directly in the table's folder, where no projected
 *       partition reaches. A second, unpartitioned table {@code <name>}{@value #ALL_SUFFIX} over
 *       the same folder reads every file: Athena reads a table's location recursively, so it holds
 *       the full load and the CDC files alike, told apart by {@code "$path"}. Rebuilding the
 *       expected state needs that one; the projected one prunes a window's CDC days.
 * </ul>
 */
final class RawTables {
  /** The partition key of date folders that name no column (date paths, DMS's CDC folders). */
  static final String DATE_KEY = "folder_date";

  /** The partition key of an hour folder below the day's. */
  static final String HOUR_KEY = "folder_hour";

  /** The suffix of a DMS dataset's table over every file of its folder. */
  static final String ALL_SUFFIX = "_all";

  /** The last date projection enumerates: a day ahead of the query, as the reconciler's DDL. */
  static final String PROJECTION_END = "NOW+1DAYS";

  static final String PROJECTION_START_PARAMETER = "ProjectionStart";

  private static final Pattern TOKEN = Pattern.compile("YYYY|MM|DD|HH");

  private RawTables() {}

  /**
   * The dataset's raw table, by the contract's one rule ({@link DatasetContract#rawTableName()}).
   */
  static String name(DatasetContract d) {
    return d.rawTableName();
  }

  /**
   * A partition key.
   *
   * @param name the key, a column of the table
   * @param type its Hive type
   */
  record Key(String name, String type) {}

  /**
   * One raw table of a dataset.
   *
   * @param idSuffix the end of its logical id, after the dataset's prefix
   * @param name the table's name
   * @param description what it reads
   * @param partitionKeys its partition keys; empty when it is not partitioned
   * @param parameters its table parameters beyond Glue's markers: partition projection
   */
  record Table(
      String idSuffix,
      String name,
      String description,
      List<Key> partitionKeys,
      Map<String, JsonNode> parameters) {}

  /**
   * The data columns of a dataset's raw tables, in contract order: lower-case name to Hive type.
   */
  static Map<String, String> columns(DatasetContract d) {
    Map<String, String> cols = new LinkedHashMap<>();
    d.columns().forEach((name, type) -> cols.put(name.toLowerCase(Locale.ROOT), type.sqlName()));
    return cols;
  }

  /** The raw tables of a dataset over its location: one, or two for DMS with date folders. */
  static List<Table> tables(DatasetContract d, S3Location raw) {
    String name = name(d);
    Layout layout = d.raw().layout();
    String root = raw.uri();
    List<Table> out = new ArrayList<>();
    String described = "Raw files of dataset " + d.name() + ": Parquet in " + layout.describe();
    if (layout instanceof Layout.Dated dated) {
      Projection p =
          dated.kind().equals(Layout.HIVE)
              ? hive(dated.folders().pattern(), root)
              : folders(dated.folders().pattern(), root);
      out.add(new Table("RawTable", name, described, p.keys(), p.parameters()));
    } else if (layout instanceof Layout.Dms dms && dms.cdcFolders() != null) {
      Projection p = folders(dms.cdcFolders().pattern(), root);
      out.add(
          new Table(
              "RawTable",
              name,
              "CDC files of dataset "
                  + d.name()
                  + " (AWS DMS) in folders "
                  + dms.cdcFolders().pattern()
                  + "; the full load lies in "
                  + name
                  + ALL_SUFFIX,
              p.keys(),
              p.parameters()));
      out.add(
          new Table(
              "RawTableAll",
              name + ALL_SUFFIX,
              "Every file of dataset "
                  + d.name()
                  + " (AWS DMS), read recursively: the full load (LOAD*.parquet, directly in the"
                  + " folder) and the CDC files in their date folders; \"$path\" tells them apart",
              List.of(),
              Map.of()));
    } else {
      out.add(
          new Table(
              "RawTable",
              name,
              "Raw files of dataset "
                  + d.name()
                  + ": "
                  + layout.describe()
                  + "; not partitioned, filter by \"$path\"",
              List.of(),
              Map.of()));
    }
    return out;
  }

  /** What a partitioned table adds: its keys and its projection parameters. */
  record Projection(List<Key> keys, Map<String, JsonNode> parameters) {}

  /** Hive-style {@code column=<date>}: the column is the one key, its value the whole date. */
  static Projection hive(String pattern, String root) {
    int eq = pattern.indexOf('=');
    String column = pattern.substring(0, eq).toLowerCase(Locale.ROOT);
    String value = pattern.substring(eq + 1);
    Map<String, JsonNode> params = new LinkedHashMap<>();
    params.put("projection.enabled", text("true"));
    dateProjection(params, column, value);
    params.put(
        "storage.location.template",
        text(root + "/" + pattern.substring(0, eq + 1) + "${" + column + "}/"));
    return new Projection(List.of(new Key(column, "string")), params);
  }

  /**
   * Folders of a date pattern without a column name: one date key spanning the year, month and day
   * (and an hour in the same folder), and an integer hour key when the hour has a folder of its
   * own.
   */
  static Projection folders(String pattern, String root) {
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
    Map<String, JsonNode> params = new LinkedHashMap<>();
    params.put("projection.enabled", text("true"));
    dateProjection(params, DATE_KEY, pattern.substring(spanStart, spanEnd));
    List<Key> keys = new ArrayList<>(List.of(new Key(DATE_KEY, "string")));
    String location =
        pattern.substring(0, spanStart) + "${" + DATE_KEY + "}" + pattern.substring(spanEnd);
    if (hourKey) {
      params.put("projection." + HOUR_KEY + ".type", text("integer"));
      params.put("projection." + HOUR_KEY + ".range", text("0,23"));
      params.put("projection." + HOUR_KEY + ".digits", text("2"));
      keys.add(new Key(HOUR_KEY, "string"));
      int at = location.lastIndexOf("HH");
      location = location.substring(0, at) + "${" + HOUR_KEY + "}" + location.substring(at + 2);
    }
    params.put("storage.location.template", text(root + "/" + location + "/"));
    return new Projection(keys, params);
  }

  /**
   * A date key's projection: the format in Java's letters, a range from the {@code ProjectionStart}
   * parameter ({@code YYYY-MM-DD}) written in that format, a step of a day, or of an hour when the
   * format names one.
   */
  private static void dateProjection(Map<String, JsonNode> params, String key, String dateText) {
    boolean hourly = dateText.contains("HH");
    params.put("projection." + key + ".type", text("date"));
    params.put("projection." + key + ".format", text(javaFormat(dateText)));
    params.put("projection." + key + ".range", rangeFromStart(dateText));
    params.put("projection." + key + ".interval", text("1"));
    params.put("projection." + key + ".interval.unit", text(hourly ? "HOURS" : "DAYS"));
  }

  /** {@code YYYY/MM/DD} as Java's {@code yyyy/MM/dd}; literal letters quoted. */
  static String javaFormat(String dateText) {
    StringBuilder out = new StringBuilder();
    Matcher m = TOKEN.matcher(dateText);
    int last = 0;
    while (m.find()) {
      out.append(quoted(dateText.substring(last, m.start())));
      out.append(
          switch (m.group()) {
            case "YYYY" -> "yyyy";
            case "DD" -> "dd";
            default -> m.group();
          });
      last = m.end();
    }
    return out.append(quoted(dateText.substring(last))).toString();
  }

  private static String quoted(String literal) {
    if (literal.isEmpty() || literal.matches("[^A-Za-z'\\[\\]{}#]*")) {
      return literal;
    }
    return "'" + literal.replace("'", "''") + "'";
  }

  /**
   * {@code <ProjectionStart>,NOW+1DAYS} with the start rewritten from {@code YYYY-MM-DD} into the
   * folders' format: {@code Fn::Split} takes the parameter apart, {@code Fn::Join} writes its year,
   * month and day (and hour 00) where the format has them.
   */
  private static JsonNode rangeFromStart(String dateText) {
    if (dateText.equals("YYYY-MM-DD")) {
      return sub("${" + PROJECTION_START_PARAMETER + "}," + PROJECTION_END);
    }
    List<JsonNode> parts = new ArrayList<>();
    StringBuilder literal = new StringBuilder();
    Matcher m = TOKEN.matcher(dateText);
    int last = 0;
    while (m.find()) {
      literal.append(dateText, last, m.start());
      int index =
          switch (m.group()) {
            case "YYYY" -> 0;
            case "MM" -> 1;
            case "DD" -> 2;
            default -> -1;
          };
      if (index < 0) {
        literal.append("00");
      } else {
        if (literal.length() > 0) {
          parts.add(text(literal.toString()));
          literal.setLength(0);
        }
        parts.add(selectSplit(index, "-", PROJECTION_START_PARAMETER));
      }
      last = m.end();
    }
    literal.append(dateText.substring(last)).append(",").append(PROJECTION_END);
    parts.add(text(literal.toString()));
    return join(parts);
  }

  /** The partition keys a layout gives its table, for checks against the data columns. */
  static List<String> partitionKeys(Layout layout) {
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
    return folders(folders.pattern(), "s3://x/y").keys().stream().map(Key::name).toList();
  }
}
