package io.tidemark.ingest.maintain;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.row_number;

import io.tidemark.ingest.checkpoint.CheckpointCodec;
import io.tidemark.ingest.kernel.RunLog;
import io.tidemark.ingest.tables.TableSql;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.Table;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.expressions.Window;
import org.apache.spark.sql.expressions.WindowSpec;
import org.apache.spark.storage.StorageLevel;

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
 * A delete newer than the key's live row is kept: a batch remembers its deletes before its curated
 * commit, so such a row is a batch's whose commit never landed (one that lost a race, a held batch
 * discarded to be ingested again), and keeping it changes nothing that batch's retry would not.
 *
 * <p>Runs under the run's lease, confirmed just before the overwrite, so no batch appends
 * meanwhile; the overwrite is also validated against the snapshot it read, so a row appended after
 * all would fail it rather than be lost.
 *
 * <p>The fold relies on curated main moving forward: a key's deletes are dropped once it is live
 * again, so rolling main back to before that version would leave the key with neither its row nor
 * its deletes, and a late version could then bring it back.
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
   * @param runId the maintenance run's id, carried by the overwrite's snapshot as every commit of
   *     the job carries its run's
   * @param beforeWrite called just before the table is overwritten (the run's lease confirmed)
   * @return the rows removed
   */
  public static long fold(
      SparkSession spark,
      String tombstones,
      Table table,
      String curated,
      List<String> keyColumns,
      String marker,
      String runId,
      Runnable beforeWrite) {
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
    // Kept once computed: counting it and writing it would otherwise read both tables twice.
    Dataset<Row> kept =
        newest.join(live, liveAgain, "left_anti").persist(StorageLevel.MEMORY_AND_DISK());
    long before;
    long after;
    try {
      before = recordsAt(table, all);
      after = kept.count();
      if (after == before) {
        return 0;
      }
      beforeWrite.run();
      kept.writeTo(tombstones)
          .option("validate-from-snapshot-id", Long.toString(snapshot))
          .option("isolation-level", "serializable")
          .option("snapshot-property." + CheckpointCodec.RUN_ID, runId)
          .overwrite(lit(true));
    } catch (org.apache.spark.sql.catalyst.analysis.NoSuchTableException e) {
      throw new IllegalStateException(tombstones + " disappeared while it was folded", e);
    } finally {
      kept.unpersist(false);
    }
    RunLog.LOG.info(
        "Folded {}: {} remembered delete(s) kept of {} (one per key still deleted)",
        tombstones,
        after,
        before);
    return before - after;
  }

  /** The table's rows at its current snapshot, from the snapshot's summary when it says. */
  private static long recordsAt(Table table, Dataset<Row> all) {
    Map<String, String> summary = table.currentSnapshot().summary();
    String total = summary == null ? null : summary.get("total-records");
    if (total != null) {
      try {
        return Long.parseLong(total);
      } catch (NumberFormatException e) {
        // counted below
      }
    }
    return all.count();
  }
}
