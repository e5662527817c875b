package io.tidemark.reconcile.engine.athena;

import io.tidemark.model.config.ChangeMarkerType;
import io.tidemark.model.config.DatasetSpec;
import io.tidemark.model.contract.DatasetContract;
import io.tidemark.model.contract.athena.AthenaRawTable;
import io.tidemark.model.contract.athena.AthenaRawTables;
import io.tidemark.model.json.Checks;
import io.tidemark.reconcile.kernel.EngineException;
import java.time.LocalDate;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The raw layer of one dataset as a SQL table: an external Parquet table over {@code
 * <location>/<partition>=YYYY-MM-DD/}, partitioned by the date folder, with partition projection so
 * that Athena needs no crawler and no {@code MSCK REPAIR}: a query's predicate on the partition
 * column names the folders it reads.
 *
 * <p>Its columns follow the data contract: keys take the raw files' own type (text or an integer,
 * read from their footers by {@link io.tidemark.reconcile.storage.RawKeyTypes}: the curated table
 * holds every key as text, so it cannot tell); the change marker, the operation column and the
 * compared columns keep the curated table's types (what a raw file must carry to be valid). The
 * same columns serve the Athena DDL, the Trino DDL that proves it, and the types the {@link
 * TrinoDialect} reads.
 */
public final class RawTable {
  /**
   * The first date partition projection enumerates by default; older folders are not read. Every
   * day from it on is a prefix the engine probes on a query without a date predicate (a FULL
   * reconciliation), so a start close to the oldest raw folder keeps those queries fast: on Trino
   * planning a FULL query over six years of projected days takes 10-30 s, over a month well under
   * one.
   */
  public static final LocalDate PROJECTION_START_DEFAULT = LocalDate.of(2020, 1, 1);

  /**
   * The last date partition projection enumerates, relative to the query's start: a day ahead, so
   * that a file an exporter ahead of UTC lands in tomorrow's folder is still read (Athena and Trino
   * read the same expression).
   */
  static final String PROJECTION_END = "NOW+1DAYS";

  private static final Pattern LOCATION = Pattern.compile("^(s3|file|local)://[^'\\\\\\s]+$");

  private RawTable() {}

  /**
   * The raw table's data columns (lower-case name to contract type name), without the partition
   * column, in contract order.
   *
   * @param curatedTypes the curated table's columns as contract type names
   */
  public static Map<String, String> columns(DatasetSpec spec, Map<String, String> curatedTypes) {
    return columns(spec, curatedTypes, Map.of());
  }

  /**
   * The raw table's data columns with the key columns at the raw files' types.
   *
   * @param keyTypes the key columns' types in the raw files (lower-case names to contract type
   *     names); a key it lacks is text
   */
  public static Map<String, String> columns(
      DatasetSpec spec, Map<String, String> curatedTypes, Map<String, String> keyTypes) {
    Map<String, String> out = new LinkedHashMap<>();
    for (String k : spec.keyColumns()) {
      out.put(lower(k), keyTypes.getOrDefault(lower(k), "string"));
    }
    String marker = lower(spec.changeMarker().column());
    String markerType = curatedTypes.get(marker);
    if (markerType == null) {
      markerType =
          spec.changeMarker().type() == ChangeMarkerType.TIMESTAMP ? "timestamp" : "bigint";
    }
    out.put(marker, markerType);
    if (spec.operationColumn() != null) {
      out.put(lower(spec.operationColumn()), "string");
    }
    for (String c : spec.comparedColumns()) {
      String type = curatedTypes.get(lower(c));
      if (type == null) {
        throw new EngineException(
            "Cannot define the raw table of dataset "
                + spec.name()
                + ": compared column '"
                + c
                + "' is not in the curated table, which has "
                + curatedTypes.keySet());
      }
      out.putIfAbsent(lower(c), type);
    }
    return out;
  }

  /** {@link #columns} plus the partition column, as text: the types the dialect reads. */
  public static Map<String, String> readTypes(DatasetSpec spec, Map<String, String> curatedTypes) {
    Map<String, String> out = new LinkedHashMap<>(columns(spec, curatedTypes));
    out.put(lower(spec.raw().partitionColumn()), "string");
    return out;
  }

