package io.tidemark.reconcile.engine.duckdb;

import io.tidemark.reconcile.engine.sql.ReconciliationSql;
import io.tidemark.reconcile.engine.sql.Sql;
import java.util.List;

/**
 * The embedded engine's own statements: session settings, the Parquet files read where they lie
 * (every path bound, taken literally), and the curated table's live rows with position deletes
 * applied by an anti-join on file path and row position. The reconciliation itself is {@link
 * DuckDbDialect#SQL}.
 */
final class DuckDbFiles {
  private DuckDbFiles() {}

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
    return paths.stream().map(DuckDbFiles::literalPath).toList();
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

  /** {@code <table>_deletes}: the position deletes of a table's live files. */
  static Sql loadPositionDeletes(String table, List<String> paths) {
    return new Sql()
        .append(
            "CREATE TEMP TABLE " + table + "_deletes AS SELECT file_path, pos FROM read_parquet(")
        .param(literalPaths(paths))
        .append(", union_by_name = true)");
  }

  static String emptyPositionDeletes(String table) {
    return "CREATE TEMP TABLE " + table + "_deletes (file_path VARCHAR, pos BIGINT)";
  }

  static String describe(String table) {
    return "DESCRIBE " + table;
  }

  /**
   * {@code <table>_live}: the live rows of an Iceberg table, its data rows ({@code <table>_src})
   * minus position-deleted ones.
   */
  static String createLive(String table, List<String> columns) {
    StringBuilder cols = new StringBuilder();
    for (String c : columns) {
      cols.append(cols.isEmpty() ? "" : ", ").append("s.").append(DuckDbDialect.quote(c));
    }
    return "CREATE TEMP VIEW " + table + "_live AS SELECT " + cols + " FROM " + located(table);
  }

  /**
   * The FROM clause of the live rows of {@code <table>_src} (alias {@code s}) with their data file
   * as the table's metadata names it ({@code f.location}).
   */
  static String located(String table) {
    return table
        + "_src s JOIN "
        + table
        + "_files f ON s.filename = f.path WHERE NOT EXISTS (SELECT 1 FROM "
        + table
        + "_deletes d WHERE d.file_path = f.location AND d.pos = s.file_row_number)";
  }

  /** The live rows of the curated table with their data files. */
  static final String CURATED_LOCATED = located("curated");

  /** No keys, for a referenced table without data files. */
  static final String NO_KEYS = "SELECT CAST(NULL AS VARCHAR) AS tidemark_key WHERE false";

  /** An empty {@code curated_valued}, for a table without data files. */
  static String emptyCuratedValued(int comparedColumns) {
    StringBuilder sql =
        new StringBuilder(
            "CREATE TEMP VIEW curated_valued AS SELECT CAST(NULL AS VARCHAR) AS key,"
                + " CAST(NULL AS BIGINT) AS marker, CAST(NULL AS VARCHAR) AS data_file");
    for (int i = 0; i < comparedColumns; i++) {
      sql.append(", CAST(NULL AS VARCHAR) AS ").append(ReconciliationSql.valueColumn(i));
    }
    return sql.append(" WHERE false").toString();
  }

  /** An empty {@code raw_valued}, for a request without raw files. */
  static String emptyRawValued(int comparedColumns) {
    StringBuilder sql =
        new StringBuilder(
            "CREATE TEMP VIEW raw_valued AS SELECT key, marker, is_delete, src, pos, part_date");
    for (int i = 0; i < comparedColumns; i++) {
      sql.append(", CAST(NULL AS VARCHAR) AS ").append(ReconciliationSql.valueColumn(i));
    }
    return sql.append(" FROM raw_versions").toString();
  }

  static String emptyCanonicalRaw() {
    return "CREATE TEMP TABLE raw_versions (key VARCHAR, marker BIGINT, is_delete BOOLEAN,"
        + " row_hash UBIGINT, src VARCHAR, src_ord BIGINT, pos BIGINT, part_date DATE)";
  }

  static String emptyCanonicalCurated() {
    return "CREATE TEMP TABLE curated_rows (key VARCHAR, marker BIGINT, row_hash UBIGINT)";
  }
}
