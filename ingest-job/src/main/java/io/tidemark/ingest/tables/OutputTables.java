package io.tidemark.ingest.tables;

import io.tidemark.ingest.config.IngestSettings;
import io.tidemark.ingest.kernel.DeclaredTypes;
import io.tidemark.ingest.kernel.IngestException;
import io.tidemark.model.config.LocalPaths;
import io.tidemark.model.contract.DatasetContract;
import io.tidemark.model.report.IngestErrorCode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.UpdateProperties;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.spark.Spark3Util;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Loads, checks and creates the job's three output tables (their SQL is in {@link TableSql}):
 *
 * <ul>
 *   <li>curated: keys, change marker, payload; one row per live key
 *   <li>quarantine: rejected records with reason, source file, batch id and original values
 *   <li>tombstones: keys and change marker of applied deletes, so that an older version arriving
 *       after a delete cannot bring the key back; appended, so a key deleted twice is there twice
 *       and its newest marker is the one that counts
 * </ul>
 */
public final class OutputTables {
  private static final Logger LOG = LoggerFactory.getLogger(OutputTables.class);

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

  /**
   * The quarantine table keeps its {@code source_file} bounds whole, not truncated to 16 characters
   * (Iceberg's default for strings), where every path of a raw layer starts alike: a batch's
   * quarantine MERGE then skips the files of other batches' raw files.
   */
  public static final Map<String, String> QUARANTINE_PROPERTIES =
      Map.of("write.metadata.metrics.column.source_file", "full");

  /** When a quarantine replay merged the row into the curated table; null until then. */
  public static final String REPLAYED_AT = "replayed_at";

  /** The batch id of the replay that merged the row; null until then. */
  public static final String REPLAY_BATCH_ID = "replay_batch_id";

  /**
   * The quarantine table. Rows are kept for audit after a replay: {@link #REPLAYED_AT} and {@link
   * #REPLAY_BATCH_ID} say that and when they were merged after all.
   */
  public static final StructType QUARANTINE_SCHEMA =
      new StructType()
          .add("batch_id", DataTypes.StringType, false)
          .add("run_id", DataTypes.StringType, false)
          .add("quarantined_at", DataTypes.TimestampType, false)
          .add("source_file", DataTypes.StringType, false)
          .add("row_number", DataTypes.LongType, false)
          .add("reason", DataTypes.StringType, false)
          .add("detail", DataTypes.StringType, true)
          .add("original_values", DataTypes.StringType, true)
          .add(REPLAYED_AT, DataTypes.TimestampType, true)
          .add(REPLAY_BATCH_ID, DataTypes.StringType, true);

  private final SparkSession spark;
  private final IngestSettings settings;
  private final DatasetContract spec;

  public OutputTables(SparkSession spark, IngestSettings settings) {
    this.spark = spark;
    this.settings = settings;
    this.spec = settings.dataset();
  }

  /** The curated table's columns: keys, change marker, payload. */
  public List<String> curatedColumns() {
    return TableSql.curatedColumns(spec);
  }

  public DataType markerType() {
    return DeclaredTypes.marker(spec);
  }

  /** The curated table, freshly loaded; null when it does not exist. */
  public Table loadCurated() {
    return load(settings.curatedSparkName());
  }

  public Table load(String sparkName) {
    try {
      return requireAbsoluteLocation(sparkName, Spark3Util.loadIcebergTable(spark, sparkName));
    } catch (org.apache.iceberg.exceptions.NotFoundException e) {
      // The catalog names a metadata file that is not there: relative to another folder?
      String prefix = "for file: ";
      String m = String.valueOf(e.getMessage());
      int at = m.indexOf(prefix);
      if (at >= 0 && LocalPaths.isRelative(m.substring(at + prefix.length()).trim())) {
        throw relativeLocation(sparkName, m.substring(at + prefix.length()).trim(), e);
      }
      throw e;
    } catch (org.apache.spark.sql.catalyst.analysis.NoSuchTableException e) {
      return null;
    } catch (org.apache.spark.sql.catalyst.parser.ParseException e) {
      throw new IngestException(
          IngestErrorCode.INVALID_CONFIG,
          "Cannot parse table name " + sparkName + ": " + e.getMessage(),
          e);
    }
  }

  /**
   * A table an older job given a relative {@code --warehouse} wrote: the catalog and its metadata
   * name places relative to the folder that job ran in, and every commit would go on doing so.
   */
  private static Table requireAbsoluteLocation(String sparkName, Table t) {
    if (LocalPaths.isRelative(t.location())) {
      throw relativeLocation(sparkName, t.location(), null);
    }
    return t;
  }

  private static IngestException relativeLocation(String sparkName, String location, Throwable e) {
    return new IngestException(
        IngestErrorCode.INVALID_CONFIG,
        "Cannot use table "
            + sparkName
            + ": the catalog records it at the relative location '"
            + location
            + "' (written by a run given a relative --warehouse), which each process resolves"
            + " against the folder it started in; rebuild the tables into a warehouse named by an"
            + " absolute path (the first run there loads every raw file)",
        e);
  }

