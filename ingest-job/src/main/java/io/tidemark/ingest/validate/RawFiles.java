package io.tidemark.ingest.validate;

import static org.apache.spark.sql.functions.col;

import io.tidemark.ingest.kernel.IngestException;
import io.tidemark.ingest.kernel.RawFile;
import io.tidemark.model.contract.DatasetContract;
import io.tidemark.model.report.IngestErrorCode;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataType;

/**
 * A batch of raw files, read by {@link RawReader}. Only the batch's new files are quarantined: a
 * processed file that watermark discovery reads again was judged by the batch that read it.
 */
public final class RawFiles implements BatchSource {
  private final SparkSession spark;
  private final DatasetContract spec;
  private final RawReader reader;
  private final Target target;
  private final List<RawFile> files;
  private final Set<String> newPaths;
  private final Column candidate;
  private final Column late;

  /**
   * The batch's identity and where it goes, for the message when no file can say the types.
   *
   * @param batchId the batch's id
   * @param curatedTable the curated table's Spark name
   * @param tableTypes the curated table's key and payload types; null when it does not exist yet
   */
  public record Target(String batchId, String curatedTable, Map<String, DataType> tableTypes) {}

  /**
   * @param files the files to read, in path order
   * @param newPaths the paths of the files new to the batch
   * @param candidate which records are candidate changes (see {@link BatchSource#candidate()})
   * @param late which valid candidates are late
   */
  public RawFiles(
      SparkSession spark,
      DatasetContract spec,
      Target target,
      List<RawFile> files,
      Set<String> newPaths,
      Column candidate,
      Column late) {
    this.spark = spark;
    this.spec = spec;
    this.reader = new RawReader(spark, spec);
    this.target = Objects.requireNonNull(target, "target is null");
    this.files = List.copyOf(files);
    this.newPaths = Set.copyOf(newPaths);
    this.candidate = candidate;
    this.late = late;
  }

  @Override
  public NormalizedBatch read(Map<String, String> unreadable) {
    RawReader.Result read = reader.read(files, newPaths, target.tableTypes(), unreadable);
    List<RawReader.FileProblem> problems =
        read.problems().stream().filter(p -> newPaths.contains(p.file().path())).toList();
    Dataset<Row> problemRows =
        read.problemRows() == null
            ? null
            : read.problemRows().filter(col("source_file").isin(newPaths.toArray()));
    Dataset<Row> rows =
        read.rows() != null
            ? read.rows()
            : RawReader.emptyNormalized(spark, spec, read.columnTypes());
    if (rows == null) {
      throw new IngestException(
          IngestErrorCode.TABLE_MISMATCH,
          "Cannot ingest batch "
              + target.batchId()
              + ": no raw file conforms to the contract and the table "
              + target.curatedTable()
              + " does not exist yet, so the column types are unknown; quarantined files: "
              + problems.stream().map(RawReader.FileProblem::toString).toList());
    }
    return new NormalizedBatch(
        rows, problemRows, problems, read.warnings(), read.columnTypes(), read.undeclaredColumns());
  }

  @Override
  public Map<String, String> findUnreadable() {
    return reader.findUnreadable(files);
  }

  @Override
  public Column candidate() {
    return candidate;
  }

  @Override
  public Column late() {
    return late;
  }
}
