package io.tidemark.ingest.validate;

import static org.apache.spark.sql.functions.col;

import io.tidemark.ingest.kernel.Cols;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.types.DataType;

/**
 * What reading and validating a batch found, counted in one pass over the batch.
 *
 * @param read the batch as read: its files quarantined whole, what reading noticed, the types
 * @param rows every record, classified ({@link Cols#REASON}, {@link Cols#CANDIDATE}) and ranked per
 *     key among the valid candidates ({@link io.tidemark.ingest.merge.Dedup#RANK}); cached for the
 *     run
 * @param counts the record counts
 * @param byReason invalid candidates by reason; a reason of whole files ends in {@code (files)}
 * @param validatedAt the clock that judged the change markers (a marker past it plus the future
 *     tolerance is invalid); an audit of the batch judges them by the same
 */
public record ValidatedBatch(
    NormalizedBatch read,
    Dataset<Row> rows,
    ReadCounts counts,
    Map<String, Long> byReason,
    java.time.Instant validatedAt) {
  public ValidatedBatch {
    Objects.requireNonNull(read, "read is null");
    Objects.requireNonNull(rows, "rows is null");
    Objects.requireNonNull(validatedAt, "validatedAt is null");
  }

  /** Quarantine rows of the files quarantined whole; null when there are none. */
  public Dataset<Row> problemRows() {
    return read.problemRows();
  }

  /** The files quarantined whole. */
  public List<RawReader.FileProblem> problems() {
    return read.problems();
  }

  /** What reading noticed. */
  /** Columns of the files read that the contract does not declare, sorted. */
  public List<String> undeclaredColumns() {
    return read.undeclaredColumns();
  }

  public List<String> warnings() {
    return read.warnings();
  }

  /** The key and payload column types. */
  public Map<String, DataType> columnTypes() {
    return read.columnTypes();
  }

  /** The invalid candidates, in the validated shape: what the quarantine gets. */
  public Dataset<Row> invalidCandidates() {
    return rows.filter(col(Cols.CANDIDATE).and(col(Cols.REASON).isNotNull()));
  }

  /** The valid records. */
  public Dataset<Row> valid() {
    return rows.filter(col(Cols.REASON).isNull());
  }

  /** The files quarantined whole, as the report names them: {@code path: REASON (detail)}. */
  public List<String> quarantinedFiles() {
    return problems().stream().map(RawReader.FileProblem::toString).toList();
  }
}