  /**
   * The key and payload column types of the existing curated table, checking it has the contract's
   * columns with the declared types (a column of another type fails the run with TABLE_MISMATCH,
   * naming the column and both types); null when the table does not exist.
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
          IngestErrorCode.TABLE_MISMATCH,
          "Cannot ingest into "
              + settings.curatedSparkName()
              + ": the table lacks contract column(s) "
              + missing
              + " (it has "
              + actual.keySet()
              + ")");
    }
    Map<String, DataType> declared = new LinkedHashMap<>();
    declared.put(spec.changeMarker().column(), markerType());
    declared.putAll(DeclaredTypes.keysAndPayload(spec));
    for (Map.Entry<String, DataType> e : declared.entrySet()) {
      DataType has = actual.get(e.getKey());
      if (!has.equals(e.getValue())) {
        throw new IngestException(
            IngestErrorCode.TABLE_MISMATCH,
            "Cannot ingest into "
                + settings.curatedSparkName()
                + ": column "
                + e.getKey()
                + " is "
                + has.simpleString()
                + " in the table but the contract declares "
                + e.getValue().simpleString()
                + (e.getKey().equals(spec.changeMarker().column())
                    ? " (a " + spec.changeMarker().type() + " change marker)"
                    : ""));
      }
    }
    return DeclaredTypes.keysAndPayload(spec);
  }

  /** Creates the namespaces and the three tables when missing. */
  public void ensureTables() {
    Map<String, DataType> columnTypes = DeclaredTypes.keysAndPayload(spec);
    Map<String, String> curated = new LinkedHashMap<>();
    for (String c : curatedColumns()) {
      DataType t = c.equals(spec.changeMarker().column()) ? markerType() : columnTypes.get(c);
      if (t == null) {
        throw new IngestException(
            IngestErrorCode.INTERNAL_ERROR,
            "Cannot create the curated table: no type for column " + c);
      }
      curated.put(c, t.sql());
    }
    Map<String, String> tomb = new LinkedHashMap<>();
    for (String k : spec.keyColumns()) {
      tomb.put(k, columnTypes.get(k).sql());
    }
    tomb.put(spec.changeMarker().column(), markerType().sql());
    tomb.put("batch_id", DataTypes.StringType.sql());
    Map<String, String> quarantine = new LinkedHashMap<>();
    for (StructField f : QUARANTINE_SCHEMA.fields()) {
      quarantine.put(f.name(), f.dataType().sql());
    }
    create(settings.curatedSparkName(), curated, spec.curated().partitionBy(), Map.of());
    create(settings.quarantineSparkName(), quarantine, List.of(), QUARANTINE_PROPERTIES);
    create(settings.tombstoneSparkName(), tomb, List.of(), Map.of());
    // One load of the quarantine table for both upgrades: this runs before every batch's commit.
    Table q = load(settings.quarantineSparkName());
    if (q != null) {
      ensureReplayColumns(q);
      ensureQuarantineProperties(q);
    }
  }

  /**
   * Whether the quarantine table exists and has the replay columns (a table made before lacks
   * them).
   */
  public boolean hasReplayColumns() {
    Table q = load(settings.quarantineSparkName());
    return q != null
        && q.schema().findField(REPLAYED_AT) != null
        && q.schema().findField(REPLAY_BATCH_ID) != null;
  }

  /**
   * Adds the replay columns to a quarantine table created before them (Iceberg schema evolution:
   * metadata only, existing rows read them as null); does nothing when they are there or the table
   * does not exist.
   */
  public void ensureReplayColumns() {
    Table q = load(settings.quarantineSparkName());
    if (q != null) {
      ensureReplayColumns(q);
    }
  }

  private void ensureReplayColumns(Table q) {
    Map<String, String> missing = new LinkedHashMap<>();
    if (q.schema().findField(REPLAYED_AT) == null) {
      missing.put(REPLAYED_AT, DataTypes.TimestampType.sql());
    }
    if (q.schema().findField(REPLAY_BATCH_ID) == null) {
      missing.put(REPLAY_BATCH_ID, DataTypes.StringType.sql());
    }
    if (missing.isEmpty()) {
      return;
    }
    LOG.info("Adding the replay column(s) {} to {}", missing, settings.quarantineSparkName());
    spark.sql(TableSql.addColumns(settings.quarantineSparkName(), missing));
  }

  /**
   * Sets {@link #QUARANTINE_PROPERTIES} on a quarantine table created before them (metadata only:
   * the files written from then on carry whole bounds).
   */
  private void ensureQuarantineProperties(Table q) {
    Map<String, String> missing = new LinkedHashMap<>();
    QUARANTINE_PROPERTIES.forEach(
        (k, v) -> {
          if (!v.equals(q.properties().get(k))) {
            missing.put(k, v);
          }
        });
    if (missing.isEmpty()) {
      return;
    }
    LOG.info("Setting {} on {}", missing, settings.quarantineSparkName());
    UpdateProperties update = q.updateProperties();
    missing.forEach(update::set);
    update.commit();
  }

  private void create(
      String name,
      Map<String, String> columns,
      List<String> partitionBy,
      Map<String, String> properties) {
    String ns = name.substring(0, name.lastIndexOf('.'));
    try {
      spark.sql(TableSql.createNamespace(ns));
    } catch (RuntimeException e) {
      if (!isAlreadyExists(e)) {
        throw e;
      }
    }
    if (load(name) != null) {
      return;
    }
    LOG.info("Creating Iceberg table {} ({})", name, columns);
    try {
      Map<String, String> all = new LinkedHashMap<>(TABLE_PROPERTIES);
      all.putAll(properties);
      spark.sql(TableSql.createTable(name, columns, partitionBy, all));
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

  /** The table's current snapshot id; -1 when the table or its snapshot does not exist. */
  public static long snapshotId(Table t) {
    return t == null || t.currentSnapshot() == null ? -1 : t.currentSnapshot().snapshotId();
  }

  /** Whether the table's current snapshot holds any data file with rows (metadata only). */
  public static boolean hasData(Table t) {
    if (t == null || t.currentSnapshot() == null) {
      return false;
    }
    try (CloseableIterable<FileScanTask> tasks = t.newScan().planFiles()) {
      for (FileScanTask task : tasks) {
        if (task.file().recordCount() > 0) {
          return true;
        }
      }
      return false;
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot list the data files of " + t.name(), e);
    }
  }
}