  /**
   * Athena's DDL (Hive DDL, run once in the Glue database): an external Parquet table with
   * partition projection on the date folder.
   *
   * @param table {@code database.table}
   * @param location the dataset's raw folder, {@code s3://bucket/prefix/dataset}
   * @param projectionStart the oldest date folder the table reads
   */
  public static String athenaDdl(
      DatasetSpec spec,
      Map<String, String> curatedTypes,
      String table,
      String location,
      LocalDate projectionStart) {
    return athenaDdl(spec, curatedTypes, Map.of(), table, location, projectionStart);
  }

  /**
   * Athena's DDL with the key columns at the raw files' types.
   *
   * @param keyTypes the key columns' types in the raw files ({@link
   *     io.tidemark.reconcile.storage.RawKeyTypes}); a key it lacks is text
   */
  public static String athenaDdl(
      DatasetSpec spec,
      Map<String, String> curatedTypes,
      Map<String, String> keyTypes,
      String table,
      String location,
      LocalDate projectionStart) {
    String partition = lower(spec.raw().partitionColumn());
    StringBuilder ddl = new StringBuilder("CREATE EXTERNAL TABLE IF NOT EXISTS ");
    ddl.append(backquoted(table)).append(" (\n");
    List<Map.Entry<String, String>> cols =
        List.copyOf(columns(spec, curatedTypes, keyTypes).entrySet());
    for (int i = 0; i < cols.size(); i++) {
      ddl.append("  `")
          .append(identifier(cols.get(i).getKey()))
          .append("` ")
          .append(hiveType(cols.get(i).getValue()))
          .append(i + 1 < cols.size() ? ",\n" : "\n");
    }
    String root = location(location);
    return ddl.append(")\nPARTITIONED BY (`")
        .append(identifier(partition))
        .append("` string)\nSTORED AS PARQUET\nLOCATION '")
        .append(root)
        .append("/'\nTBLPROPERTIES (\n  'projection.enabled' = 'true',\n  'projection.")
        .append(partition)
        .append(".type' = 'date',\n  'projection.")
        .append(partition)
        .append(".format' = 'yyyy-MM-dd',\n  'projection.")
        .append(partition)
        .append(".range' = '")
        .append(projectionStart)
        .append(",")
        .append(PROJECTION_END)
        .append("',\n  'projection.")
        .append(partition)
        .append(".interval' = '1',\n  'projection.")
        .append(partition)
        .append(".interval.unit' = 'DAYS',\n  'storage.location.template' = '")
        .append(root)
        .append("/")
        .append(partition)
        .append("=${")
        .append(partition)
        .append("}/'\n)")
        .toString();
  }

  /**
   * Athena's DDL of a contract's raw tables, as the stack creates them in Glue: the one definition
   * of {@link AthenaRawTables} (the declared columns at their Hive types, in contract order, the
   * layout's partition keys and projection), one statement per table, each ending in {@code ;}.
   *
   * @param contract the dataset contract
   * @param database the Glue database the tables are in; null for unqualified names
   * @param location the dataset's raw folder as Athena reads it
   * @param projectionStart the oldest date folder a projected table reads
   */
  public static String athenaDdl(
      DatasetContract contract, String database, String location, LocalDate projectionStart) {
    StringBuilder out = new StringBuilder();
    for (AthenaRawTable t : AthenaRawTables.tables(contract, location(location))) {
      out.append(athenaDdl(t, database, projectionStart)).append(";\n");
    }
    return out.toString();
  }

