package io.tidemark.ingest.validate;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.types.DataType;

/**
 * A batch's records as read, before validation.
 *
 * @param rows the records in the normalized shape ({@link io.tidemark.ingest.kernel.Cols})
 * @param problemRows quarantine rows ({@link RawReader#PROBLEM_SCHEMA}) of the files quarantined
 *     whole; null when there are none
 * @param problems the files quarantined whole
 * @param warnings what reading noticed (schema drift), naming columns and files
 * @param columnTypes the key and payload column types
 * @param undeclaredColumns columns of the files read that the contract does not declare, sorted
 */
public record NormalizedBatch(
    Dataset<Row> rows,
    Dataset<Row> problemRows,
    List<RawReader.FileProblem> problems,
    List<String> warnings,
    Map<String, DataType> columnTypes,
    List<String> undeclaredColumns) {
  public NormalizedBatch {
    Objects.requireNonNull(rows, "rows is null");
    problems = List.copyOf(problems);
    warnings = List.copyOf(warnings);
    undeclaredColumns = undeclaredColumns == null ? List.of() : List.copyOf(undeclaredColumns);
  }

  /** A batch whose records were read before (a replay's): no columns to report. */
  public NormalizedBatch(
      Dataset<Row> rows,
      Dataset<Row> problemRows,
      List<RawReader.FileProblem> problems,
      List<String> warnings,
      Map<String, DataType> columnTypes) {
    this(rows, problemRows, problems, warnings, columnTypes, List.of());
  }
}
