package io.tidemark.bench;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.count;
import static org.apache.spark.sql.functions.countDistinct;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.row_number;
import static org.apache.spark.sql.functions.sum;
import static org.apache.spark.sql.functions.trim;
import static org.apache.spark.sql.functions.when;

import java.nio.file.Path;
import java.time.Duration;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.expressions.Window;

/**
 * B3's baseline: the diff a team would write in Spark without Tidemark, over the same files. The
 * latest version of every key by a window function over all of raw, a FULL OUTER JOIN with the
 * curated table, and one aggregation that counts what the reconciler's key rules count (missing,
 * unexpected, duplicate, stale, mismatched).
 */
final class NaiveDiff {
  /**
   * What the baseline counted, and how long it took.
   *
   * @param expected keys raw says should be live
   * @param curated rows in the curated table
   * @param differences missing + unexpected + duplicate + stale + mismatched keys
   * @param wall its wall time
   */
  record Result(long expected, long curated, long differences, Duration wall) {}

  private NaiveDiff() {}

  static Result run(SparkSession spark, Path rawRoot, String curatedTable) {
    long t0 = System.nanoTime();
    Dataset<Row> raw =
        spark
            .read()
            .parquet(rawRoot.toString())
            .filter(col("customer_id").isNotNull().and(trim(col("customer_id")).notEqual("")))
            .filter(col("updated_at").isNotNull());
    Column isDelete = col("op").equalTo(lit("D"));
    Dataset<Row> latest =
        raw.withColumn(
                "rn",
                row_number()
                    .over(
                        Window.partitionBy("customer_id")
                            .orderBy(
                                col("updated_at").desc(),
                                when(isDelete, 0).otherwise(1),
                                col("ingest_date"))))
            .filter(col("rn").equalTo(1))
            .withColumn("is_delete", isDelete);
    Dataset<Row> curated =
        spark
            .table(curatedTable)
            .select(
                col("customer_id").as("c_id"),
                col("customer_name").as("c_name"),
                col("email").as("c_email"),
                col("updated_at").as("c_at"));
    Dataset<Row> joined =
        latest.join(curated, latest.col("customer_id").equalTo(col("c_id")), "full_outer");
    Column both = col("customer_id").isNotNull().and(col("c_id").isNotNull());
    Column live = col("is_delete").equalTo(lit(false));
    Row r =
        joined
            .agg(
                sum(when(live, 1).otherwise(0)).as("expected"),
                count(col("c_id")).as("curated"),
                sum(when(col("c_id").isNull().and(live), 1).otherwise(0)).as("missing"),
                sum(when(col("c_id").isNotNull().and(col("customer_id").isNull()), 1)
                        .when(col("c_id").isNotNull().and(col("is_delete")), 1)
                        .otherwise(0))
                    .as("unexpected"),
                countDistinct(col("c_id")).as("distinct_curated"),
                sum(when(both.and(live).and(col("updated_at").notEqual(col("c_at"))), 1)
                        .otherwise(0))
                    .as("stale"),
                sum(when(
                            both.and(live)
                                .and(col("updated_at").equalTo(col("c_at")))
                                .and(
                                    col("customer_name")
                                        .eqNullSafe(col("c_name"))
                                        .and(col("email").eqNullSafe(col("c_email")))
                                        .unary_$bang()),
                            1)
                        .otherwise(0))
                    .as("mismatched"))
            .first();
    long curatedRows = r.getLong(1);
    long duplicates = curatedRows - r.getLong(4);
    long differences = r.getLong(2) + r.getLong(3) + duplicates + r.getLong(5) + r.getLong(6);
    return new Result(
        r.getLong(0), curatedRows, differences, Duration.ofNanos(System.nanoTime() - t0));
  }
}
