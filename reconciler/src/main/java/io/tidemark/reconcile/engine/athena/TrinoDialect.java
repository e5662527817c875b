package io.tidemark.reconcile.engine.athena;

import io.tidemark.model.config.DatasetSpec;
import io.tidemark.model.contract.DatasetContract;
import io.tidemark.model.contract.DatasetSpecs;
import io.tidemark.model.json.Checks;
import io.tidemark.reconcile.engine.sql.ColumnKind;
import io.tidemark.reconcile.engine.sql.ReconciliationSql;
import io.tidemark.reconcile.engine.sql.Sql;
import io.tidemark.reconcile.engine.sql.SqlDialect;
import io.tidemark.reconcile.engine.sql.Window;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * Athena engine v3's dialect of the {@link ReconciliationSql}, which is Trino's: the canonical
 * relations written as one {@code WITH} prelude per request ({@link #prelude}) and one query per
 * measure (Athena has no temporary tables, and bills each query for what it scans, so each
 * measure's bytes are its own).
 *
 * <p>Identifiers come only from validated configuration ({@link #quote}); every value (window
 * bounds, file paths, operation codes, sample sizes) is a {@code ?} parameter. Athena substitutes
 * execution parameters as literals; Trino's JDBC driver binds them; the text is the same.
 *
 * <p>Two differences from the DuckDB engine are forced by Athena:
 *
 * <ul>
 *   <li>Timestamps: Athena reads a Hive table's timestamps at millisecond precision, Iceberg's at
 *       microsecond; both sides' markers are reduced to milliseconds (and kept in microsecond
 *       units), so that a curated row is compared at the precision raw can be read at.
 *   <li>Ties: a Hive table has no row-position column, so versions of one key tied on marker,
 *       delete flag and file (a source defect inside one file) stay tied: any of their values is
 *       accepted as the expected one. The job and the DuckDB engine take the first delivered row.
 * </ul>
 *
 * The {@code row_hash} is the hex MD5 of the compared values joined by U+001F.
 */
public final class TrinoDialect implements SqlDialect {
  /** The statements, in this dialect. */
  static final ReconciliationSql SQL = new ReconciliationSql(new TrinoDialect());

  /** Athena's (and Trino's Hive connector's) column of a row's source file URI. */
  static final String PATH_COLUMN = "\"$path\"";

  /** The contract's type names of each kind but timestamps and decimals (Spark SQL's names). */
  private static final Map<String, ColumnKind> KINDS =
      Map.ofEntries(
          Map.entry("string", ColumnKind.TEXT),
          Map.entry("date", ColumnKind.DATE),
          Map.entry("float", ColumnKind.FLOATING),
          Map.entry("double", ColumnKind.FLOATING),
          Map.entry("real", ColumnKind.FLOATING),
          Map.entry("binary", ColumnKind.BINARY),
          Map.entry("tinyint", ColumnKind.INTEGER),
          Map.entry("smallint", ColumnKind.INTEGER),
          Map.entry("int", ColumnKind.INTEGER),
          Map.entry("integer", ColumnKind.INTEGER),
          Map.entry("bigint", ColumnKind.INTEGER));

  private TrinoDialect() {}

  /** Quotes an identifier that already passed {@link Checks#IDENTIFIER}; refuses anything else. */
  static String quote(String identifier) {
    Checks.identifier("identifier", identifier);
    return '"' + identifier.toLowerCase(Locale.ROOT) + '"';
  }

  /** Quotes a dotted table name part by part: {@code catalog.database.table} or fewer parts. */
  static String quoteTable(String qualified) {
    String[] parts = qualified.split("\\.", -1);
    if (parts.length < 1 || parts.length > 3) {
      throw new IllegalArgumentException(
          "Cannot use table name '" + qualified + "': expected [catalog.][database.]table");
    }
    List<String> quoted = new ArrayList<>();
    for (String p : parts) {
      quoted.add(quote(p));
    }
    return String.join(".", quoted);
  }

  /**
   * The curated table as the checks read it: at one snapshot when it is pinned ({@code FOR VERSION
   * AS OF}, which Athena and Trino take for Iceberg tables). The id is the catalog's own number,
   * not user input, so it is written as a literal.
   */
  static String curatedRelation(String qualified, Long snapshotId) {
    return snapshotId == null
        ? quoteTable(qualified)
        : quoteTable(qualified) + " FOR VERSION AS OF " + snapshotId.longValue();
  }

  // ---- what differs from DuckDB ----

  @Override
  public String column(String name) {
    return quote(name);
  }

  /** The types of the raw and curated tables, as contract type names. */
  @Override
  public ColumnKind kind(String type) {
    return ColumnKind.of(type, KINDS);
  }

  @Override
  public Sql regexMatches(String text, String pattern) {
    return new Sql().append("regexp_like(" + text + ", ").param(pattern).append(")");
  }

  /** Epoch microseconds of a timestamp, reduced to whole milliseconds, in exact integer math. */
  @Override
  public String epochMicros(String timestamp) {
    return "(date_diff('millisecond', from_unixtime(0), CAST(CAST("
        + timestamp
        + " AS timestamp(3)) AS timestamp(3) with time zone)) * 1000)";
  }

  @Override
  public String timestampOfMicros(String micros) {
    return "from_unixtime_nanos(" + micros + " * 1000)";
  }

  /** A date casts to {@code timestamp(3)} as it is. */
  @Override
  public String dateAsTimestamp(String date) {
    return date;
  }

  @Override
  public String parseTimestamp(String text) {
    return "try(from_iso8601_timestamp(" + text + "))";
  }

  @Override
  public String binaryAsText(String column) {
    return "to_hex(" + column + ")";
  }

  @Override
  public String hash(List<String> texts) {
    return texts.isEmpty()
        ? "to_hex(md5(to_utf8('')))"
        : "to_hex(md5(to_utf8(concat_ws("
            + ReconciliationSql.KEY_SEPARATOR
            + ", "
            + String.join(", ", texts)
            + "))))";
  }

  @Override
  public String bucket(String key, int buckets) {
    return "from_big_endian_64(xxhash64(to_utf8(" + key + "))) % " + buckets;
  }

  /** Trino's order-insensitive {@code checksum} of a row. */
  @Override
  public String checksum(List<String> values) {
    return "checksum(ROW(" + String.join(", ", values) + "))";
  }

  /** The partition column is text ({@code YYYY-MM-DD}), compared as text. */
  @Override
  public Sql date(String isoDate) {
    return new Sql().param(isoDate);
  }

  @Override
  public String fileColumn() {
    return PATH_COLUMN;
  }

  @Override
  public Optional<String> rowPositionColumn() {
    return Optional.empty();
  }

  @Override
  public String columnsOwner() {
    return "the table has";
  }

  @Override
  public String argMax(String value, String by) {
    return "max_by(" + value + ", " + by + ")";
  }

  @Override
  public String wideIntegerType() {
    return "decimal(38, 0)";
  }

  // ---- the prelude ----

  /**
   * Which raw rows a request reads.
   *
   * @param fromPartition the first partition read whole ({@code YYYY-MM-DD}); null for every one
   * @param lateFiles files of older partitions read because they arrived in the window, as the
   *     engine names them in {@code "$path"}
   * @param latePartitions the partitions of those files
   * @param skippedFiles files never read: left out whole by the engine, as the engine names them
   */
  public record RawScope(
      String fromPartition,
      List<String> lateFiles,
      List<String> latePartitions,
      List<String> skippedFiles,
      Files files) {
    public RawScope {
      lateFiles = List.copyOf(lateFiles);
      latePartitions = List.copyOf(latePartitions);
      skippedFiles = List.copyOf(skippedFiles);
    }

    /** A scope of Hive date folders, read by the partition column. */
    public RawScope(
        String fromPartition,
        List<String> lateFiles,
        List<String> latePartitions,
        List<String> skippedFiles) {
      this(fromPartition, lateFiles, latePartitions, skippedFiles, null);
    }

    public static RawScope all(List<String> skippedFiles) {
      return new RawScope(null, List.of(), List.of(), skippedFiles);
    }

    /** A scope of a layout whose folders name no column: the listed files, by {@code "$path"}. */
    public static RawScope byFile(Files files) {
      return new RawScope(null, List.of(), List.of(), List.of(), files);
    }
  }

  /**
   * The raw files a request reads when the layout's folders name no column (a date path, AWS DMS,
   * arrival order): selected by {@code "$path"}, each with the day the listing gives it (its
   * folders, its name, or its arrival), as the embedded engine reads the same listing; and, where
   * the table is partitioned, the partition values of those files, which prune the folders read.
   *
   * @param dates each file's day ({@code YYYY-MM-DD}) by its path as the engine names it, in path
   *     order
   * @param partitions per partition key, the values the files lie in; empty for a table without
   *     partition keys (or when a file's values are unknown)
   */
  public record Files(Map<String, String> dates, Map<String, List<String>> partitions) {
    public Files {
      dates = java.util.Collections.unmodifiableMap(new java.util.TreeMap<>(dates));
      Map<String, List<String>> p = new java.util.LinkedHashMap<>();
      partitions.forEach((k, v) -> p.put(k, List.copyOf(new java.util.TreeSet<>(v))));
      partitions = java.util.Collections.unmodifiableMap(p);
    }
  }

  /**
   * What a request compares.
   *
   * @param window the window, in marker units
   * @param futureLimitMicros the latest valid timestamp marker
   * @param windowMode whether only the window's keys are checked (WINDOW mode)
   */
  public record Bounds(Window window, long futureLimitMicros, boolean windowMode) {}

  /**
   * The prelude every measure query starts with: the canonical raw and curated rows, the expected
   * state, the keys in flight and the checked slices of both sides ({@code exp}, {@code cur_rows},
   * {@code cur}).
   *
   * @param rawTypes the raw table's column types (contract type names, lower-case column names)
   * @param curatedSnapshot the curated snapshot to read ({@code FOR VERSION AS OF}); null for the
   *     current one
   * @param curatedTypes the curated table's column types, likewise
   * @param withValues whether to add {@code raw_valued} and {@code curated_valued}, which only the
   *     queries that show a difference read (Trino analyses every relation of a prelude, used or
   *     not, so the other queries go without them)
   */
  static Sql prelude(
      DatasetContract contract,
      String rawTable,
      String curatedTable,
      Long curatedSnapshot,
      Map<String, String> rawTypes,
      Map<String, String> curatedTypes,
      RawScope scope,
      Bounds b,
      boolean withValues) {
    DatasetSpec spec = DatasetSpecs.of(contract);
    Sql cap = SQL.cap(spec.changeMarker().type(), b.window());
    Sql valued = new Sql();
    if (withValues) {
      valued
          .append(", raw_valued AS (")
          .append(SQL.rawValued(spec, new Sql().append("raw_src"), b.futureLimitMicros()))
          .append("), curated_valued AS (")
          .append(
              SQL.curatedValued(
                  spec, curatedTypes, curatedRelation(curatedTable, curatedSnapshot), PATH_COLUMN))
          .append(")");
    }
    return new Sql()
        .append("WITH raw_src AS (")
        .append(rawSource(contract, rawTable, rawTypes, scope, withValues))
        .append("), raw_versions AS (")
        .append(SQL.rawVersions(spec, new Sql().append("raw_src"), b.futureLimitMicros()))
        .append("), expected AS (")
        .append(SQL.expected(cap))
        .append("), in_flight AS (")
        .append(SQL.inFlight(cap))
        .append("), curated_rows AS (")
        .append(SQL.curatedRows(spec, curatedTypes, curatedRelation(curatedTable, curatedSnapshot)))
        .append("), checked AS (")
        .append(checked(spec, b))
        .append("), exp AS (")
        .append(SQL.checkedExpected())
        .append("), cur_rows AS (")
        .append(SQL.checkedCuratedRows(spec, null, null))
        .append("), cur AS (")
        .append(ReconciliationSql.CHECKED_CURATED)
        .append(")")
        .append(valued)
        .append(" ");
  }

  /** The raw rows a request reads: its partitions, and the late files of older ones by name. */
  private static Sql rawSource(
      DatasetContract contract,
      String rawTable,
      Map<String, String> types,
      RawScope scope,
      boolean withValues) {
    if (scope.files() != null) {
      return rawSourceByFile(contract, rawTable, types, scope.files(), withValues);
    }
    DatasetSpec spec = DatasetSpecs.of(contract);
    ReconciliationSql.RawSource from =
        new ReconciliationSql.RawSource(
            quoteTable(rawTable), quote(spec.raw().partitionColumn()), Optional.empty());
    Sql sql = new Sql().append(SQL.rawRows(contract, types, from, withValues));
    sql.append(" WHERE ").append(rawScope(spec, scope));
    if (!scope.lateFiles().isEmpty()) {
      sql.append(" UNION ALL ")
          .append(SQL.rawRows(contract, types, from, withValues))
          .append(" WHERE ")
          .append(quote(spec.raw().partitionColumn()))
          .append(" IN (")
          .append(params(scope.latePartitions()))
          .append(") AND ")
          .append(PATH_COLUMN)
          .append(" IN (")
          .append(params(scope.lateFiles()))
          .append(")");
    }
    return sql;
  }

  /**
   * The listed files' rows, each with its file's day: the table's partition keys prune the folders
   * (where it has any), {@code "$path"} picks the files, and the day is the listing's, by path.
   */
  private static Sql rawSourceByFile(
      DatasetContract contract,
      String rawTable,
      Map<String, String> types,
      Files files,
      boolean withValues) {
    int compared = withValues ? contract.comparedColumns().size() : 0;
    StringBuilder values = new StringBuilder();
    StringBuilder nullValues = new StringBuilder();
    for (int i = 0; i < compared; i++) {
      String v = ReconciliationSql.valueColumn(i);
      values.append(", ").append(v);
      nullValues.append(", CAST(NULL AS varchar) AS ").append(v);
    }
    if (files.dates().isEmpty()) {
      // Nothing listed: no row, with the columns every later relation reads.
      return new Sql()
          .append(
              "SELECT CAST(NULL AS varchar) AS key, CAST(NULL AS bigint) AS marker,"
                  + " false AS is_delete, false AS op_ok, CAST(NULL AS varchar) AS row_hash,"
                  + " CAST(NULL AS varchar) AS src, CAST(NULL AS varchar) AS part_date,"
                  + " false AS key_ok"
                  + nullValues
                  + " FROM (VALUES 1) AS e(x) WHERE false");
    }
    ReconciliationSql.RawSource from =
        new ReconciliationSql.RawSource(
            quoteTable(rawTable), "CAST(NULL AS varchar)", Optional.empty());
    Sql sql = new Sql().append("SELECT key, marker, is_delete, op_ok, row_hash, src, CASE src");
    for (Map.Entry<String, String> f : files.dates().entrySet()) {
      sql.append(" WHEN ").param(f.getKey()).append(" THEN ").param(f.getValue());
    }
    sql.append(" END AS part_date, key_ok" + values + " FROM (")
        .append(SQL.rawRows(contract, types, from, withValues))
        .append(" WHERE ");
    for (Map.Entry<String, List<String>> p : files.partitions().entrySet()) {
      sql.append(quote(p.getKey())).append(" IN (").append(params(p.getValue())).append(") AND ");
    }
    return sql.append(PATH_COLUMN)
        .append(" IN (")
        .append(params(List.copyOf(files.dates().keySet())))
        .append(")) AS f");
  }

  private static Sql checked(DatasetSpec spec, Bounds b) {
    if (!b.windowMode()) {
      return new Sql().append(SQL.checkedAll(""));
    }
    return SQL.checkedInWindow(
        SQL.rawWindow(spec.changeMarker().type(), b.window()),
        SQL.curatedWindowKeys(spec, null, null, b.window(), new Sql()));
  }

  /** The partitions and files a request reads; pruning happens on the partition column. */
  private static Sql rawScope(DatasetSpec spec, RawScope scope) {
    Sql sql = new Sql().append("(");
    if (scope.fromPartition() == null) {
      sql.append("true");
    } else {
      sql.append(quote(spec.raw().partitionColumn())).append(" >= ").param(scope.fromPartition());
    }
    if (!scope.skippedFiles().isEmpty()) {
      sql.append(" AND " + PATH_COLUMN + " NOT IN (").append(params(scope.skippedFiles()));
      sql.append(")");
    }
    return sql.append(")");
  }

  private static Sql params(List<String> values) {
    Sql sql = new Sql();
    for (int i = 0; i < values.size(); i++) {
      sql.append(i == 0 ? "" : ", ").param(values.get(i));
    }
    return sql;
  }
}
