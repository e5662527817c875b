package io.tidemark.ingest.maintain;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.row_number;

import io.tidemark.ingest.kernel.RunLog;
import io.tidemark.ingest.tables.TableSql;
import java.util.List;
import org.apache.iceberg.Table;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.expressions.Window;
import org.apache.spark.sql.expressions.WindowSpec;

/**
 * Folds the remembered deletes (the tombstone table) to the rows the version guard can still use.
 * Batches append a row for every delete they remember, so a key deleted again and again is in the
 * table again and again, and a key live again keeps its old deletes; the planner reads the whole
 * table on every batch. Two kinds of row decide nothing:
 *
 * <ul>
 *   <li>a key's older deletes: the planner takes each key's newest;
 *   <li>the deletes of a key live in the curated table with a newer version: the planner consults
 *       the remembered deletes only for a key with no curated row, and should that row be deleted
 *       later, the delete that does it is remembered with a newer marker.
 * </ul>
 *
 * A delete newer than the key's live row is kept: a batch held on its branch (verified publish)
 * remembers its deletes before main has them, and its delete must still keep late versions out once
 * it is published.
 *
 * <p>Runs under the run's lease, so no batch appends meanwhile; the overwrite is also validated
 * against the snapshot it read, so a row appended after all would fail it rather than be lost.
 */
public final class RememberedDeletes {
  private static final String RANK = "_tidemark_rank";
  private static final String LIVE = "_tidemark_live_";

  private RememberedDeletes() {}

  /**
   * Rewrites the tombstone table without the rows that decide nothing; leaves it untouched when
   * there are none.
   *
   * @param tombstones the tombstone table's Spark name
   * @param table the tombstone table, to read at its current snapshot
   * @param curated the curated table's Spark name (main is read)
   * @param keyColumns the dataset's key columns, in both tables
   * @param marker the change-marker column, in both tables
   * @return the rows removed
   */
  public static long fold(
      SparkSession spark,
      String tombstones,
      Table table,
      String curated,
      List<String> keyColumns,
      String marker) {
    if (table.currentSnapshot() == null) {
      return 0;
    }
    long snapshot = table.currentSnapshot().snapshotId();
    Dataset<Row> all = spark.sql(TableSql.asOf(tombstones, snapshot));
    Column[] keys = keyColumns.stream().map(k -> col(k)).toArray(Column[]::new);
    WindowSpec newestFirst =
        Window.partitionBy(keys).orderBy(col(marker).desc(), col("batch_id").desc());
    Dataset<Row> newest =
        all.withColumn(RANK, row_number().over(newestFirst))
            .filter(col(RANK).equalTo(1))
            .drop(RANK);
    Column[] liveCols = new Column[keyColumns.size() + 1];
    for (int i = 0; i < keyColumns.size(); i++) {
      liveCols[i] = col(keyColumns.get(i)).as(LIVE + i);
    }
    liveCols[keyColumns.size()] = col(marker).as(LIVE + "marker");
    Dataset<Row> live = spark.table(curated).select(liveCols);
    Column liveAgain = live.col(LIVE + "marker").gt(newest.col(marker));
    for (int i = 0; i < keyColumns.size(); i++) {
      liveAgain = liveAgain.and(newest.col(keyColumns.get(i)).equalTo(live.col(LIVE + i)));
    }
    Dataset<Row> kept = newest.join(live, liveAgain, "left_anti");
    long before = all.count();
    long after = kept.count();
    if (after == before) {
      return 0;
    }
    try {
      kept.writeTo(tombstones)
          .option("validate-from-snapshot-id", Long.toString(snapshot))
          .option("isolation-level", "serializable")
          .overwrite(lit(true));
    } catch (org.apache.spark.sql.catalyst.analysis.NoSuchTableException e) {
      throw new IllegalStateException(tombstones + " disappeared while it was folded", e);
    }
    RunLog.LOG.info(
        "Folded {}: {} remembered delete(s) kept of {} (one per key still deleted)",
        tombstones,
        after,
        before);
    return before - after;
  }
}
