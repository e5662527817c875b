package io.tidemark.ingest.validate;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.count;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.max;
import static org.apache.spark.sql.functions.sum;
import static org.apache.spark.sql.functions.when;

import io.tidemark.ingest.config.IngestSettings;
import io.tidemark.ingest.kernel.Causes;
import io.tidemark.ingest.kernel.Cols;
import io.tidemark.ingest.kernel.RunLog;
import io.tidemark.ingest.kernel.RunResources;
import io.tidemark.ingest.merge.Dedup;
import io.tidemark.model.config.ChangeMarkerType;
import io.tidemark.model.contract.DatasetContract;
import io.tidemark.model.contract.ReasonCode;
import java.sql.Timestamp;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.spark.SparkException;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;

/**
 * The validation stage of a batch: reads its source, classifies every record ({@link Validation}),
 * ranks the versions of each key ({@link Dedup#rank}) and counts it all in one pass. A file whose
 * footer reads but whose data pages do not fails the whole query only when it runs: the stage then
 * asks the source for such files, and reads the batch again with them quarantined whole.
 */
public final class BatchValidator {
  private final IngestSettings settings;
  private final DatasetContract spec;
  private final RunResources resources;

  public BatchValidator(IngestSettings settings, RunResources resources) {
    this.settings = settings;
    this.spec = settings.dataset();
    this.resources = resources;
  }

  /**
   * Validates the batch.
   *
   * @param batchId the batch's id, for the log; null when it is not known yet
   */
  public ValidatedBatch validate(String batchId, BatchSource source) {
    try {
      return validate(source, source.read(Map.of()));
    } catch (Exception e) {
      // Exception, not RuntimeException: Spark's Scala code throws checked exceptions that Java's
      // compiler does not see.
      if (!Causes.has(e, SparkException.class)) {
        throw e;
      }
      resources.release();
      Map<String, String> unreadable = source.findUnreadable();
      if (unreadable.isEmpty()) {
        throw e;
      }
      RunLog.LOG.warn(
          "Batch {}: {} file(s) have unreadable data; quarantining them and reading again: {}",
          batchId,
          unreadable.size(),
          unreadable);
      return validate(source, source.read(unreadable));
    }
  }

  private ValidatedBatch validate(BatchSource source, NormalizedBatch batch) {
    // One instant judges the batch's markers, and is what an audit of the batch judges them by.
    java.time.Instant validatedAt = settings.clock().instant();
    Column futureLimit =
        spec.changeMarker().type() == ChangeMarkerType.TIMESTAMP
            ? lit(Timestamp.from(validatedAt.plus(settings.futureTolerance())))
            : null;
    Column validCandidate = col(Cols.CANDIDATE).and(col(Cols.REASON).isNull());
    // Ranked here, so that the versions the dedup collapses are counted in the pass below rather
    // than inferred from the other counts (which would make the accounting identities vacuous).
    Dataset<Row> validated =
        resources.cache(
            Dedup.rank(
                Validation.classify(batch.rows(), spec.keyColumns(), futureLimit)
                    .withColumn(Cols.CANDIDATE, source.candidate()),
                spec.keyColumns(),
                validCandidate));
    Row agg = countAll(validated, source.late());
    Dataset<Row> problemRows = batch.problemRows();
    long problemRecords =
        problemRows == null ? 0 : problemRows.filter(col("row_number").geq(0)).count();
    ReadCounts counts = ReadCounts.of(agg, problemRecords);
    Map<String, Long> reasons = reasons(agg);
    if (problemRows != null) {
      byFileReason(problemRows, reasons);
    }
    return new ValidatedBatch(batch, validated, counts, reasons, validatedAt);
  }

  /** The reasons a record alone can have: {@link Validation} gives one of these or none. */
  private static final List<ReasonCode> ROW_REASONS =
      Arrays.stream(ReasonCode.values()).filter(r -> !r.wholeFile()).toList();

  /**
   * The one-row aggregate that counts the batch (see {@link ReadCounts}), the invalid candidates by
   * reason included: one Spark job for all of it, where a grouping by reason after was another.
   */
  private static Row countAll(Dataset<Row> validated, Column late) {
    Column invalid = col(Cols.REASON).isNotNull();
    Column isCandidate = col(Cols.CANDIDATE);
    Column validCandidate = isCandidate.and(col(Cols.REASON).isNull());
    List<Column> measures = new ArrayList<>();
    measures.add(sum(when(isCandidate, 1).otherwise(0)).as(ReadCounts.Count.CANDIDATES.column()));
    measures.add(
        sum(when(isCandidate.and(invalid), 1).otherwise(0)).as(ReadCounts.Count.INVALID.column()));
    measures.add(
        sum(when(validCandidate.and(late), 1).otherwise(0)).as(ReadCounts.Count.LATE.column()));
    measures.add(
        max(when(validCandidate, col(Cols.MARKER))).as(ReadCounts.Count.MAX_VALID_MARKER.column()));
    measures.add(
        sum(when(col(Dedup.RANK).gt(1), 1).otherwise(0)).as(ReadCounts.Count.SUPERSEDED.column()));
    for (ReasonCode r : ROW_REASONS) {
      measures.add(
          sum(when(isCandidate.and(col(Cols.REASON).equalTo(r.name())), 1).otherwise(0))
              .as(reasonColumn(r)));
    }
    return validated
        .agg(count(lit(1)).as(ReadCounts.Count.ROWS.column()), measures.toArray(Column[]::new))
        .first();
  }

  private static String reasonColumn(ReasonCode r) {
    return "_reason_" + r.name();
  }

  /** Invalid candidates by reason, from the aggregate; reasons no candidate had are left out. */
  private static Map<String, Long> reasons(Row agg) {
    Map<String, Long> byReason = new TreeMap<>();
    for (ReasonCode r : ROW_REASONS) {
      Long n = agg.getAs(reasonColumn(r));
      if (n != null && n > 0) {
        byReason.put(r.name(), n);
      }
    }
    return byReason;
  }

  /** Adds the rows of files quarantined whole, by their reason. */
  private static void byFileReason(Dataset<Row> problemRows, Map<String, Long> byReason) {
    for (Row r : problemRows.groupBy("reason").count().collectAsList()) {
      byReason.merge(r.getString(0) + "(files)", r.getLong(1), Long::sum);
    }
  }
}
