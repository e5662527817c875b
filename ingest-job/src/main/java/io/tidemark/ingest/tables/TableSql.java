package io.tidemark.ingest.tables;

import static io.tidemark.ingest.kernel.SqlNames.quote;

import io.tidemark.model.contract.DatasetContract;
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
  public static List<String> curatedColumns(DatasetContract spec) {
    List<String> cols = new ArrayList<>(spec.keyColumns());
    cols.add(spec.changeMarker().column());
    cols.addAll(spec.payloadColumns());
    return cols;
  }

  public static String createNamespace(String namespace) {
    return "CREATE NAMESPACE IF NOT EXISTS " + namespace;
  }

  /**
   * @param columns column name -> Spark SQL type
   */
  public static String createTable(
      String table,
      Map<String, String> columns,
      List<String> partitionBy,
      Map<String, String> properties) {
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
        + ") USING iceberg "
        + (partitionBy.isEmpty()
            ? ""
            : "PARTITIONED BY ("
                + partitionBy.stream().map(TableSql::transform).collect(Collectors.joining(", "))
                + ") ")
        + "TBLPROPERTIES ("
        + props
        + ")";
  }

  /**
   * A contract's partition transform ({@code month(order_date)}, {@code bucket(16, id)}, {@code
   * region}) as Iceberg's Spark DDL writes it ({@code months(`order_date`)}).
   */
  static String transform(String contractTransform) {
    java.util.regex.Matcher m =
        java.util.regex.Pattern.compile("\\s*(\\w+)\\s*\\((.*)\\)\\s*").matcher(contractTransform);
    if (!m.matches()) {
      return quote(contractTransform.trim());
    }
    String fn = m.group(1).toLowerCase(java.util.Locale.ROOT);
    String[] args = m.group(2).split(",");
    String column = quote(args[args.length - 1].trim());
    return switch (fn) {
      case "year", "month", "day", "hour" -> fn + "s(" + column + ")";
      default -> fn + "(" + args[0].trim() + ", " + column + ")";
    };
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
    return asOf(table, snapshotId, "*");
  }

  /**
   * {@code columns} (a select list of validated, quoted identifiers and Iceberg's metadata columns)
   * of one snapshot of a table.
   */
  public static String asOf(String table, long snapshotId, String columns) {
    return "SELECT " + columns + " FROM " + table + " VERSION AS OF " + snapshotId;
  }
}
