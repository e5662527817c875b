package io.tidemark.ingest.merge;

import io.tidemark.ingest.ErrorCode;
import io.tidemark.ingest.IngestException;
import io.tidemark.ingest.config.IngestSettings;
import io.tidemark.ingest.validate.Cols;
import io.tidemark.model.config.ChangeMarkerType;
import io.tidemark.model.config.DatasetSpec;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.iceberg.Table;
import org.apache.iceberg.spark.Spark3Util;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The job's three Iceberg tables and the SQL that writes them. Identifiers in the SQL come only
 * from validated config (letters, digits, underscores) and are quoted anyway.
 *
 * <ul>
 *   <li>curated: keys, change marker, payload; one row per live key
 *   <li>quarantine: rejected records with reason, source file, batch id and original values
 *   <li>tombstones: keys and change marker of applied deletes, so that an older version arriving
 *       after a delete cannot bring the key back
 * </ul>
 */
public final class IcebergTables {
  private static final Logger LOG = LoggerFactory.getLogger(IcebergTables.class);

  /**
   * Format v2, merge-on-read (position-delete files, so an incremental run writes in proportion to
   * its changes), serializable isolation (a MERGE fails rather than races a concurrent commit).
   */
  public static final Map<String, String> TABLE_PROPERTIES =
      Map.of(
          "format-version", "2",
          "write.merge.mode", "merge-on-read",
          "write.update.mode", "merge-on-read",
          "write.delete.mode", "merge-on-read",
          "write.merge.isolation-level", "serializable",
          "write.update.isolation-level", "serializable",
          "write.delete.isolation-level", "serializable");

  public static final StructType QUARANTINE_SCHEMA =
      new StructType()
          .add("batch_id", DataTypes.StringType, false)
          .add("run_id", DataTypes.StringType, false)
          .add("quarantined_at", DataTypes.TimestampType, false)
          .add("source_file", DataTypes.StringType, false)
          .add("row_number", DataTypes.LongType, false)
          .add("reason", DataTypes.StringType, false)
          .add("detail", DataTypes.StringType, true)
          .add("original_values", DataTypes.StringType, true);

  private final SparkSession spark;
  private final IngestSettings settings;
  private final DatasetSpec spec;

  public IcebergTables(SparkSession spark, IngestSettings settings) {
    this.spark = spark;
    this.settings = settings;
    this.spec = settings.dataset();
  }

  /** The curated table's columns: keys, change marker, payload. */
  public List<String> curatedColumns() {
    List<String> cols = new ArrayList<>(spec.keyColumns());
    cols.add(spec.changeMarker().column());
    cols.addAll(spec.comparedColumns());
    return cols;
  }

  public DataType markerType() {
    return spec.changeMarker().type() == ChangeMarkerType.TIMESTAMP
        ? DataTypes.TimestampType
        : DataTypes.LongType;
  }

  /** The curated table, freshly loaded; null when it does not exist. */
  public Table loadCurated() {
    return load(settings.curatedSparkName());
  }

  public Table load(String sparkName) {
    try {
      return Spark3Util.loadIcebergTable(spark, sparkName);
    } catch (org.apache.spark.sql.catalyst.analysis.NoSuchTableException e) {
      return null;
    } catch (org.apache.spark.sql.catalyst.parser.ParseException e) {
      throw new IngestException(
          ErrorCode.INVALID_CONFIG,
          "Cannot parse table name " + sparkName + ": " + e.getMessage(),
          e);
    }
  }

  /**
   * The key and payload column types of the existing curated table, checking it has the contract's
   * columns; null when the table does not exist.
   */
  public Map<String, DataType> curatedTypes() {
    if (loadCurated() == null) {
      return null;
    }
    StructType schema = spark.table(settings.curatedSparkName()).schema();
    Map<String, DataType> actual = new LinkedHashMap<>();
    for (StructField f : schema.fields()) {
      actual.put(f.name(), f.dataType());
    }
    List<String> missing = curatedColumns().stream().filter(c -> !actual.containsKey(c)).toList();
    if (!missing.isEmpty()) {
      throw new IngestException(
          ErrorCode.TABLE_MISMATCH,
          "Cannot ingest into "
              + settings.curatedSparkName()
              + ": the table lacks contract column(s) "
              + missing
              + " (it has "
              + actual.keySet()
              + ")");
    }
    DataType marker = actual.get(spec.changeMarker().column());
    if (!marker.equals(markerType())) {
      throw new IngestException(
          ErrorCode.TABLE_MISMATCH,
          "Cannot ingest into "
              + settings.curatedSparkName()
              + ": change marker "
              + spec.changeMarker().column()
              + " is "
              + marker.simpleString()
              + " in the table but the dataset says "
              + spec.changeMarker().type());
    }
    Map<String, DataType> types = new LinkedHashMap<>();
    spec.keyColumns().forEach(k -> types.put(k, actual.get(k)));
    spec.comparedColumns().forEach(c -> types.put(c, actual.get(c)));
    return types;
  }

  /** Creates the namespaces and the three tables when missing. */
  public void ensureTables(Map<String, DataType> columnTypes) {
    List<String> curated = new ArrayList<>();
    for (String c : curatedColumns()) {
      DataType t = c.equals(spec.changeMarker().column()) ? markerType() : columnTypes.get(c);
      if (t == null) {
        throw new IngestException(
            ErrorCode.INTERNAL_ERROR, "Cannot create the curated table: no type for column " + c);
      }
      curated.add(q(c) + " " + t.sql());
    }
    List<String> tomb = new ArrayList<>();
    for (String k : spec.keyColumns()) {
      tomb.add(q(k) + " " + columnTypes.get(k).sql());
    }
    tomb.add(q(spec.changeMarker().column()) + " " + markerType().sql());
    tomb.add("batch_id STRING");
    List<String> quarantine = new ArrayList<>();
    for (StructField f : QUARANTINE_SCHEMA.fields()) {
      quarantine.add(q(f.name()) + " " + f.dataType().sql());
    }
    create(settings.curatedSparkName(), curated);
    create(settings.quarantineSparkName(), quarantine);
    create(settings.tombstoneSparkName(), tomb);
  }

