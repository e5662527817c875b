package io.tidemark.ingest.tables;

import static io.tidemark.ingest.kernel.SqlNames.quote;

import io.tidemark.model.config.DatasetSpec;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The statements that make and read the output tables: namespaces, tables, added columns, and the
 * curated table as of a snapshot. (What a batch writes into them is the commit's: see {@code
 * commit.CommitSql}.)
 */
public final class TableSql {
  private TableSql() {}

  /** The curated table's columns: keys, change marker, payload. */
  public static List<String> curatedColumns(DatasetSpec spec) {
    List<String> cols = new ArrayList<>(spec.keyColumns());
    cols.add(spec.changeMarker().column());
    cols.addAll(spec.comparedColumns());
    return cols;
  }

  public static String createNamespace(String namespace) {
    return "CREATE NAMESPACE IF NOT EXISTS " + namespace;
  }

  /**
   * @param columns column name -> Spark SQL type
   */
  public static String createTable(
      String table, Map<String, String> columns, Map<String, String> properties) {
    String cols =
        columns.entrySet().stream()
            .map(e -> quote(e.getKey()) + " " + e.getValue())
            .collect(Collectors.joining(", "));
    String props =
        properties.entrySet().stream()
            .sorted(Map.Entry.comparingByKey())
            .map(e -> "'" + e.getKey() + "'='" + e.getValue() + "'")
            .collect(Collectors.joining(", "));
    return "CREATE TABLE IF NOT EXISTS "
        + table
        + " ("
        + cols
        + ") USING iceberg TBLPROPERTIES ("
        + props
        + ")";
  }

  /**
   * @param columns column name -> Spark SQL type, added as nullable columns
   */
  public static String addColumns(String table, Map<String, String> columns) {
    return "ALTER TABLE "
        + table
        + " ADD COLUMNS ("
        + columns.entrySet().stream()
            .map(e -> quote(e.getKey()) + " " + e.getValue())
            .collect(Collectors.joining(", "))
        + ")";
  }

  /** A table as of a snapshot: the state a batch was planned against. */
  public static String asOf(String table, long snapshotId) {
    return "SELECT * FROM " + table + " VERSION AS OF " + snapshotId;
  }
}
