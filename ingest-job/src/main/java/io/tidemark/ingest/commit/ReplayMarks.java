package io.tidemark.ingest.commit;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.lit;

import io.tidemark.ingest.config.IngestSettings;
import io.tidemark.ingest.kernel.Cols;
import io.tidemark.ingest.kernel.RunLog;
import io.tidemark.ingest.kernel.RunResources;
import io.tidemark.ingest.tables.OutputTables;
import java.sql.Timestamp;
import java.time.Instant;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * Marks quarantine rows as replayed once a replay merged them ({@link OutputTables#REPLAYED_AT},
 * {@link OutputTables#REPLAY_BATCH_ID}): they stay in the quarantine for audit and are not selected
 * again.
 */
public final class ReplayMarks {
  private final SparkSession spark;
  private final IngestSettings settings;
  private final RunResources resources;

  public ReplayMarks(SparkSession spark, IngestSettings settings, RunResources resources) {
    this.spark = spark;
    this.settings = settings;
    this.resources = resources;
  }

  /**
   * Marks the rows replayed by the batch, at {@code at}; rows already marked keep their mark.
   *
   * @param replayed the replayed records, in the validated shape
   */
  public void mark(Dataset<Row> replayed, String batchId, Instant at) {
    Dataset<Row> marks =
        replayed.select(
            col(Cols.SOURCE_FILE).as("source_file"),
            col(Cols.ROW_INDEX).as("row_number"),
            lit(Timestamp.from(at)).as(OutputTables.REPLAYED_AT),
            lit(batchId).as(OutputTables.REPLAY_BATCH_ID));
    spark.sql(new CommitSql(settings).quarantineMarkReplayed(resources.view(marks)));
    RunLog.LOG.info(
        "Marked the replayed rows of batch {} in {} (kept for audit)",
        batchId,
        settings.quarantineSparkName());
  }
}