  private void create(String name, List<String> columns) {
    String ns = name.substring(0, name.lastIndexOf('.'));
    String props =
        TABLE_PROPERTIES.entrySet().stream()
            .sorted(Map.Entry.comparingByKey())
            .map(e -> "'" + e.getKey() + "'='" + e.getValue() + "'")
            .collect(Collectors.joining(", "));
    try {
      spark.sql("CREATE NAMESPACE IF NOT EXISTS " + ns);
    } catch (RuntimeException e) {
      if (!isAlreadyExists(e)) {
        throw e;
      }
    }
    if (load(name) != null) {
      return;
    }
    LOG.info("Creating Iceberg table {} ({})", name, String.join(", ", columns));
    try {
      spark.sql(
          "CREATE TABLE IF NOT EXISTS "
              + name
              + " ("
              + String.join(", ", columns)
              + ") USING iceberg TBLPROPERTIES ("
              + props
              + ")");
    } catch (RuntimeException e) {
      if (!isAlreadyExists(e)) {
        throw e;
      }
      LOG.info("Table {} was created by another run at the same time", name);
    }
  }

  private static boolean isAlreadyExists(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      String n = t.getClass().getSimpleName();
      if (n.contains("AlreadyExists")) {
        return true;
      }
    }
    return false;
  }

  /**
   * The curated MERGE, with the version guard: update only when the incoming marker is newer,
   * delete on D when not older, insert when absent, not D, and not older than a remembered delete.
   *
   * @param view a temp view with key and payload columns, {@link Cols#MARKER}, {@link Cols#OP} and
   *     {@link MergePlanner#TOMBSTONE_MARKER}
   * @param target the Spark identifier written: the curated table or one of its branches (see
   *     {@link RunBranches#sparkName})
   */
  public String curatedMergeSql(String view, String target) {
    String m = q(spec.changeMarker().column());
    String sm = "s." + Cols.MARKER;
    List<String> payload = spec.comparedColumns();
    String set =
        payload.stream().map(c -> "t." + q(c) + " = s." + q(c)).collect(Collectors.joining(", "));
    set = (set.isEmpty() ? "" : set + ", ") + "t." + m + " = " + sm;
    List<String> cols = curatedColumns();
    String insertCols = cols.stream().map(IcebergTables::q).collect(Collectors.joining(", "));
    String insertVals =
        cols.stream()
            .map(c -> c.equals(spec.changeMarker().column()) ? sm : "s." + q(c))
            .collect(Collectors.joining(", "));
    return "MERGE INTO "
        + target
        + " t USING "
        + view
        + " s ON "
        + keyCondition()
        + " WHEN MATCHED AND s."
        + Cols.OP
        + " = 'D' AND "
        + sm
        + " >= t."
        + m
        + " THEN DELETE"
        + " WHEN MATCHED AND s."
        + Cols.OP
        + " = 'U' AND "
        + sm
        + " > t."
        + m
        + " THEN UPDATE SET "
        + set
        + " WHEN NOT MATCHED AND s."
        + Cols.OP
        + " = 'U' AND (s."
        + MergePlanner.TOMBSTONE_MARKER
        + " IS NULL OR "
        + sm
        + " > s."
        + MergePlanner.TOMBSTONE_MARKER
        + ") THEN INSERT ("
        + insertCols
        + ") VALUES ("
        + insertVals
        + ")";
  }

  /** Remembers deletes: keeps the newest delete marker per key. */
  public String tombstoneMergeSql(String view) {
    String m = q(spec.changeMarker().column());
    String keys =
        spec.keyColumns().stream().map(IcebergTables::q).collect(Collectors.joining(", "));
    String keyVals =
        spec.keyColumns().stream().map(k -> "s." + q(k)).collect(Collectors.joining(", "));
    return "MERGE INTO "
        + settings.tombstoneSparkName()
        + " t USING "
        + view
        + " s ON "
        + keyCondition()
        + " WHEN MATCHED AND s."
        + Cols.MARKER
        + " > t."
        + m
        + " THEN UPDATE SET t."
        + m
        + " = s."
        + Cols.MARKER
        + ", t.batch_id = s.batch_id"
        + " WHEN NOT MATCHED THEN INSERT ("
        + keys
        + ", "
        + m
        + ", batch_id) VALUES ("
        + keyVals
        + ", s."
        + Cols.MARKER
        + ", s.batch_id)";
  }

  /**
   * Quarantine rows keyed by (source file, row number): a retried batch replaces its own rows
   * instead of adding them twice.
   */
  public String quarantineMergeSql(String view) {
    return "MERGE INTO "
        + settings.quarantineSparkName()
        + " t USING "
        + view
        + " s ON t.source_file = s.source_file AND t.row_number = s.row_number"
        + " WHEN MATCHED THEN UPDATE SET *"
        + " WHEN NOT MATCHED THEN INSERT *";
  }

  private String keyCondition() {
    return spec.keyColumns().stream()
        .map(k -> "t." + q(k) + " = s." + q(k))
        .collect(Collectors.joining(" AND "));
  }

  static String q(String identifier) {
    return "`" + identifier.replace("`", "``") + "`";
  }
}