  private static String athenaDdl(AthenaRawTable t, String database, LocalDate projectionStart) {
    String name = database == null ? t.name() : database + "." + t.name();
    StringBuilder ddl = new StringBuilder("CREATE EXTERNAL TABLE IF NOT EXISTS ");
    ddl.append(backquoted(name)).append(" (\n");
    List<Map.Entry<String, String>> cols = List.copyOf(t.columns().entrySet());
    for (int i = 0; i < cols.size(); i++) {
      ddl.append("  `")
          .append(identifier(cols.get(i).getKey()))
          .append("` ")
          .append(hiveType(cols.get(i).getValue()))
          .append(i + 1 < cols.size() ? ",\n" : "\n");
    }
    ddl.append(")\n");
    if (t.partitioned()) {
      ddl.append("PARTITIONED BY (");
      List<String> keys = t.partitionKeyNames();
      for (int i = 0; i < keys.size(); i++) {
        ddl.append(i == 0 ? "`" : ", `")
            .append(identifier(keys.get(i)))
            .append("` ")
            .append(AthenaRawTable.PARTITION_KEY_TYPE);
      }
      ddl.append(")\n");
    }
    ddl.append("STORED AS PARQUET\nLOCATION '").append(t.location()).append("/'");
    Map<String, String> props = t.parameters(projectionStart);
    if (!props.isEmpty()) {
      ddl.append("\nTBLPROPERTIES (\n");
      List<Map.Entry<String, String>> ps = List.copyOf(props.entrySet());
      for (int i = 0; i < ps.size(); i++) {
        ddl.append("  '")
            .append(ps.get(i).getKey())
            .append("' = '")
            .append(ps.get(i).getValue().replace("'", "''"))
            .append(i + 1 < ps.size() ? "',\n" : "'\n");
      }
      ddl.append(")");
    }
    return ddl.toString();
  }

  /**
   * The same table in Trino's DDL (Trino's Hive connector implements Athena's partition projection
   * as table and column properties): what the tests run on a real Trino.
   *
   * @param table {@code catalog.schema.table}
   * @param location the dataset's raw folder as Trino reads it
   * @param projectionStart the oldest date folder the table reads
   */
  public static String trinoDdl(
      DatasetSpec spec,
      Map<String, String> curatedTypes,
      String table,
      String location,
      LocalDate projectionStart) {
    return trinoDdl(spec, curatedTypes, Map.of(), table, location, projectionStart);
  }

  /** Trino's DDL with the key columns at the raw files' types (see {@link #athenaDdl}). */
  public static String trinoDdl(
      DatasetSpec spec,
      Map<String, String> curatedTypes,
      Map<String, String> keyTypes,
      String table,
      String location,
      LocalDate projectionStart) {
    String partition = lower(spec.raw().partitionColumn());
    StringBuilder ddl = new StringBuilder("CREATE TABLE ");
    ddl.append(TrinoDialect.quoteTable(table)).append(" (\n");
    for (Map.Entry<String, String> c : columns(spec, curatedTypes, keyTypes).entrySet()) {
      ddl.append("  ")
          .append(TrinoDialect.quote(c.getKey()))
          .append(" ")
          .append(trinoType(c.getValue()))
          .append(",\n");
    }
    String root = location(location);
    return ddl.append("  ")
        .append(TrinoDialect.quote(partition))
        .append(" varchar WITH (partition_projection_type = 'date',")
        .append(" partition_projection_format = 'yyyy-MM-dd', partition_projection_range = ARRAY['")
        .append(projectionStart)
        .append("', '")
        .append(PROJECTION_END)
        .append("'], partition_projection_interval = 1,")
        .append(" partition_projection_interval_unit = 'DAYS')\n) WITH (\n")
        .append("  format = 'PARQUET',\n  external_location = '")
        .append(root)
        .append("',\n  partitioned_by = ARRAY['")
        .append(partition)
        .append("'],\n  partition_projection_enabled = true\n)")
        .toString();
  }

  /**
   * The Trino twin of {@link #athenaDdl(DatasetContract, String, String, LocalDate)}: the same
   * tables of {@link AthenaRawTables} (declared columns at their types, in contract order; the
   * layout's partition keys as {@code varchar} columns with Trino's partition projection and the
   * same location template; DMS's {@value AthenaRawTables#ALL_SUFFIX} table and flat layouts not
   * partitioned), one statement per table, without a trailing {@code ;}. Trino reads an
   * unpartitioned table's sub-folders only with {@code hive.recursive-directories} on, as Athena
   * always does.
   *
   * @param schema the tables' {@code catalog.schema}
   * @param location the dataset's raw folder as Trino reads it
   * @param projectionStart the oldest date folder a projected table reads
   */
  public static List<String> trinoDdl(
      DatasetContract contract, String schema, String location, LocalDate projectionStart) {
    List<String> out = new java.util.ArrayList<>();
    for (AthenaRawTable t : AthenaRawTables.tables(contract, location(location))) {
      out.add(trinoDdl(t, schema, projectionStart));
    }
    return out;
  }

