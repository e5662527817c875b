package io.tidemark.reconcile.engine.duckdb;

import io.tidemark.model.config.ChangeMarkerType;
import io.tidemark.model.config.DatasetSpec;
import io.tidemark.model.contract.RawKeys;
import io.tidemark.model.contract.VersionOrder;
import io.tidemark.model.json.Checks;
import io.tidemark.reconcile.engine.EngineException;
import io.tidemark.reconcile.engine.sql.Sql;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Every SQL text of the DuckDB engine, in one place. Identifiers come only from the validated data
 * contract and pass {@link #quote}; every value (file lists, window bounds, operation codes, sample
 * limits) is a bound parameter.
 *
 * <p>The engine first normalises both layers into two canonical tables, then runs the same rule
 * queries over them:
 *
 * <ul>
 *   <li>{@code raw_versions(key, marker, is_delete, row_hash, src, pos, part_date)}: valid raw rows
 *       only under the contract (every key valid per {@link RawKeys}, a parseable change marker, an
 *       operation of {@code U}, {@code D} or null, or no operation column at all);
 *   <li>{@code curated_rows(key, marker, row_hash)}: the curated table's live rows.
 * </ul>
 *
 * {@code key} is the key columns cast to text and joined by U+001F; {@code marker} is epoch
 * microseconds for timestamp markers and the value for sequences; {@code row_hash} is the MD5 of
 * the compared columns, normalised so that integer widths, float widths, timestamp units and zones
 * hash alike on both sides.
 *
 * <p>Ties on the change marker resolve as the ingest job resolves them (see {@link
 * #createExpected}): a delete wins, then the lowest source file path, then the lowest row position,
 * i.e. the first delivered row. The raw files of one dataset share one root, so the order of their
 * paths is the order of their paths relative to the root ({@code ingest_date=YYYY-MM-DD/file}),
 * i.e. an earlier partition first, then an earlier file name.
 */
final class DuckDbDialect {
  static final String KEY_SEPARATOR = "chr(31)";
  static final String NULL_TOKEN = "chr(30)";
  static final String DISPLAY_SEPARATOR = "|";

  private DuckDbDialect() {}

  /** Quotes an identifier that already passed {@link Checks#IDENTIFIER}; refuses anything else. */
  static String quote(String identifier) {
    Checks.identifier("identifier", identifier);
    return '"' + identifier + '"';
  }

  static String settings() {
    return "SET TimeZone = 'UTC'";
  }

  static String createFileTable(String table) {
    return "CREATE TEMP TABLE " + table + " (path VARCHAR, location VARCHAR, part_date DATE)";
  }

  static String insertFile(String table) {
    return "INSERT INTO " + table + " VALUES (?, ?, CAST(? AS DATE))";
  }

  /**
   * A path that DuckDB's file readers take literally. They expand {@code *}, {@code ?} and {@code
   * [..]} in every path they are given, so {@code q?.parquet} would also read {@code q1.parquet};
   * each metacharacter is wrapped in a one-character class ({@code [*]}, {@code [?]}, {@code [[]}),
   * which matches exactly itself.
   */
  static String literalPath(String path) {
    StringBuilder out = new StringBuilder(path.length() + 8);
    for (int i = 0; i < path.length(); i++) {
      char ch = path.charAt(i);
      if (ch == '*' || ch == '?' || ch == '[') {
        out.append('[').append(ch).append(']');
      } else {
        out.append(ch);
      }
    }
    return out.toString();
  }

  private static List<String> literalPaths(List<String> paths) {
    return paths.stream().map(DuckDbDialect::literalPath).toList();
  }

  /**
   * No rows, every column of one Parquet file: reading it checks its footer and schema only. The
   * file's own columns only: DuckDB would otherwise add {@code ingest_date} from the folder name.
   */
  static Sql probeParquet(String path) {
    return new Sql()
        .append("SELECT * FROM read_parquet(")
        .param(literalPath(path))
        .append(", hive_partitioning = false) LIMIT 0");
  }

  /**
   * The leaf column names of one Parquet file as written, in file order (for a flat file, its
   * columns; the root element is the one with children).
   */
  static Sql parquetColumnNames(String path) {
    return new Sql()
        .append("SELECT name FROM parquet_schema(")
        .param(literalPath(path))
        .append(") WHERE coalesce(num_children, 0) = 0");
  }

  /** Loads every column of the given Parquet files, with source file and row position. */
  static Sql loadParquet(String table, List<String> paths) {
    return new Sql()
        .append("CREATE TEMP TABLE " + table + " AS SELECT * FROM read_parquet(")
        .param(literalPaths(paths))
        .append(
            ", filename = true, file_row_number = true, union_by_name = true,"
                + " hive_partitioning = false)");
  }

  static Sql loadPositionDeletes(List<String> paths) {
    return new Sql()
        .append("CREATE TEMP TABLE curated_deletes AS SELECT file_path, pos FROM read_parquet(")
        .param(literalPaths(paths))
        .append(", union_by_name = true)");
  }

  static String emptyPositionDeletes() {
    return "CREATE TEMP TABLE curated_deletes (file_path VARCHAR, pos BIGINT)";
  }

  static String describe(String table) {
    return "DESCRIBE " + table;
  }

  /** The live rows of the curated table: data rows minus position-deleted ones. */
  static String createCuratedLive(List<String> columns) {
    StringBuilder cols = new StringBuilder();
    for (String c : columns) {
      cols.append(cols.isEmpty() ? "" : ", ").append("s.").append(quote(c));
    }
    return "CREATE TEMP TABLE curated_live AS SELECT "
        + cols
        + " FROM curated_src s JOIN curated_files f ON s.filename = f.path"
        + " WHERE NOT EXISTS (SELECT 1 FROM curated_deletes d"
        + " WHERE d.file_path = f.location AND d.pos = s.file_row_number)";
  }

  static String emptyCanonicalRaw() {
    return "CREATE TEMP TABLE raw_versions (key VARCHAR, marker BIGINT, is_delete BOOLEAN,"
        + " row_hash VARCHAR, src VARCHAR, pos BIGINT, part_date DATE)";
  }

  static String emptyCanonicalCurated() {
    return "CREATE TEMP TABLE curated_rows (key VARCHAR, marker BIGINT, row_hash VARCHAR)";
  }

  /**
   * Normalises raw rows and keeps the valid ones.
   *
   * @param futureLimitMicros the latest valid timestamp marker (epoch microseconds): a later one is
   *     invalid, as the ingest job quarantines it; ignored for sequence markers
   */
  static Sql createRawVersions(
      DatasetSpec spec, Map<String, String> types, long futureLimitMicros) {
    Sql sql =
        new Sql()
            .append("CREATE TEMP TABLE raw_versions AS SELECT key, marker, is_delete, row_hash,")
            .append(" src, pos, part_date FROM (SELECT ")
            .append(keyExpr(spec, types))
            .append(" AS key, ")
            .append(markerExpr(spec, types))
            .append(" AS marker, ");
    String op = spec.operationColumn();
    if (op == null || !types.containsKey(op.toLowerCase(Locale.ROOT))) {
      // No file of the batch has the optional operation column: every row is an upsert.
      sql.append("false AS is_delete, true AS op_ok, ");
    } else {
      String opText = "CAST(s." + quote(op) + " AS VARCHAR)";
      sql.append("coalesce(" + opText + " = ")
          .param(DatasetSpec.OPERATION_DELETE)
          .append(", false) AS is_delete, (" + opText + " IS NULL OR " + opText + " IN (")
          .param(DatasetSpec.OPERATION_UPSERT)
          .append(", ")
          .param(DatasetSpec.OPERATION_DELETE)
          .append(")) AS op_ok, ");
    }
    return sql.append(hashExpr(spec, types))
        .append(" AS row_hash, s.filename AS src, s.file_row_number AS pos, f.part_date, ")
        .append(keysValid(spec))
        .append(" AS key_ok FROM raw_src s JOIN raw_files f ON s.filename = f.path)")
        .append(" WHERE key_ok AND op_ok AND marker IS NOT NULL")
        .append(
            spec.changeMarker().type() == ChangeMarkerType.TIMESTAMP
                ? new Sql().append(" AND marker <= ").param(futureLimitMicros)
                : new Sql());
  }

  static String createCuratedRows(DatasetSpec spec, Map<String, String> types) {
    return "CREATE TEMP TABLE curated_rows AS SELECT "
        + keyExpr(spec, types)
        + " AS key, "
        + markerExpr(spec, types)
        + " AS marker, "
        + hashExpr(spec, types)
        + " AS row_hash FROM curated_live s";
  }

  /**
   * Whether a raw version is at or before the window end: by marker for timestamps, by partition
   * date for sequences (a sequence says nothing about time).
   */
  static Sql capPredicate(ChangeMarkerType type, long toMicros, String toDate) {
    return type == ChangeMarkerType.TIMESTAMP
        ? new Sql().append("marker <= ").param(toMicros)
        : new Sql().append("part_date <= CAST(").param(toDate).append(" AS DATE)");
  }

  /** Whether a raw version falls in the window; null bounds are open. */
  static Sql rawWindowPredicate(
      ChangeMarkerType type, Long fromMicros, long toMicros, String fromDate, String toDate) {
    Sql sql = new Sql().append("(");
    if (type == ChangeMarkerType.TIMESTAMP) {
      if (fromMicros != null) {
        sql.append("marker > ").param(fromMicros).append(" AND ");
      }
      sql.append("marker <= ").param(toMicros);
    } else {
      if (fromDate != null) {
        sql.append("part_date >= CAST(").param(fromDate).append(" AS DATE) AND ");
      }
      sql.append("part_date <= CAST(").param(toDate).append(" AS DATE)");
    }
    return sql.append(")");
  }

  /** Whether a curated row's marker falls in the window; sequences cannot say, so none do. */
  static Sql curatedWindowPredicate(ChangeMarkerType type, Long fromMicros, long toMicros) {
    Sql sql = new Sql().append("(");
    if (type == ChangeMarkerType.TIMESTAMP) {
      if (fromMicros != null) {
        sql.append("marker > ").param(fromMicros).append(" AND ");
      }
      sql.append("marker <= ").param(toMicros);
    } else {
      sql.append("false");
    }
    return sql.append(")");
  }

  /**
   * The expected state: the latest valid version per key at or before the window end. Versions with
   * the same change marker are a source defect; they are resolved as the ingest job resolves them:
   * a delete wins (a delete applies when not older), then the first delivered row (lowest file
   * path, then row position), since an equal marker never overwrites what is already there.
   */
  static Sql createExpected(Sql cap) {
    return new Sql()
        .append("CREATE TEMP TABLE expected AS SELECT key, marker, is_delete, row_hash FROM (")
        .append("SELECT *, row_number() OVER (PARTITION BY key ORDER BY ")
        .append(VersionOrder.sqlOrderBy("marker", "is_delete", "src", "pos"))
        .append(") AS rn FROM raw_versions WHERE ")
        .append(cap)
        .append(") WHERE rn = 1");
  }

  /** Every row of {@code expected}, keys shown with {@code |} between columns, in key order. */
  static Sql expectedRows() {
    return new Sql()
        .append("SELECT replace(key, " + KEY_SEPARATOR + ", ")
        .param(DISPLAY_SEPARATOR)
        .append(") AS k, marker, is_delete FROM expected ORDER BY k");
  }

  /** Keys changed again after the window end: left to a later window. */
  static Sql createInFlight(Sql cap) {
    return new Sql()
        .append("CREATE TEMP TABLE in_flight AS SELECT DISTINCT key FROM raw_versions WHERE NOT (")
        .append(cap)
        .append(")");
  }

  static Sql createCheckedWindow(Sql rawWindow, Sql curatedWindow) {
    return new Sql()
        .append("CREATE TEMP TABLE checked AS (SELECT key FROM raw_versions WHERE ")
        .append(rawWindow)
        .append(" UNION SELECT key FROM curated_rows WHERE ")
        .append(curatedWindow)
        .append(") EXCEPT SELECT key FROM in_flight");
  }

  static String createCheckedFull() {
    return "CREATE TEMP TABLE checked AS (SELECT key FROM expected UNION SELECT key FROM"
        + " curated_rows) EXCEPT SELECT key FROM in_flight";
  }

  /** The checked slices of both sides, the curated side grouped per key. */
  static List<String> createComparison() {
    return List.of(
        "CREATE TEMP TABLE exp AS SELECT e.* FROM expected e SEMI JOIN checked c ON e.key = c.key",
        "CREATE TEMP TABLE cur_rows AS SELECT r.* FROM curated_rows r SEMI JOIN checked c"
            + " ON r.key = c.key",
        "CREATE TEMP TABLE cur AS SELECT key, count(*) AS n, max(marker) AS marker FROM cur_rows"
            + " GROUP BY key");
  }

  static final String MISSING =
      "SELECT e.key FROM exp e WHERE NOT e.is_delete AND NOT EXISTS"
          + " (SELECT 1 FROM cur c WHERE c.key = e.key)";
  static final String UNEXPECTED =
      "SELECT c.key FROM cur c LEFT JOIN exp e ON c.key = e.key"
          + " WHERE e.key IS NULL OR e.is_delete";
  static final String DUPLICATES = "SELECT key FROM cur WHERE n > 1";

  /**
   * Keys whose curated version is not raw's latest valid one, in either direction: older (a change
   * not applied) or newer (a version raw does not hold: an invented row, a shifted timestamp, a raw
   * file deleted after the job read it).
   */
  static final String STALE =
      "SELECT c.key FROM cur c JOIN exp e ON c.key = e.key"
          + " WHERE NOT e.is_delete AND c.marker <> e.marker";

  static final String MISMATCHED =
      "SELECT DISTINCT r.key FROM cur_rows r JOIN exp e ON r.key = e.key"
          + " WHERE NOT e.is_delete AND r.marker = e.marker AND r.row_hash <> e.row_hash";
  static final String COUNT_DIFFERENCE = MISSING + " UNION " + UNEXPECTED + " UNION " + DUPLICATES;
  static final String EXPECTED_ROWS = "SELECT count(*) FROM exp WHERE NOT is_delete";
  static final String CURATED_ROWS = "SELECT count(*) FROM cur_rows";
  static final String NEWEST_CURATED = "SELECT max(marker) FROM curated_rows";

  static Sql newestRaw(Sql cap) {
    return new Sql().append("SELECT max(marker) FROM raw_versions WHERE ").append(cap);
  }

  static Sql oldestRaw(Sql cap) {
    return new Sql().append("SELECT min(marker) FROM raw_versions WHERE ").append(cap);
  }

  static Sql pending(long newestCurated) {
    return new Sql().append("SELECT key FROM expected WHERE marker > ").param(newestCurated);
  }

  static Sql count(String keysQuery) {
    return new Sql().append("SELECT count(*) FROM (" + keysQuery + ")");
  }

  static Sql count(Sql keysQuery) {
    return new Sql().append("SELECT count(*) FROM (").append(keysQuery).append(")");
  }

  /** A sorted, bounded sample of a key query, keys shown with {@code |} between columns. */
  static Sql sample(Sql keysQuery, int limit) {
    return new Sql()
        .append("SELECT DISTINCT replace(key, " + KEY_SEPARATOR + ", ")
        .param(DISPLAY_SEPARATOR)
        .append(") AS k FROM (")
        .append(keysQuery)
        .append(") ORDER BY k LIMIT ")
        .param(limit);
  }

  static Sql sample(String keysQuery, int limit) {
    return sample(new Sql().append(keysQuery), limit);
  }

  // ---- expressions over one source row `s` ----

  static String keyExpr(DatasetSpec spec, Map<String, String> types) {
    List<String> parts = new ArrayList<>();
    for (String k : spec.keyColumns()) {
      requireColumn(types, k, "key");
      parts.add("CAST(s." + quote(k) + " AS VARCHAR)");
    }
    return parts.size() == 1
        ? parts.get(0)
        : "concat_ws(" + KEY_SEPARATOR + ", " + String.join(", ", parts) + ")";
  }

  /**
   * Whether every key column holds a valid key under {@link RawKeys}: not null, not blank, no
   * control or invisible format character, no surrounding white space.
   */
  static Sql keysValid(DatasetSpec spec) {
    Sql sql = new Sql().append("(");
    boolean first = true;
    for (String k : spec.keyColumns()) {
      String text = "CAST(s." + quote(k) + " AS VARCHAR)";
      sql.append(first ? "" : " AND ")
          .append("(" + text + " IS NOT NULL AND NOT regexp_matches(" + text + ", ")
          .param(RawKeys.BLANK_PATTERN)
          .append(") AND NOT regexp_matches(" + text + ", ")
          .param(RawKeys.MALFORMED_PATTERN)
          .append("))");
      first = false;
    }
    return sql.append(")");
  }

  /** The change marker as a BIGINT: epoch microseconds or the sequence; NULL when unparseable. */
  static String markerExpr(DatasetSpec spec, Map<String, String> types) {
    String column = spec.changeMarker().column();
    String type = requireColumn(types, column, "change marker");
    String c = "s." + quote(column);
    if (spec.changeMarker().type() == ChangeMarkerType.TIMESTAMP) {
      if (type.startsWith("TIMESTAMP")) {
        return "epoch_us(" + c + ")";
      }
      if (type.equals("DATE")) {
        return "epoch_us(CAST(" + c + " AS TIMESTAMP))";
      }
      if (type.equals("VARCHAR")) {
        return "epoch_us(TRY_CAST(" + c + " AS TIMESTAMPTZ))";
      }
      throw new EngineException(
          "Cannot read change marker '"
              + column
              + "' of type "
              + type
              + " as a TIMESTAMP: expected a timestamp, date or text column");
    }
    if (isInteger(type) || type.equals("VARCHAR") || type.startsWith("DECIMAL")) {
      return "TRY_CAST(" + c + " AS BIGINT)";
    }
    throw new EngineException(
        "Cannot read change marker '" + column + "' of type " + type + " as a LONG sequence");
  }

  static String hashExpr(DatasetSpec spec, Map<String, String> types) {
    if (spec.comparedColumns().isEmpty()) {
      return "md5('')";
    }
    List<String> parts = new ArrayList<>();
    for (String col : spec.comparedColumns()) {
      String type = requireColumn(types, col, "compared");
      parts.add("coalesce(" + normalised("s." + quote(col), type) + ", " + NULL_TOKEN + ")");
    }
    return "md5(concat_ws(" + KEY_SEPARATOR + ", " + String.join(", ", parts) + "))";
  }

  private static String normalised(String c, String type) {
    if (type.startsWith("TIMESTAMP")) {
      return "CAST(epoch_us(" + c + ") AS VARCHAR)";
    }
    if (type.equals("FLOAT") || type.equals("DOUBLE") || type.equals("REAL")) {
      return "CAST(CAST(" + c + " AS DOUBLE) AS VARCHAR)";
    }
    return "CAST(" + c + " AS VARCHAR)";
  }

  static boolean isInteger(String type) {
    return List.of(
            "TINYINT",
            "SMALLINT",
            "INTEGER",
            "BIGINT",
            "HUGEINT",
            "UTINYINT",
            "USMALLINT",
            "UINTEGER",
            "UBIGINT")
        .contains(type);
  }

  private static String requireColumn(Map<String, String> types, String column, String role) {
    String type = types.get(column.toLowerCase(Locale.ROOT));
    if (type == null) {
      throw new EngineException(
          "Cannot find " + role + " column '" + column + "': the files have " + types.keySet());
    }
    return type;
  }
}
