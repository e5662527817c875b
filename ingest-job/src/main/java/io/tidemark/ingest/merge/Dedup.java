package io.tidemark.ingest.merge;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.row_number;
import static org.apache.spark.sql.functions.when;

import io.tidemark.ingest.kernel.Cols;
import io.tidemark.ingest.kernel.Operations;
import io.tidemark.model.contract.VersionOrder;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.expressions.Window;
import org.apache.spark.sql.expressions.WindowSpec;

/** Collapses several versions of a key in one batch to the latest: a pure function. */
public final class Dedup {
  /** A row's version rank within its key: 1 for the winner, 2 and up for superseded versions. */
  public static final String RANK = "_version_rank";

  private Dedup() {}

  /**
   * One row per key, the winner of the contract's {@link VersionOrder}: the highest change marker;
   * on a tie a delete (a delete applies when not older, so it must also win here), then the
   * earliest delivered row (source file, then row index), as it would have when delivered in
   * separate batches (an equal marker never overwrites).
   */
  public static Dataset<Row> latestPerKey(Dataset<Row> valid, List<String> keyColumns) {
    return rank(valid, keyColumns, lit(true)).filter(col(RANK).equalTo(1)).drop(RANK);
  }

  /**
   * Adds {@link #RANK}, ordering the versions of each key as {@link #latestPerKey} does, among the
   * rows where {@code eligible} holds; null on the other rows. Ranking in place, rather than
   * filtering, lets the caller count the superseded versions (rank above 1) in the same pass that
   * counts everything else.
   */
  public static Dataset<Row> rank(Dataset<Row> rows, List<String> keyColumns, Column eligible) {
    List<Column> partition = new ArrayList<>();
    keyColumns.forEach(k -> partition.add(col(k)));
    partition.add(eligible);
    List<Column> order = new ArrayList<>();
    for (VersionOrder.Term t : VersionOrder.TERMS) {
      Column c =
          switch (t.role()) {
            case MARKER -> col(Cols.MARKER);
            case DELETE -> Operations.isDelete(col(Cols.OP));
            case FILE -> col(Cols.SOURCE_FILE);
            case POSITION -> col(Cols.ROW_INDEX);
          };
      order.add(t.descending() ? c.desc() : c.asc());
    }
    WindowSpec w =
        Window.partitionBy(partition.toArray(Column[]::new)).orderBy(order.toArray(Column[]::new));
    return rows.withColumn(RANK, when(eligible, row_number().over(w)));
  }
}
