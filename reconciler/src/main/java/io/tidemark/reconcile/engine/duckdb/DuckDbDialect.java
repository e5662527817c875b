package io.tidemark.reconcile.engine.duckdb;

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
 * Every SQL text of the DuckDB engine, in one place. Identifiers come only from the validated data
 * contract and pass {@link #quote}; every value (file lists, window bounds, operation codes, sample
 * limits) is a bound parameter.
 *
 * <p>The engine first normalises both layers into two canonical tables, then runs the same rule
 * queries over them:
 *
 * <ul>
 *   <li>{@code raw_versions(key, marker, is_delete, row_hash, src, src_ord, pos, part_date)}: valid
 *       raw rows only under the contract (every key valid per {@link RawKeys}, a parseable change
 *       marker, an operation of {@code U}, {@code D} or null, or no operation column at all);
 *   <li>{@code curated_rows(key, marker, row_hash)}: the curated table's live rows.
 * </ul>
 *
 * {@code key} is the key columns cast to text and joined by U+001F; {@code marker} is epoch
 * microseconds for timestamp markers and the value for sequences; {@code row_hash} is a 64-bit hash
 * of the compared columns, normalised so that integer widths, float widths, timestamp units and
 * zones hash alike on both sides. Both are views over the files (DuckDB reads them where a query
 * needs them); a WINDOW reconciliation keeps its few raw versions in a table.
 *
 * <p>A FULL reconciliation first sums both layers per bucket of keys ({@link #createRawBuckets},
 * {@link #createCuratedBuckets}) and compares rows only in the buckets whose sums differ, the way
 * checksum-bisection diff tools do: a healthy table costs one streaming pass over each layer.
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

  /**
   * Session settings: UTC, no insertion order kept for the large intermediate results (lets DuckDB
   * stream and spill them), and a memory limit beyond which it spills to {@code tempDirectory}.
   */
  static List<Sql> settings(String memoryLimit, String tempDirectory) {
    return List.of(
        new Sql().append("SET TimeZone = 'UTC'"),
        new Sql().append("SET preserve_insertion_order = false"),
        new Sql().append("SET memory_limit = ").param(memoryLimit),
        new Sql().append("SET temp_directory = ").param(tempDirectory));
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

  /**
   * Every column of the given Parquet files, with source file and row position: the query behind a
   * view, read where a query needs it, only the columns it needs.
   */
  static Sql readParquet(List<String> paths) {
    return new Sql()
        .append("SELECT * FROM read_parquet(")
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
    return "CREATE TEMP VIEW curated_live AS SELECT "
        + cols
        + " FROM curated_src s JOIN curated_files f ON s.filename = f.path"
        + " WHERE NOT EXISTS (SELECT 1 FROM curated_deletes d"
        + " WHERE d.file_path = f.location AND d.pos = s.file_row_number)";
  }

  static String emptyCanonicalRaw() {
    return "CREATE TEMP TABLE raw_versions (key VARCHAR, marker BIGINT, is_delete BOOLEAN,"
        + " row_hash UBIGINT, src VARCHAR, src_ord BIGINT, pos BIGINT, part_date DATE)";
  }

  static String emptyCanonicalCurated() {
    return "CREATE TEMP TABLE curated_rows (key VARCHAR, marker BIGINT, row_hash UBIGINT)";
  }

  /**
   * Normalises raw rows and keeps the valid ones: the query behind {@code raw_versions}.
   *
   * @param futureLimitMicros the latest valid timestamp marker (epoch microseconds): a later one is
   *     invalid, as the ingest job quarantines it; ignored for sequence markers
   */
  static Sql rawVersions(DatasetSpec spec, Map<String, String> types, long futureLimitMicros) {
    Sql sql =
        new Sql()
            .append("SELECT key, marker, is_delete, row_hash, src, src_ord, pos, part_date")
            .append(" FROM (SELECT ")
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
        .append(" AS row_hash, s.filename AS src, f.ord AS src_ord, s.file_row_number AS pos,")
        .append(" f.part_date, ")
        .append(keysValid(spec))
        .append(" AS key_ok FROM raw_src s JOIN (SELECT path, part_date,")
        .append(" row_number() OVER (ORDER BY path) AS ord FROM raw_files) f")
        .append(" ON s.filename = f.path)")
        .append(" WHERE key_ok AND op_ok AND marker IS NOT NULL")
        .append(
            spec.changeMarker().type() == ChangeMarkerType.TIMESTAMP
                ? new Sql().append(" AND marker <= ").param(futureLimitMicros)
                : new Sql());
  }

  /** The curated table's live rows in canonical form: a view, read once per pass. */
  static String createCuratedRows(DatasetSpec spec, Map<String, String> types) {
    return "CREATE TEMP VIEW curated_rows AS SELECT "
        + keyExpr(spec, types)
        + " AS key, "
        + markerExpr(spec, types)
        + " AS marker, "
        + hashExpr(spec, types)
        + " AS row_hash FROM curated_live s";
  }

  /**
   * The curated rows of the checked keys, into {@code cur_rows}, in canonical form. The keys are
   * matched first and only the matching rows' compared columns hashed: DuckDB does not move the key
   * match below {@code curated_rows}' projection, so selecting from that view would hash every row
   * of the table (in a one-day WINDOW over 10M keys, 2.1 s of the run's 5.5 s).
   *
   * @param liveTypes the column types of {@code curated_live}; null when the table has no data file
   *     ({@code curated_rows} is then an empty table)
   */
  static String createCheckedCuratedRows(DatasetSpec spec, Map<String, String> liveTypes) {
    if (liveTypes == null) {
      return "CREATE TEMP TABLE cur_rows AS SELECT r.* FROM curated_rows r"
          + " WHERE r.key IN (SELECT key FROM checked)";
    }
    String key = keyExpr(spec, liveTypes);
    // IN, the checked keys second: they are few, the curated rows many, and the engine runs this
    // statement with the build sides as written (KEEP_BUILD_SIDES), so the hash table holds them.
    return "CREATE TEMP TABLE cur_rows AS SELECT "
        + key
        + " AS key, "
        + markerExpr(spec, liveTypes)
        + " AS marker, "
        + hashExpr(spec, liveTypes)
        + " AS row_hash FROM (SELECT * FROM curated_live s WHERE "
        + key
        + " IN (SELECT key FROM checked)) s";
  }

  /**
   * The keys whose curated change marker falls in the window: the curated side of a WINDOW's
   * checked keys. None for sequence markers (a sequence says nothing about time).
   *
   * @param liveTypes as for {@link #createCheckedCuratedRows}
   */
  static Sql curatedWindowKeys(
      DatasetSpec spec, Map<String, String> liveTypes, Long fromMicros, long toMicros) {
    if (liveTypes == null) {
      return new Sql()
          .append("SELECT key FROM curated_rows WHERE ")
          .append(curatedWindowPredicate(spec.changeMarker().type(), fromMicros, toMicros));
    }
    Sql sql =
        new Sql().append("SELECT " + keyExpr(spec, liveTypes) + " AS key FROM curated_live s");
    if (spec.changeMarker().type() != ChangeMarkerType.TIMESTAMP) {
      return sql.append(" WHERE false");
    }
    String marker = markerExpr(spec, liveTypes);
    sql.append(" WHERE ");
    if (fromMicros != null) {
      sql.append(marker + " > ").param(fromMicros).append(" AND ");
    }
    return sql.append(marker + " <= ")
        .param(toMicros)
        .append(markerPrefilter(spec, liveTypes, fromMicros, toMicros));
  }

  /**
   * Curated's newest change marker, reading only the rows from {@code atLeast} on: a marker some
   * live curated row holds, so the answer is exact (null: every row is read).
   *
   * @param liveTypes as for {@link #createCheckedCuratedRows}
   */
  static Sql newestCurated(DatasetSpec spec, Map<String, String> liveTypes, Long atLeast) {
    Sql prefilter =
        liveTypes == null || atLeast == null
            ? new Sql()
            : markerPrefilter(spec, liveTypes, atLeast - 1, null);
    if (prefilter.text().isEmpty()) {
      return new Sql().append(NEWEST_CURATED);
    }
    String marker = markerExpr(spec, liveTypes);
    return new Sql()
        .append("SELECT max(" + marker + ") FROM curated_live s WHERE " + marker + " >= ")
        .param(atLeast)
        .append(prefilter);
  }

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

  /** Buckets a key falls in; a FULL reconciliation compares the layers bucket by bucket. */
  static final int BUCKETS = 4096;

  private static String bucket(String key) {
    return "CAST(hash(" + key + ") % " + BUCKETS + " AS INTEGER)";
  }

  /**
   * A version's place in {@link VersionOrder} as one number, so that the winner of a key is its
   * {@code max}: the marker, then a delete, then the lowest file (by its ordinal in path order),
   * then the lowest row position. Fits while a reconciliation reads fewer than 2^23 files of fewer
   * than 2^40 rows each.
   */
  private static final String VERSION_RANK =
      "CAST(marker AS HUGEINT) * CAST(18446744073709551616 AS HUGEINT)"
          + " + CAST(is_delete AS HUGEINT) * CAST(9223372036854775808 AS HUGEINT)"
          + " + CAST(8388607 - src_ord AS HUGEINT) * CAST(1099511627776 AS HUGEINT)"
          + " + (1099511627775 - pos)";

  static {
    // VERSION_RANK encodes this order; it must change with it.
    String order = VersionOrder.sqlOrderBy("m", "d", "f", "p");
    if (!order.equals("m DESC, d DESC, f ASC, p ASC")) {
      throw new IllegalStateException("VERSION_RANK does not encode the version order " + order);
    }
  }

  /**
   * Per bucket of keys, raw's side of a FULL comparison: how many keys' latest valid version at or
   * before the window end is live, and the XOR of a hash of each such key's (key, marker, compared
   * values). Versions stream from the files through one aggregation per key; nothing per key is
   * kept. (A bucket holding a key still in flight is compared row by row, where that key is left
   * out.)
   */
  static Sql createRawBuckets(Sql cap) {
    return new Sql()
        .append("CREATE TEMP TABLE raw_buckets AS SELECT ")
        .append(bucket("key"))
        .append(" AS bucket, count(*) FILTER (WHERE NOT is_delete) AS n,")
        .append(" bit_xor(hash(key, marker, row_hash)) FILTER (WHERE NOT is_delete) AS x")
        .append(" FROM (")
        .append(winners(cap))
        .append(") GROUP BY bucket");
  }

  /**
   * Per bucket of keys, curated's side of a FULL comparison: its rows, the XOR of the same hash
   * over each, and the newest change marker.
   */
  static String createCuratedBuckets() {
    return "CREATE TEMP TABLE curated_buckets AS SELECT "
        + bucket("key")
        + " AS bucket, count(*) AS n, bit_xor(hash(key, marker, row_hash)) AS x,"
        + " max(marker) AS newest FROM curated_rows GROUP BY bucket";
  }

  /**
   * The buckets to compare row by row: those whose two sides differ, and those holding a key in
   * flight (left out of the comparison, so its bucket's sums cannot say).
   */
  static String createDifferentBuckets() {
    return "CREATE TEMP TABLE different_buckets AS SELECT coalesce(r.bucket, c.bucket) AS bucket"
        + " FROM raw_buckets r FULL OUTER JOIN curated_buckets c ON r.bucket = c.bucket"
        + " WHERE coalesce(r.n, 0) <> coalesce(c.n, 0) OR r.x IS DISTINCT FROM c.x"
        + " UNION SELECT "
        + bucket("key")
        + " FROM in_flight";
  }

  static final String DIFFERENT_BUCKETS = "SELECT count(*) FROM different_buckets";

  /**
   * Over the buckets that agree: the live keys raw expects and the rows curated holds (the same);
   * and curated's newest change marker over every bucket.
   */
  static final String AGREEING_TOTALS =
      "SELECT (SELECT coalesce(sum(n), 0) FROM raw_buckets"
          + " WHERE bucket NOT IN (SELECT bucket FROM different_buckets)),"
          + " (SELECT coalesce(sum(n), 0) FROM curated_buckets"
          + " WHERE bucket NOT IN (SELECT bucket FROM different_buckets)),"
          + " (SELECT max(newest) FROM curated_buckets)";

  /** A FULL comparison's expected state, for the keys of the buckets that differ only. */
  static Sql createExpectedInDifferentBuckets(Sql cap) {
    return createExpected(
        new Sql()
            .append(cap)
            .append(" AND " + bucket("key") + " IN (SELECT bucket FROM different_buckets)"));
  }

  /** A FULL comparison's keys to check: those of the buckets that differ, none in flight. */
  static String createCheckedInDifferentBuckets() {
    return "CREATE TEMP TABLE checked AS (SELECT key FROM expected UNION SELECT key FROM"
        + " curated_rows WHERE "
        + bucket("key")
        + " IN (SELECT bucket FROM different_buckets)) EXCEPT SELECT key FROM in_flight";
  }

  /**
   * The expected state: the latest valid version per key at or before the window end. Versions with
   * the same change marker are a source defect; they are resolved as the ingest job resolves them:
   * a delete wins (a delete applies when not older), then the first delivered row (lowest file
   * path, then row position), since an equal marker never overwrites what is already there.
   */
  static Sql createExpected(Sql cap) {
    return new Sql().append("CREATE TEMP TABLE expected AS ").append(winners(cap));
  }

  /**
   * The winning version of every key with versions matching {@code filter}: {@code key, marker,
   * is_delete, row_hash}. One aggregation per key over {@link #VERSION_RANK}, which DuckDB can
   * spill to disk, where sorting every key's versions could not.
   */
  private static Sql winners(Sql filter) {
    return new Sql()
        .append("SELECT key, CAST(max(rank) >> 64 AS BIGINT) AS marker,")
        .append(" ((max(rank) >> 63) & 1) = 1 AS is_delete, arg_max(row_hash, rank) AS row_hash")
        .append(" FROM (SELECT key, row_hash, " + VERSION_RANK + " AS rank FROM raw_versions v")
        .append(" WHERE ")
        .append(filter)
        .append(") GROUP BY key");
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

  /**
   * A WINDOW's keys to check: those with a raw version in the window or a curated row whose marker
   * is in it ({@link #curatedWindowKeys}), none in flight.
   */
  static Sql createCheckedWindow(Sql rawWindow, Sql curatedWindowKeys) {
    return new Sql()
        .append("CREATE TEMP TABLE checked AS (SELECT key FROM raw_versions WHERE ")
        .append(rawWindow)
        .append(" UNION ")
        .append(curatedWindowKeys)
        .append(") EXCEPT SELECT key FROM in_flight");
  }

  /**
   * The checked keys' expected versions; with {@link #createCheckedCuratedRows}'s {@code cur_rows}
   * and {@link #CREATE_CHECKED_CURATED}, the checked slices of both sides.
   */
  static final String CREATE_CHECKED_EXPECTED =
      "CREATE TEMP TABLE exp AS SELECT e.* FROM expected e SEMI JOIN checked c ON e.key = c.key";

  /** The checked curated rows grouped per key: how many rows a key has and its newest marker. */
  static final String CREATE_CHECKED_CURATED =
      "CREATE TEMP TABLE cur AS SELECT key, count(*) AS n, max(marker) AS marker FROM cur_rows"
          + " GROUP BY key";

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
  static final String NEWEST_CHECKED = "SELECT max(marker) FROM cur_rows";

  /** Joins build their hash tables on the side the query names second. */
  static final String KEEP_BUILD_SIDES = "SET disabled_optimizers = 'build_side_probe_side'";

  /** Joins build on the side DuckDB estimates smaller (its default). */
  static final String CHOOSE_BUILD_SIDES = "RESET disabled_optimizers";

  /** The newest and the oldest valid raw change marker at or before the window end. */
  static Sql rawMarkerRange(Sql cap) {
    return new Sql().append("SELECT max(marker), min(marker) FROM raw_versions WHERE ").append(cap);
  }

  /**
   * Keys whose latest valid version at or before the window end is newer than the curated table's
   * newest: the latest version is the newest, so any such version makes its key pending.
   */
  /** The raw files holding a valid version newer than the curated table's newest. */
  static Sql pendingFiles(Sql cap, long newestCurated) {
    return new Sql()
        .append("SELECT DISTINCT src FROM raw_versions WHERE ")
        .append(cap)
        .append(" AND marker > ")
        .param(newestCurated);
  }

  static Sql pending(Sql cap, long newestCurated) {
    return new Sql()
        .append("SELECT DISTINCT key FROM raw_versions WHERE ")
        .append(cap)
        .append(" AND marker > ")
        .param(newestCurated);
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

  /**
   * A 64-bit hash of the compared columns, each normalised to text (NULL as its own token): equal
   * values hash alike on both sides; a collision (odds 2^-64 per compared pair) would hide one
   * mismatch.
   */
  static String hashExpr(DatasetSpec spec, Map<String, String> types) {
    if (spec.comparedColumns().isEmpty()) {
      return "CAST(0 AS UBIGINT)";
    }
    List<String> parts = new ArrayList<>();
    for (String col : spec.comparedColumns()) {
      String type = requireColumn(types, col, "compared");
      parts.add("coalesce(" + normalised("s." + quote(col), type) + ", " + NULL_TOKEN + ")");
    }
    return "hash(" + String.join(", ", parts) + ")";
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
