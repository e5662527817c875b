package io.tidemark.ingest.sql;

import io.tidemark.ingest.config.IngestSettings;
import io.tidemark.ingest.merge.OutputTables;
import io.tidemark.ingest.validate.Cols;
import io.tidemark.model.config.DatasetSpec;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Collectors;

/**
 * Every SQL statement the job sends to Spark, and the one function that quotes identifiers in them.
 * Column names come from validated config (letters, digits, underscores) and are quoted anyway;
 * table names are the configured Spark identifiers ({@code catalog.namespace.table}).
 */
public final class IngestSql {
  private final DatasetSpec spec;
  private final IngestSettings settings;

  public IngestSql(IngestSettings settings) {
    this.settings = Objects.requireNonNull(settings, "settings is null");
    this.spec = settings.dataset();
  }

  /** Quotes one identifier for Spark SQL: {@code a`b} becomes {@code `a``b`}. */
  public static String quote(String identifier) {
    return "`" + identifier.replace("`", "``") + "`";
  }

  /** Each identifier quoted, for {@code Dataset.selectExpr}. */
  public static String[] quoteAll(List<String> identifiers) {
    return identifiers.stream().map(IngestSql::quote).toArray(String[]::new);
  }

  /** The curated table's columns: keys, change marker, payload. */
  public List<String> curatedColumns() {
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

  /** The curated table as of the snapshot a batch was planned against. */
  public String curatedAsOf(long snapshotId) {
    return "SELECT * FROM " + settings.curatedSparkName() + " VERSION AS OF " + snapshotId;
  }

  /**
   * The curated MERGE of a batch's updates and deletes, with the version guard: update only when
   * the incoming marker is newer, delete on D when not older. New keys are not merged but appended
   * ({@link #curatedInsert}): a MERGE that also inserts must outer-join its source to the whole
   * table, and so shuffle every row of it, where one that only matches can stream the table against
   * its source, broadcast.
   *
   * @param view a temp view with key and payload columns, {@link Cols#MARKER} and {@link Cols#OP}
   * @param target the Spark identifier written: the curated table or one of its branches
   */
  public String curatedMerge(String view, String target) {
    String m = quote(spec.changeMarker().column());
    String sm = "s." + Cols.MARKER;
    String set =
        spec.comparedColumns().stream()
            .map(c -> "t." + quote(c) + " = s." + quote(c))
            .collect(Collectors.joining(", "));
    set = (set.isEmpty() ? "" : set + ", ") + "t." + m + " = " + sm;
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
        + set;
  }

  /**
   * Appends new keys' rows.
   *
   * @param view a temp view with the curated table's columns
   * @param target the Spark identifier written: the curated table or one of its branches
   */
  public String curatedInsert(String view, String target) {
    String cols = curatedColumns().stream().map(IngestSql::quote).collect(Collectors.joining(", "));
    return "INSERT INTO " + target + " (" + cols + ") SELECT " + cols + " FROM " + view;
  }

  /** Remembers deletes: keeps the newest delete marker per key. */
  public String tombstoneMerge(String view) {
    String m = quote(spec.changeMarker().column());
    String keys =
        spec.keyColumns().stream().map(IngestSql::quote).collect(Collectors.joining(", "));
    String keyVals =
        spec.keyColumns().stream().map(k -> "s." + quote(k)).collect(Collectors.joining(", "));
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
  public String quarantineMerge(String view) {
    return "MERGE INTO "
        + settings.quarantineSparkName()
        + " t USING "
        + view
        + " s ON t.source_file = s.source_file AND t.row_number = s.row_number"
        // A replayed row keeps its audit trail when a backfill or sweep rejects it again.
        + " WHEN MATCHED AND t."
        + OutputTables.REPLAYED_AT
        + " IS NULL THEN UPDATE SET *"
        + " WHEN NOT MATCHED THEN INSERT *";
  }

  /**
   * Marks quarantine rows as replayed, once: a row already marked keeps its first replay.
   *
   * @param view a temp view with {@code source_file}, {@code row_number}, {@code replayed_at} and
   *     {@code replay_batch_id}
   */
  public String quarantineMarkReplayed(String view) {
    return "MERGE INTO "
        + settings.quarantineSparkName()
        + " t USING "
        + view
        + " s ON t.source_file = s.source_file AND t.row_number = s.row_number"
        + " WHEN MATCHED AND t.replayed_at IS NULL THEN UPDATE SET"
        + " t.replayed_at = s.replayed_at, t.replay_batch_id = s.replay_batch_id";
  }

  private String keyCondition() {
    return spec.keyColumns().stream()
        .map(k -> "t." + quote(k) + " = s." + quote(k))
        .collect(Collectors.joining(" AND "));
  }
}
