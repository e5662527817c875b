package io.tidemark.ingest.merge;

import static org.apache.spark.sql.functions.broadcast;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.max;
import static org.apache.spark.sql.functions.when;

import io.tidemark.ingest.kernel.Cols;
import io.tidemark.ingest.kernel.Operations;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;

/**
 * Decides, before the MERGE and against the same table state, what the version guard will do with
 * each record: the exact inserted/updated/deleted/unchanged counts come from here. A pure function.
 */
public final class MergePlanner {
  public static final String ACTION = "_action";
  public static final String CURRENT_MARKER = "_current_marker";
  public static final String TOMBSTONE_MARKER = "_tomb_marker";

  /**
   * Iceberg's metadata columns of the curated row a record matched: its data file and its position
   * in that file. The commit deletes an updated or deleted key's row by them (a position delete),
   * without reading the table again.
   */
  public static final String FILE = "_file";

  public static final String POS = "_pos";

  /** The matched row's {@link #FILE}; null when the key is not in the table. */
  public static final String CURRENT_FILE = "_current_file";

  /** The matched row's {@link #POS}; null when the key is not in the table. */
  public static final String CURRENT_POS = "_current_pos";

  private MergePlanner() {}

  /**
   * The deletes the tombstone table must remember: every applied delete and delete of an unknown
   * key, and a delete of an already deleted key that is newer than the remembered one (it changes
   * nothing in the table, but an older version arriving later must not bring the key back).
   */
  public static Column remembersDelete() {
    return Operations.isDelete(col(Cols.OP))
        .and(
            col(ACTION)
                .isin(Action.DELETED.name(), Action.DELETE_OF_UNKNOWN_KEY.name())
                .or(col(CURRENT_MARKER).isNull().and(col(TOMBSTONE_MARKER).lt(col(Cols.MARKER)))));
  }

  /** Batches with at most this many keys have them broadcast to prune the table reads. */
  public static final long BROADCAST_MAX_KEYS = 2_000_000;

  /**
   * Adds {@link #ACTION}, {@link #CURRENT_MARKER} and {@link #TOMBSTONE_MARKER}, and {@link
   * #CURRENT_FILE} and {@link #CURRENT_POS} when {@code current} has {@link #FILE} and {@link
   * #POS}.
   *
   * @param latest one row per key: key columns, {@link Cols#MARKER}, {@link Cols#OP}
   * @param current the curated table's key columns and change-marker column, and optionally the
   *     rows' {@link #FILE} and {@link #POS}
   * @param tombstones the remembered deletes: key columns and change-marker column, a key possibly
   *     more than once (deletes are appended); the newest marker of a key is the one remembered
   * @param markerColumn the change-marker column's name in the tables
   * @param smallBatch whether {@code latest} is small enough to broadcast its keys: the tables are
   *     then streamed once against them and never shuffled (see {@link #BROADCAST_MAX_KEYS})
   */
  public static Dataset<Row> plan(
      Dataset<Row> latest,
      Dataset<Row> current,
      Dataset<Row> tombstones,
      List<String> keyColumns,
      String markerColumn,
      boolean smallBatch) {
    Map<String, String> located =
        List.of(current.columns()).containsAll(List.of(FILE, POS))
            ? Map.of(FILE, CURRENT_FILE, POS, CURRENT_POS)
            : Map.of();
    Dataset<Row> withCurrent =
        leftJoin(
            latest, current, keyColumns, markerColumn, CURRENT_MARKER, located, smallBatch, false);
    Dataset<Row> joined =
        leftJoin(
            withCurrent,
            tombstones,
            keyColumns,
            markerColumn,
            TOMBSTONE_MARKER,
            Map.of(),
            smallBatch,
            true);
    Column m = col(Cols.MARKER);
    Column cur = col(CURRENT_MARKER);
    Column tomb = col(TOMBSTONE_MARKER);
    Column isDelete = Operations.isDelete(col(Cols.OP));
    Column action =
        when(
                isDelete,
                when(
                        cur.isNull(),
                        // A key deleted before (a re-delivered file, a replay): nothing changes.
                        when(tomb.isNotNull(), lit(Action.UNCHANGED.name()))
                            .otherwise(lit(Action.DELETE_OF_UNKNOWN_KEY.name())))
                    .when(m.geq(cur), lit(Action.DELETED.name()))
                    .otherwise(lit(Action.UNCHANGED.name())))
            .otherwise(
                when(
                        cur.isNull(),
                        when(tomb.isNotNull().and(tomb.geq(m)), lit(Action.UNCHANGED.name()))
                            .otherwise(lit(Action.INSERTED.name())))
                    .when(m.gt(cur), lit(Action.UPDATED.name()))
                    .otherwise(lit(Action.UNCHANGED.name())));
    return joined.withColumn(ACTION, action);
  }

  private static Dataset<Row> leftJoin(
      Dataset<Row> left,
      Dataset<Row> right,
      List<String> keyColumns,
      String markerColumn,
      String as,
      Map<String, String> carried,
      boolean smallBatch,
      boolean newestPerKey) {
    List<Column> sel = new ArrayList<>();
    for (int i = 0; i < keyColumns.size(); i++) {
      sel.add(col(keyColumns.get(i)).as(as + "_k" + i));
    }
    sel.add(col(markerColumn).as(as));
    carried.forEach((from, to) -> sel.add(col(from).as(to)));
    Dataset<Row> pruned = right;
    if (smallBatch) {
      // Only the batch's keys matter: keep the table's rows whose key is among them, with the
      // batch's keys broadcast, so the table is read once and never shuffled for the join.
      Column[] keys = keyColumns.stream().map(k -> col(k).as("batch_" + k)).toArray(Column[]::new);
      Dataset<Row> batchKeys = broadcast(left.select(keys).distinct());
      Column in = lit(true);
      for (String k : keyColumns) {
        in = in.and(right.col(k).equalTo(batchKeys.col("batch_" + k)));
      }
      pruned = right.join(batchKeys, in, "left_semi");
    }
    Dataset<Row> r = pruned.select(sel.toArray(Column[]::new));
    if (newestPerKey) {
      // After the pruning: only the batch's keys' rows are grouped.
      Column[] by = new Column[keyColumns.size()];
      for (int i = 0; i < keyColumns.size(); i++) {
        by[i] = col(as + "_k" + i);
      }
      r = r.groupBy(by).agg(max(col(as)).as(as));
    }
    Column on = lit(true);
    for (int i = 0; i < keyColumns.size(); i++) {
      on = on.and(left.col(keyColumns.get(i)).equalTo(r.col(as + "_k" + i)));
    }
    Dataset<Row> out = left.join(r, on, "left");
    for (int i = 0; i < keyColumns.size(); i++) {
      out = out.drop(as + "_k" + i);
    }
    return out;
  }
}
