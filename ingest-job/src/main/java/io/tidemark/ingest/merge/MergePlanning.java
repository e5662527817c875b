package io.tidemark.ingest.merge;

import static io.tidemark.ingest.kernel.SqlNames.quoteAll;
import static org.apache.spark.sql.functions.col;

import io.tidemark.ingest.config.IngestSettings;
import io.tidemark.ingest.kernel.RunResources;
import io.tidemark.ingest.tables.OutputTables;
import io.tidemark.ingest.tables.TableSql;
import io.tidemark.model.contract.DatasetContract;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.StructType;

/**
 * The planning stage of a batch: keeps the latest version of each key, reads the curated table and
 * its remembered deletes as the {@link MergeBasis} says, and plans with {@link MergePlanner} what
 * the version guard will do with each record, counted before anything is written.
 */
public final class MergePlanning {
  private final SparkSession spark;
  private final IngestSettings settings;
  private final DatasetContract spec;
  private final OutputTables tables;
  private final RunResources resources;

  public MergePlanning(
      SparkSession spark, IngestSettings settings, OutputTables tables, RunResources resources) {
    this.spark = spark;
    this.settings = settings;
    this.spec = settings.dataset();
    this.tables = tables;
    this.resources = resources;
  }

  /**
   * Plans the batch.
   *
   * @param validated the validated records, ranked per key ({@link Dedup#RANK})
   * @param types the key and payload column types
   * @param basis what the batch is planned against
   * @param batchRecords the batch's size in records, which decides whether its keys are broadcast
   */
  public MergePlan plan(
      Dataset<Row> validated, Map<String, DataType> types, MergeBasis basis, long batchRecords) {
    Dataset<Row> latest = validated.filter(col(Dedup.RANK).equalTo(1)).drop(Dedup.RANK);
    Dataset<Row> withActions =
        MergePlanner.plan(
            latest,
            current(basis, types),
            tombstones(basis, types),
            spec.keyColumns(),
            spec.changeMarker().column(),
            batchRecords <= MergePlanner.BROADCAST_MAX_KEYS);
    // Planned against the curated table, the batch is pinned (the writes to come would make Spark
    // plan it again); a rebuild or a first load reads no curated table and keeps the compact
    // columnar cache, which a pinned copy of every row of a full load is not.
    if (basis.emptyTable()) {
      Dataset<Row> planned = resources.cache(withActions);
      return new MergePlan(planned, actions(planned));
    }
    RunResources.Pinned pinned = resources.pin(withActions, MergePlanner.ACTION);
    Map<Action, Long> actions = new EnumMap<>(Action.class);
    pinned.counts().forEach((action, n) -> actions.put(Action.valueOf(action), n));
    return new MergePlan(pinned.rows(), actions);
  }

  private Dataset<Row> current(MergeBasis basis, Map<String, DataType> types) {
    if (basis.emptyTable()) {
      return emptyKeys(types);
    }
    // With each row's file and position, which the commit's position deletes name (a contract
    // declares no column of either name: it would hide Iceberg's metadata column).
    String columns =
        String.join(", ", quoteAll(keyAndMarker()))
            + ", "
            + MergePlanner.FILE
            + ", "
            + MergePlanner.POS;
    return spark.sql(TableSql.asOf(settings.curatedSparkName(), basis.snapshot(), columns));
  }

  private Dataset<Row> tombstones(MergeBasis basis, Map<String, DataType> types) {
    if (basis.kind() == MergeBasis.Kind.REBUILD
        || tables.load(settings.tombstoneSparkName()) == null) {
      return emptyKeys(types);
    }
    return spark.table(settings.tombstoneSparkName()).selectExpr(quoteAll(keyAndMarker()));
  }

  private List<String> keyAndMarker() {
    List<String> keyAndMarker = new ArrayList<>(spec.keyColumns());
    keyAndMarker.add(spec.changeMarker().column());
    return keyAndMarker;
  }

  private Dataset<Row> emptyKeys(Map<String, DataType> types) {
    StructType s = new StructType();
    for (String k : spec.keyColumns()) {
      s = s.add(k, types.get(k));
    }
    s = s.add(spec.changeMarker().column(), tables.markerType());
    return spark.createDataFrame(List.<Row>of(), s);
  }

  private static Map<Action, Long> actions(Dataset<Row> planned) {
    Map<Action, Long> actions = new EnumMap<>(Action.class);
    for (Row r : planned.groupBy(MergePlanner.ACTION).count().collectAsList()) {
      actions.put(Action.valueOf(r.getString(0)), r.getLong(1));
    }
    return actions;
  }
}