  private static String trinoDdl(AthenaRawTable t, String schema, LocalDate projectionStart) {
    StringBuilder ddl = new StringBuilder("CREATE TABLE ");
    ddl.append(TrinoDialect.quoteTable(schema + "." + t.name())).append(" (\n");
    List<String> cols = new java.util.ArrayList<>();
    for (Map.Entry<String, String> c : t.columns().entrySet()) {
      cols.add("  " + TrinoDialect.quote(c.getKey()) + " " + trinoType(c.getValue()));
    }
    for (io.tidemark.model.contract.athena.PartitionProjection p : t.partitionKeys()) {
      StringBuilder col = new StringBuilder("  ");
      col.append(TrinoDialect.quote(p.key())).append(" varchar WITH (");
      if (p instanceof io.tidemark.model.contract.athena.DateProjection d) {
        col.append("partition_projection_type = 'date', partition_projection_format = '")
            .append(d.format().replace("'", "''"))
            .append("', partition_projection_range = ARRAY['")
            .append(d.value(projectionStart))
            .append("', '")
            .append(io.tidemark.model.contract.athena.DateProjection.END)
            .append("'], partition_projection_interval = 1, partition_projection_interval_unit = '")
            .append(d.intervalUnit())
            .append("')");
      } else if (p instanceof io.tidemark.model.contract.athena.IntegerProjection i) {
        col.append("partition_projection_type = 'integer', partition_projection_range = ARRAY['")
            .append(i.min())
            .append("', '")
            .append(i.max())
            .append("'], partition_projection_digits = ")
            .append(i.digits())
            .append(")");
      } else {
        throw new EngineException("Cannot declare partition key " + p.key() + " on Trino");
      }
      cols.add(col.toString());
    }
    ddl.append(String.join(",\n", cols)).append("\n) WITH (\n  format = 'PARQUET',\n");
    ddl.append("  external_location = '").append(t.location()).append("'");
    if (t.partitioned()) {
      ddl.append(",\n  partitioned_by = ARRAY[");
      List<String> keys = t.partitionKeyNames();
      for (int i = 0; i < keys.size(); i++) {
        ddl.append(i == 0 ? "'" : ", '").append(identifier(keys.get(i))).append("'");
      }
      ddl.append("],\n  partition_projection_enabled = true,\n")
          .append("  partition_projection_location_template = '")
          .append(t.locationTemplate())
          .append("'");
    }
    return ddl.append("\n)").toString();
  }

  static String hiveType(String contractType) {
    String t = contractType.toLowerCase(Locale.ROOT);
    if (t.startsWith("decimal(")) {
      return t;
    }
    return switch (t) {
      case "string",
          "int",
          "bigint",
          "smallint",
          "tinyint",
          "double",
          "float",
          "boolean",
          "date",
          "binary" ->
          t;
      case "timestamp", "timestamp_ntz" -> "timestamp";
      default -> throw new EngineException("Cannot declare a raw column of type " + contractType);
    };
  }

  static String trinoType(String contractType) {
    String t = contractType.toLowerCase(Locale.ROOT);
    if (t.startsWith("decimal(")) {
      return t;
    }
    return switch (t) {
      case "string" -> "varchar";
      case "int" -> "integer";
      case "float" -> "real";
      case "binary" -> "varbinary";
      case "timestamp", "timestamp_ntz" -> "timestamp(3)";
      case "bigint", "smallint", "tinyint", "double", "boolean", "date" -> t;
      default -> throw new EngineException("Cannot declare a raw column of type " + contractType);
    };
  }

  private static String backquoted(String table) {
    StringBuilder out = new StringBuilder();
    for (String part : table.split("\\.", -1)) {
      out.append(out.isEmpty() ? "" : ".").append('`').append(identifier(part)).append('`');
    }
    return out.toString();
  }

  private static String identifier(String name) {
    return Checks.identifier("identifier", name).toLowerCase(Locale.ROOT);
  }

  private static String location(String location) {
    String root = location.endsWith("/") ? location.substring(0, location.length() - 1) : location;
    if (!LOCATION.matcher(root).matches()) {
      throw new IllegalArgumentException(
          "Cannot use raw location '"
              + location
              + "' in DDL: expected s3://bucket/prefix (or file:// for a local engine), without"
              + " quotes, backslashes or white space");
    }
    return root;
  }

  private static String lower(String s) {
    return s.toLowerCase(Locale.ROOT);
  }
}
