package io.tidemark.reconcile.engine.duckdb;

import io.tidemark.model.config.ChangeMarkerType;
import io.tidemark.model.config.DatasetSpec;
import io.tidemark.model.contract.DatasetContract;
import io.tidemark.model.contract.DatasetSpecs;
import io.tidemark.model.json.Checks;
import io.tidemark.reconcile.engine.sql.ColumnKind;
import io.tidemark.reconcile.engine.sql.ReconciliationSql;
import io.tidemark.reconcile.engine.sql.Sql;
import io.tidemark.reconcile.engine.sql.SqlDialect;
import io.tidemark.reconcile.engine.sql.Window;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * DuckDB's dialect of the {@link ReconciliationSql}, with the canonical relations over the files it
 * reads ({@link DuckDbFiles}) and a pruning only DuckDB needs: conditions on the curated marker
 * column itself, which its Parquet reader tests against row-group statistics. Identifiers come only
 * from the validated data contract and pass {@link #quote}; every value is a bound parameter.
 *
 * <p>The engine holds the canonical relations as temporary views and tables: {@code raw_versions}
 * and {@code curated_rows} are views over the files (DuckDB reads them where a query needs them); a
 * WINDOW reconciliation keeps its few raw versions in a table. A row's file and position are
 * DuckDB's {@code filename} and {@code file_row_number}, so ties on the change marker resolve as
 * the ingest job resolves them; the raw files of one dataset share one root, so the order of their
 * paths is the order of their paths relative to the root ({@code ingest_date=YYYY-MM-DD/file}): an
 * earlier partition first, then an earlier file name. The {@code row_hash} is DuckDB's 64-bit
 * {@code hash}.
 */
final class DuckDbDialect implements SqlDialect {
  /** The statements, in this dialect. */
  static final ReconciliationSql SQL = new ReconciliationSql(new DuckDbDialect());

  /** DuckDB's type names (lower case) of each kind but timestamps and decimals. */
  private static final Map<String, ColumnKind> KINDS =
      Map.ofEntries(
          Map.entry("varchar", ColumnKind.TEXT),
          Map.entry("date", ColumnKind.DATE),
          Map.entry("float", ColumnKind.FLOATING),
          Map.entry("double", ColumnKind.FLOATING),
          Map.entry("real", ColumnKind.FLOATING),
          Map.entry("blob", ColumnKind.BINARY),
          Map.entry("tinyint", ColumnKind.INTEGER),
          Map.entry("smallint", ColumnKind.INTEGER),
          Map.entry("integer", ColumnKind.INTEGER),
          Map.entry("bigint", ColumnKind.INTEGER),
          Map.entry("hugeint", ColumnKind.INTEGER),
          Map.entry("utinyint", ColumnKind.INTEGER),
          Map.entry("usmallint", ColumnKind.INTEGER),
          Map.entry("uinteger", ColumnKind.INTEGER),
          Map.entry("ubigint", ColumnKind.INTEGER));

  private DuckDbDialect() {}

  /** Quotes an identifier that already passed {@link Checks#IDENTIFIER}; refuses anything else. */
  static String quote(String identifier) {
    Checks.identifier("identifier", identifier);
    return '"' + identifier + '"';
  }

  static boolean isInteger(String type) {
    return ColumnKind.of(type, KINDS) == ColumnKind.INTEGER;
  }

  // ---- what differs from Trino ----

  @Override
  public String column(String name) {
    return "s." + quote(name);
  }

  @Override
  public ColumnKind kind(String type) {
    return ColumnKind.of(type, KINDS);
  }

  @Override
  public Sql regexMatches(String text, String pattern) {
    return new Sql().append("regexp_matches(" + text + ", ").param(pattern).append(")");
  }

  @Override
  public String epochMicros(String timestamp) {
    return "epoch_us(" + timestamp + ")";
  }

  @Override
  public String timestampOfMicros(String micros) {
    return "make_timestamp(" + micros + ")";
  }

  @Override
  public String dateAsTimestamp(String date) {
    return "CAST(" + date + " AS TIMESTAMP)";
  }

  @Override
  public String parseTimestamp(String text) {
    return "TRY_CAST(" + text + " AS TIMESTAMPTZ)";
  }

  @Override
  public String binaryAsText(String column) {
    return "CAST(" + column + " AS VARCHAR)";
  }

  @Override
  public String hash(List<String> texts) {
    return texts.isEmpty() ? "CAST(0 AS UBIGINT)" : "hash(" + String.join(", ", texts) + ")";
  }

  @Override
  public String bucket(String key, int buckets) {
    return "CAST(hash(" + key + ") % " + buckets + " AS INTEGER)";
  }

  @Override
  public String checksum(List<String> values) {
    return "bit_xor(hash(" + String.join(", ", values) + "))";
  }

  @Override
  public Sql date(String isoDate) {
    return new Sql().append("CAST(").param(isoDate).append(" AS DATE)");
  }

  @Override
  public String fileColumn() {
    return "s.filename";
  }

  @Override
  public Optional<String> rowPositionColumn() {
    return Optional.of("s.file_row_number");
  }

  @Override
  public String columnsOwner() {
    return "the files have";
  }

  @Override
  public String argMax(String value, String by) {
    return "arg_max(" + value + ", " + by + ")";
  }

  @Override
  public String wideIntegerType() {
    return "HUGEINT";
  }

  // ---- the canonical relations over the files ----

  /** Where raw rows are read: {@code raw_src}, each row's file ranked in path order. */
  private static final ReconciliationSql.RawSource RAW_SOURCE =
      new ReconciliationSql.RawSource(
          "raw_src s JOIN (SELECT path, part_date, row_number() OVER (ORDER BY path) AS ord"
              + " FROM raw_files) f ON s.filename = f.path",
          "f.part_date",
          Optional.of("f.ord"));

  /**
   * Normalises raw rows and keeps the valid ones: the query behind {@code raw_versions}.
   *
   * @param contract the dataset contract
   * @param types the column types of {@code raw_src}
   * @param futureLimitMicros the latest valid timestamp marker (epoch microseconds)
   */
  static Sql rawVersions(
      DatasetContract contract, Map<String, String> types, long futureLimitMicros) {
    Sql rows = new Sql().append("(").append(SQL.rawRows(contract, types, RAW_SOURCE)).append(")");
    return SQL.rawVersions(DatasetSpecs.of(contract), rows, futureLimitMicros);
  }

  /**
   * {@code raw_valued}: the valid raw versions with their compared columns' values, a view read
   * only to show a difference.
   */
  static Sql rawValued(
      DatasetContract contract, Map<String, String> types, long futureLimitMicros) {
    Sql rows =
        new Sql().append("(").append(SQL.rawRows(contract, types, RAW_SOURCE, true)).append(")");
    return SQL.rawValued(DatasetSpecs.of(contract), rows, futureLimitMicros);
  }

  /** {@code curated_valued}: the live rows with their data file and compared values, a view. */
  static String createCuratedValued(DatasetSpec spec, Map<String, String> types) {
    return "CREATE TEMP VIEW curated_valued AS "
        + SQL.curatedValued(spec, types, DuckDbFiles.CURATED_LOCATED, "f.location");
  }

  /** The curated table's live rows in canonical form: a view, read once per pass. */
  static String createCuratedRows(DatasetSpec spec, Map<String, String> types) {
    return "CREATE TEMP VIEW curated_rows AS " + SQL.curatedRows(spec, types, "curated_live s");
  }

  /** {@code CREATE TEMP TABLE name AS query}. */
  static Sql createTable(String name, Sql query) {
    return new Sql()
        .append("CREATE TEMP TABLE " + Checks.identifier("table", name) + " AS ")
        .append(query);
  }

  static Sql createTable(String name, String query) {
    return createTable(name, new Sql().append(query));
  }

  /**
   * The keys whose curated change marker falls in the window, read from {@code curated_live} with a
   * condition on the marker column itself ({@link #markerPrefilter}).
   *
   * @param liveTypes the column types of {@code curated_live}; null when the table has no data file
   *     ({@code curated_rows} is then an empty table)
   */
  static Sql curatedWindowKeys(DatasetSpec spec, Map<String, String> liveTypes, Window w) {
    Sql prefilter =
        liveTypes == null
            ? new Sql()
            : markerPrefilter(spec, liveTypes, w.fromMicros(), w.toMicros());
    return SQL.curatedWindowKeys(spec, liveTypes, "curated_live", w, prefilter);
  }

  /**
   * Curated's newest change marker, reading only the rows from {@code atLeast} on: a marker some
   * live curated row holds, so the answer is exact (null: every row is read).
   *
   * @param liveTypes as for {@link #curatedWindowKeys}
   */
  static Sql newestCurated(DatasetSpec spec, Map<String, String> liveTypes, Long atLeast) {
    Sql prefilter =
        liveTypes == null || atLeast == null
            ? new Sql()
            : markerPrefilter(spec, liveTypes, atLeast - 1, null);
    if (prefilter.text().isEmpty()) {
      return new Sql().append(NEWEST_CURATED);
    }
    String marker = SQL.marker(spec, liveTypes);
    return new Sql()
        .append("SELECT max(" + marker + ") FROM curated_live s WHERE " + marker + " >= ")
        .param(atLeast)
        .append(prefilter);
  }

  static final String NEWEST_CURATED = "SELECT max(marker) FROM curated_rows";
  static final String NEWEST_CHECKED = "SELECT max(marker) FROM cur_rows";

  /** Joins build their hash tables on the side the query names second. */
  static final String KEEP_BUILD_SIDES = "SET disabled_optimizers = 'build_side_probe_side'";

  /** Joins build on the side DuckDB estimates smaller (its default). */
  static final String CHOOSE_BUILD_SIDES = "RESET disabled_optimizers";

  /** The markers a prefilter bound may take: timestamps DuckDB can build, years 1 to 9999. */
  private static final long MIN_BOUND_MICROS = -62_135_596_800_000_000L;

  private static final long MAX_BOUND_MICROS = 253_402_300_799_999_999L;

  /**
   * The same condition as {@code lower < marker <= upper} (a null bound is open) on the curated
   * change-marker column itself: DuckDB can test a condition on the column, not on its epoch
   * microseconds, against a Parquet row group's statistics, and skip the row groups outside (in a
   * one-day window, every file written before it). Each bound is built exactly from its
   * microseconds (the session is in UTC). Empty, and only the exact condition applies, for a marker
   * column other than {@code TIMESTAMP} or {@code TIMESTAMP WITH TIME ZONE} (no row groups are
   * skipped then), or a bound outside years 1 to 9999 (a curated defect must not fail the run).
   */
  private static Sql markerPrefilter(
      DatasetSpec spec, Map<String, String> types, Long lowerMicros, Long upperMicros) {
    String column = spec.changeMarker().column();
    String type = types.get(column.toLowerCase(Locale.ROOT));
    if (spec.changeMarker().type() != ChangeMarkerType.TIMESTAMP
        || !("TIMESTAMP".equals(type) || "TIMESTAMP WITH TIME ZONE".equals(type))
        || !inBoundRange(lowerMicros)
        || !inBoundRange(upperMicros)) {
      return new Sql();
    }
    String value = "CAST(make_timestamp(CAST(";
    String suffix = " AS BIGINT)) AS " + type + ")";
    String c = "s." + quote(column);
    Sql sql = new Sql();
    if (lowerMicros != null) {
      sql.append(" AND " + c + " > " + value).param(lowerMicros).append(suffix);
    }
    if (upperMicros != null) {
      sql.append(" AND " + c + " <= " + value).param(upperMicros).append(suffix);
    }
    return sql;
  }

  private static boolean inBoundRange(Long micros) {
    return micros == null || (micros >= MIN_BOUND_MICROS && micros <= MAX_BOUND_MICROS);
  }
}
