package io.tidemark.reconcile.engine.athena;

import io.tidemark.model.config.ChangeMarkerType;
import io.tidemark.model.config.DatasetSpec;
import io.tidemark.model.contract.RawKeys;
import io.tidemark.model.contract.VersionOrder;
import io.tidemark.model.json.Checks;
import io.tidemark.reconcile.engine.sql.Sql;
import io.tidemark.reconcile.kernel.EngineException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Every SQL text of the Athena engine, in Athena engine v3's dialect, which is Trino's: the same
 * observations as the DuckDB engine's temporary tables, written as one {@code WITH} prelude per
 * request and one query per measure (Athena has no temporary tables, and bills each query for what
 * it scans, so each measure's bytes are its own).
 *
 * <p>Identifiers come only from validated configuration ({@link #quote}); every value (window
 * bounds, file paths, operation codes, sample sizes) is a {@code ?} parameter. Athena substitutes
 * execution parameters as literals; Trino's JDBC driver binds them; the text is the same.
 *
 * <p>The canonical rows are those of the DuckDB engine ({@code raw_versions}, {@code expected},
 * {@code curated_rows}, {@code checked}, ...), with two differences that Athena forces:
 *
 * <ul>
 *   <li>Timestamps: Athena reads a Hive table's timestamps at millisecond precision, Iceberg's at
 *       microsecond; both sides' markers are reduced to milliseconds (and kept in microsecond
 *       units), so that a curated row is compared at the precision raw can be read at.
 *   <li>Ties: a Hive table has no row-position column, so versions of one key tied on marker,
 *       delete flag and file (a source defect inside one file) stay tied: any of their values is
 *       accepted as the expected one. The job and the DuckDB engine take the first delivered row.
 * </ul>
 */
public final class TrinoDialect {
  static final String KEY_SEPARATOR = "chr(31)";
  static final String NULL_TOKEN = "chr(30)";
  static final String DISPLAY_SEPARATOR = "|";

  /** Athena's (and Trino's Hive connector's) column of a row's source file URI. */
  static final String PATH_COLUMN = "\"$path\"";

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
      List<String> skippedFiles) {
    public RawScope {
      lateFiles = List.copyOf(lateFiles);
      latePartitions = List.copyOf(latePartitions);
      skippedFiles = List.copyOf(skippedFiles);
    }

    public static RawScope all(List<String> skippedFiles) {
      return new RawScope(null, List.of(), List.of(), skippedFiles);
    }
  }

  /**
   * The window bounds of a request, in marker units.
   *
   * @param fromMicros window start (exclusive), epoch microseconds; null when open
   * @param toMicros window end (inclusive), epoch microseconds
   * @param fromDate window start's date, for sequence markers; null when open
   * @param toDate window end's date
   * @param futureLimitMicros the latest valid timestamp marker
   * @param window whether only the window's keys are checked (WINDOW mode)
   */
  public record Bounds(
      Long fromMicros,
      long toMicros,
      String fromDate,
      String toDate,
      long futureLimitMicros,
      boolean window) {}

  /**
   * The prelude every measure query starts with: the canonical raw and curated rows, the expected
   * state, the keys in flight and the checked slices of both sides ({@code exp}, {@code cur_rows},
   * {@code cur}).
   *
   * @param rawTypes the raw table's column types (contract type names, lower-case column names)
   * @param curatedTypes the curated table's column types, likewise
   */
  static Sql prelude(
      DatasetSpec spec,
      String rawTable,
      String curatedTable,
      Map<String, String> rawTypes,
      Map<String, String> curatedTypes,
      RawScope scope,
      Bounds b) {
    ChangeMarkerType type = spec.changeMarker().type();
    Sql sql = new Sql().append("WITH raw_src AS (");
    sql.append(rawSelect(spec, rawTable, rawTypes)).append(" WHERE ").append(rawScope(spec, scope));
    if (!scope.lateFiles().isEmpty()) {
      sql.append(" UNION ALL ")
          .append(rawSelect(spec, rawTable, rawTypes))
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
    sql.append("), raw_versions AS (SELECT key, marker, is_delete, row_hash, src, part_date")
        .append(" FROM raw_src WHERE key_ok AND op_ok AND marker IS NOT NULL");
    if (type == ChangeMarkerType.TIMESTAMP) {
      sql.append(" AND marker <= ").param(b.futureLimitMicros());
    }
    sql.append("), expected AS (SELECT key, marker, is_delete, row_hash FROM (SELECT *, rank()")
        .append(" OVER (PARTITION BY key ORDER BY ")
        .append(VersionOrder.sqlOrderByWithoutPosition("marker", "is_delete", "src"))
        .append(") AS rk FROM raw_versions WHERE ")
        .append(cap(type, b))
        .append(") AS ranked WHERE rk = 1)")
        .append(", in_flight AS (SELECT DISTINCT key FROM raw_versions WHERE NOT (")
        .append(cap(type, b))
        .append("))")
        .append(", curated_rows AS (SELECT ")
        .append(keyExpr(spec, curatedTypes))
        .append(" AS key, ")
        .append(markerExpr(spec, curatedTypes))
        .append(" AS marker, ")
        .append(hashExpr(spec, curatedTypes))
        .append(" AS row_hash FROM ")
        .append(quoteTable(curatedTable))
        .append(")");
    if (b.window()) {
      sql.append(", checked AS ((SELECT key FROM raw_versions WHERE ")
          .append(rawWindow(type, b))
          .append(") UNION (SELECT key FROM curated_rows WHERE ")
          .append(curatedWindow(type, b))
          .append(") EXCEPT (SELECT key FROM in_flight))");
    } else {
      sql.append(
          ", checked AS ((SELECT key FROM expected) UNION (SELECT key FROM curated_rows)"
              + " EXCEPT (SELECT key FROM in_flight))");
    }
    return sql.append(
        ", exp AS (SELECT key, max(marker) AS marker, bool_or(is_delete) AS is_delete,"
            + " array_agg(row_hash) AS hashes FROM expected"
            + " WHERE key IN (SELECT key FROM checked) GROUP BY key)"
            + ", cur_rows AS (SELECT * FROM curated_rows WHERE key IN (SELECT key FROM checked))"
            + ", cur AS (SELECT key, count(*) AS n, max(marker) AS marker FROM cur_rows"
            + " GROUP BY key) ");
  }

  private static Sql rawSelect(DatasetSpec spec, String rawTable, Map<String, String> types) {
    Sql sql =
        new Sql()
            .append("SELECT ")
            .append(keyExpr(spec, types))
            .append(" AS key, ")
            .append(markerExpr(spec, types))
            .append(" AS marker, ");
    String op = spec.operationColumn();
    if (op == null || !types.containsKey(op.toLowerCase(Locale.ROOT))) {
      sql.append("false AS is_delete, true AS op_ok, ");
    } else {
      String opText = "CAST(" + quote(op) + " AS varchar)";
      sql.append("coalesce(" + opText + " = ")
          .param(DatasetSpec.OPERATION_DELETE)
          .append(", false) AS is_delete, (" + opText + " IS NULL OR " + opText + " IN (")
          .param(DatasetSpec.OPERATION_UPSERT)
          .append(", ")
          .param(DatasetSpec.OPERATION_DELETE)
          .append(")) AS op_ok, ");
    }
    return sql.append(hashExpr(spec, types))
        .append(" AS row_hash, " + PATH_COLUMN + " AS src, ")
        .append(quote(spec.raw().partitionColumn()))
        .append(" AS part_date, ")
        .append(keysValid(spec))
        .append(" AS key_ok FROM ")
        .append(quoteTable(rawTable));
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

  /** Whether a raw version is at or before the window end (see the DuckDB dialect). */
  static Sql cap(ChangeMarkerType type, Bounds b) {
    return type == ChangeMarkerType.TIMESTAMP
        ? new Sql().append("marker <= ").param(b.toMicros())
        : new Sql().append("part_date <= ").param(b.toDate());
  }

  private static Sql rawWindow(ChangeMarkerType type, Bounds b) {
    Sql sql = new Sql().append("(");
    if (type == ChangeMarkerType.TIMESTAMP) {
      if (b.fromMicros() != null) {
        sql.append("marker > ").param(b.fromMicros()).append(" AND ");
      }
      sql.append("marker <= ").param(b.toMicros());
    } else {
      if (b.fromDate() != null) {
        sql.append("part_date >= ").param(b.fromDate()).append(" AND ");
      }
      sql.append("part_date <= ").param(b.toDate());
    }
    return sql.append(")");
  }

  private static Sql curatedWindow(ChangeMarkerType type, Bounds b) {
    Sql sql = new Sql().append("(");
    if (type == ChangeMarkerType.TIMESTAMP) {
      if (b.fromMicros() != null) {
        sql.append("marker > ").param(b.fromMicros()).append(" AND ");
      }
      sql.append("marker <= ").param(b.toMicros());
    } else {
      sql.append("false");
    }
    return sql.append(")");
  }

  // ---- the measures: each selects the offending keys as `key` ----

  static final String MISSING =
      "SELECT e.key FROM exp e WHERE NOT e.is_delete AND NOT EXISTS"
          + " (SELECT 1 FROM cur c WHERE c.key = e.key)";
  static final String UNEXPECTED =
      "SELECT c.key FROM cur c LEFT JOIN exp e ON c.key = e.key"
          + " WHERE e.key IS NULL OR e.is_delete";
  static final String DUPLICATES = "SELECT key FROM cur WHERE n > 1";
  static final String STALE =
      "SELECT c.key FROM cur c JOIN exp e ON c.key = e.key"
          + " WHERE NOT e.is_delete AND c.marker <> e.marker";

  /** At the same marker, a curated row matching none of the tied expected values. */
  static final String MISMATCHED =
      "SELECT DISTINCT r.key FROM cur_rows r JOIN exp e ON r.key = e.key"
          + " WHERE NOT e.is_delete AND r.marker = e.marker AND NOT contains(e.hashes, r.row_hash)";

  static final String COUNT_DIFFERENCE =
      "(" + MISSING + ") UNION (" + UNEXPECTED + ") UNION (" + DUPLICATES + ")";

  /** One row: expected live rows among the checked keys, curated rows among them. */
  static final String COUNTS =
      "SELECT (SELECT count(*) FROM exp WHERE NOT is_delete), (SELECT count(*) FROM cur_rows)";

  /** Buckets of keys the layers are summed in before any row is compared. */
  static final int BUCKETS = 4096;

  private static String bucket(String key) {
    return "from_big_endian_64(xxhash64(to_utf8(" + key + "))) % " + BUCKETS;
  }

  /**
   * One row: how many buckets of checked keys differ between the layers, then the same two counts
   * as {@link #COUNTS}. Per bucket, each side's live rows are counted and summed by Trino's
   * order-insensitive {@code checksum} of (key, marker, compared-values hash); a bucket holding a
   * key whose latest versions tie on the marker (several acceptable values) counts as different.
   * When no bucket differs, no key measure can find anything and their queries need not run: a
   * healthy table costs this query (and freshness's) instead of one scan per measure.
   */
  static final String BUCKETS_DIFFERING =
      "SELECT count_if(coalesce(r.n, 0) <> coalesce(c.n, 0) OR r.x IS DISTINCT FROM c.x"
          + " OR coalesce(r.ties, 0) > 0), coalesce(sum(r.n), 0), coalesce(sum(c.n), 0) FROM"
          + " (SELECT "
          + bucket("key")
          + " AS b, count_if(NOT is_delete) AS n,"
          + " checksum(ROW(key, marker, hashes[1])) FILTER (WHERE NOT is_delete) AS x,"
          + " count_if(cardinality(hashes) > 1) AS ties FROM exp GROUP BY 1) r"
          + " FULL OUTER JOIN (SELECT "
          + bucket("key")
          + " AS b, count(*) AS n, checksum(ROW(key, marker, row_hash)) AS x"
          + " FROM cur_rows GROUP BY 1) c ON r.b = c.b";

  /** One row: the newest curated marker, the newest and oldest raw ones up to the window end. */
  static Sql markers(ChangeMarkerType type, Bounds b) {
    return new Sql()
        .append("SELECT (SELECT max(marker) FROM curated_rows), (SELECT max(marker) FROM")
        .append(" raw_versions WHERE ")
        .append(cap(type, b))
        .append("), (SELECT min(marker) FROM raw_versions WHERE ")
        .append(cap(type, b))
        .append(")");
  }

  /** The raw files holding a valid version up to the window end newer than {@code newest}. */
  static Sql pendingFiles(ChangeMarkerType type, Bounds b, long newestCurated) {
    return new Sql()
        .append("SELECT DISTINCT src FROM raw_versions WHERE ")
        .append(cap(type, b))
        .append(" AND marker > ")
        .param(newestCurated);
  }

  /** Keys whose expected version is newer than the newest curated marker. */
  static Sql pending(long newestCurated) {
    return new Sql().append("SELECT key FROM expected WHERE marker > ").param(newestCurated);
  }

  /**
   * A key query as rows of {@code (total, key)}: every row carries the number of distinct keys; the
   * first {@code limit} keys in key order are shown with {@code |} between columns. No row means no
   * key.
   */
  static Sql countAndSample(Sql keys, int limit) {
    return new Sql()
        .append("SELECT total, k FROM (SELECT replace(key, " + KEY_SEPARATOR + ", ")
        .param(DISPLAY_SEPARATOR)
        .append(") AS k, count(*) OVER () AS total, row_number() OVER (ORDER BY key) AS rn")
        .append(" FROM (SELECT DISTINCT key FROM (")
        .append(keys)
        .append(") AS q) AS d) AS s WHERE rn <= ")
        .param((long) limit)
        .append(" ORDER BY k");
  }

  static Sql countAndSample(String keys, int limit) {
    return countAndSample(new Sql().append(keys), limit);
  }

  // ---- expressions over one source row ----

  static String keyExpr(DatasetSpec spec, Map<String, String> types) {
    List<String> parts = new ArrayList<>();
    for (String k : spec.keyColumns()) {
      requireColumn(types, k, "key");
      parts.add("CAST(" + quote(k) + " AS varchar)");
    }
    return parts.size() == 1
        ? parts.get(0)
        : "concat_ws(" + KEY_SEPARATOR + ", " + String.join(", ", parts) + ")";
  }

  /** Whether every key column holds a valid key under {@link RawKeys}. */
  static Sql keysValid(DatasetSpec spec) {
    Sql sql = new Sql().append("(");
    boolean first = true;
    for (String k : spec.keyColumns()) {
      String text = "CAST(" + quote(k) + " AS varchar)";
      sql.append(first ? "" : " AND ")
          .append("(" + text + " IS NOT NULL AND NOT regexp_like(" + text + ", ")
          .param(RawKeys.BLANK_PATTERN)
          .append(") AND NOT regexp_like(" + text + ", ")
          .param(RawKeys.MALFORMED_PATTERN)
          .append("))");
      first = false;
    }
    return sql.append(")");
  }

  /**
   * The change marker as a bigint: epoch microseconds (at millisecond precision, see the class
   * comment) or the sequence; NULL when unparseable.
   */
  static String markerExpr(DatasetSpec spec, Map<String, String> types) {
    String column = spec.changeMarker().column();
    String type = requireColumn(types, column, "change marker");
    String c = quote(column);
    if (spec.changeMarker().type() == ChangeMarkerType.TIMESTAMP) {
      if (type.startsWith("timestamp") || type.equals("date")) {
        return epochMicrosAtMillis(c);
      }
      if (type.equals("string")) {
        return epochMicrosAtMillis("try(from_iso8601_timestamp(" + c + "))");
      }
      throw new EngineException(
          "Cannot read change marker '"
              + column
              + "' of type "
              + type
              + " as a TIMESTAMP: expected a timestamp, date or text column");
    }
    if (isInteger(type) || type.equals("string") || type.startsWith("decimal")) {
      return "TRY_CAST(" + c + " AS bigint)";
    }
    throw new EngineException(
        "Cannot read change marker '" + column + "' of type " + type + " as a LONG sequence");
  }

  /** Epoch microseconds of a timestamp, reduced to whole milliseconds, in exact integer math. */
  private static String epochMicrosAtMillis(String expr) {
    return "(date_diff('millisecond', from_unixtime(0), CAST(CAST("
        + expr
        + " AS timestamp(3)) AS timestamp(3) with time zone)) * 1000)";
  }

  static String hashExpr(DatasetSpec spec, Map<String, String> types) {
    if (spec.comparedColumns().isEmpty()) {
      return "to_hex(md5(to_utf8('')))";
    }
    List<String> parts = new ArrayList<>();
    for (String col : spec.comparedColumns()) {
      String type = requireColumn(types, col, "compared");
      parts.add("coalesce(" + normalised(quote(col), type) + ", " + NULL_TOKEN + ")");
    }
    return "to_hex(md5(to_utf8(concat_ws("
        + KEY_SEPARATOR
        + ", "
        + String.join(", ", parts)
        + "))))";
  }

  private static String normalised(String c, String type) {
    if (type.startsWith("timestamp")) {
      return "CAST(" + epochMicrosAtMillis(c) + " AS varchar)";
    }
    if (type.equals("float") || type.equals("double") || type.equals("real")) {
      return "CAST(CAST(" + c + " AS double) AS varchar)";
    }
    if (type.equals("binary")) {
      return "to_hex(" + c + ")";
    }
    return "CAST(" + c + " AS varchar)";
  }

  static boolean isInteger(String type) {
    return List.of("tinyint", "smallint", "int", "integer", "bigint").contains(type);
  }

  private static String requireColumn(Map<String, String> types, String column, String role) {
    String type = types.get(column.toLowerCase(Locale.ROOT));
    if (type == null) {
      throw new EngineException(
          "Cannot find " + role + " column '" + column + "': the table has " + types.keySet());
    }
    return type;
  }
}
