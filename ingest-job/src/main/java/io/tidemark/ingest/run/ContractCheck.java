package io.tidemark.ingest.run;

import static org.apache.spark.sql.functions.col;

import io.tidemark.ingest.config.IngestSettings;
import io.tidemark.ingest.discovery.Layout;
import io.tidemark.ingest.kernel.Cols;
import io.tidemark.ingest.kernel.RawFile;
import io.tidemark.ingest.validate.RawReader;
import io.tidemark.ingest.validate.Validation;
import io.tidemark.model.config.ChangeMarkerType;
import io.tidemark.model.contract.DatasetContract;
import io.tidemark.model.contract.RawSchema;
import java.io.PrintWriter;
import java.sql.Timestamp;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.functions;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * Checks a dataset's raw location against its contract without ingesting anything: which files the
 * layout places and which entries are strays, each file's columns and types against the
 * declaration, and how many rows a run would quarantine, by reason. Reads every file once; writes
 * nothing (no table, checkpoint, report or lease).
 */
public final class ContractCheck {
  /** The exit code of a check that found a problem: the raw data does not fit the contract. */
  public static final int PROBLEMS_EXIT_CODE = 3;

  /**
   * What the check found.
   *
   * @param files the data files the layout places, in order
   * @param strays the entries it cannot place, {@code path (why)}
   * @param fileProblems files a run would quarantine whole, {@code path: REASON (detail)}
   * @param undeclaredColumns columns of the files that the contract does not declare, sorted
   * @param quarantinedRows rows a run would quarantine, by reason
   */
  public record Result(
      List<RawFile> files,
      List<String> strays,
      List<String> fileProblems,
      List<String> undeclaredColumns,
      Map<String, Long> quarantinedRows) {
    /** Whether the raw data fits the contract: nothing stray, nothing quarantined. */
    public boolean clean() {
      return strays.isEmpty() && fileProblems.isEmpty() && quarantinedRows.isEmpty();
    }
  }

  private ContractCheck() {}

  /** Checks the settings' dataset, printing what it finds to {@code out}. */
  public static Result check(SparkSession spark, IngestSettings settings, PrintWriter out) {
    DatasetContract spec = settings.dataset();
    Layout layout = FileSelection.layout(spark.sparkContext().hadoopConfiguration(), spec);
    List<RawFile> files = layout.filesBetween(null, null);
    out.println(
        "Checking dataset "
            + spec.name()
            + " at "
            + layout.root()
            + " ("
            + spec.raw().layout().describe()
            + ") against its contract; nothing is ingested.");
    out.println(files.size() + " file(s) match the layout:");
    RawReader reader = new RawReader(spark, spec);
    for (RawFile f : files) {
      out.println("  " + f.partition() + "  " + f.name() + "  " + columns(reader, spec, f));
    }
    List<String> strays = layout.strayEntries();
    out.println(strays.size() + " stray entr" + (strays.size() == 1 ? "y" : "ies") + ":");
    strays.forEach(s -> out.println("  " + s));
    RawReader.Result read =
        files.isEmpty()
            ? null
            : reader.read(files, files.stream().map(RawFile::path).toList(), null);
    List<String> fileProblems = new ArrayList<>();
    Map<String, Long> byReason = new TreeMap<>();
    if (read != null) {
      read.problems().forEach(p -> fileProblems.add(p.toString()));
      if (read.problemRows() != null) {
        for (Row r : read.problemRows().groupBy("reason").count().collectAsList()) {
          byReason.merge(r.getString(0), r.getLong(1), Long::sum);
        }
      }
      if (read.rows() != null) {
        invalidRows(read.rows(), settings).forEach((k, v) -> byReason.merge(k, v, Long::sum));
      }
    }
    Result result =
        new Result(
            files,
            strays,
            fileProblems,
            read == null ? List.of() : read.undeclaredColumns(),
            byReason);
    summary(result, out);
    return result;
  }

  /** A file's columns with their types, each marked against the declaration. */
  private static String columns(RawReader reader, DatasetContract spec, RawFile f) {
    StructType schema;
    try {
      schema = reader.schemaOf(f);
    } catch (Exception e) {
      return "UNREADABLE (" + e.getMessage() + ")";
    }
    List<String> cols = new ArrayList<>();
    List<RawSchema.Column> asContract = new ArrayList<>();
    for (StructField field : schema.fields()) {
      String type = field.dataType().simpleString();
      var declared = spec.columns().get(field.name());
      String mark =
          declared == null
              ? " (undeclared)"
              : declared.sqlName().equals(type) ? "" : " (declared " + declared + ")";
      cols.add(field.name() + " " + type + mark);
      asContract.add(
          new RawSchema.Column(field.name(), kindOf(field), field.dataType().simpleString()));
    }
    RawSchema.Problem p = RawSchema.check(spec, asContract);
    return String.join(", ", cols) + (p == null ? "  OK" : "  " + p.reason() + ": " + p.detail());
  }

  private static RawSchema.Kind kindOf(StructField f) {
    String t = f.dataType().simpleString();
    return switch (t) {
      case "string" -> RawSchema.Kind.TEXT;
      case "bigint", "int", "smallint", "tinyint" -> RawSchema.Kind.INTEGER;
      case "timestamp", "timestamp_ntz" -> RawSchema.Kind.TIMESTAMP;
      default -> RawSchema.Kind.OTHER;
    };
  }

  /** The rows of conforming files a run would quarantine, by reason. */
  private static Map<String, Long> invalidRows(Dataset<Row> rows, IngestSettings settings) {
    DatasetContract spec = settings.dataset();
    Column futureLimit =
        spec.changeMarker().type() == ChangeMarkerType.TIMESTAMP
            ? functions.lit(
                Timestamp.from(settings.clock().instant().plus(settings.futureTolerance())))
            : null;
    Map<String, Long> out = new TreeMap<>();
    Dataset<Row> classified = Validation.classify(rows, spec.keyColumns(), futureLimit);
    for (Row r :
        classified
            .filter(col(Cols.REASON).isNotNull())
            .groupBy(Cols.REASON)
            .count()
            .collectAsList()) {
      out.put(r.getString(0), r.getLong(1));
    }
    return out;
  }

  private static void summary(Result r, PrintWriter out) {
    if (!r.fileProblems().isEmpty()) {
      out.println(r.fileProblems().size() + " file(s) a run would quarantine whole:");
      r.fileProblems().forEach(p -> out.println("  " + p));
    }
    if (!r.undeclaredColumns().isEmpty()) {
      out.println("Undeclared columns (read by no one): " + r.undeclaredColumns());
    }
    if (r.quarantinedRows().isEmpty()) {
      out.println("No row would be quarantined.");
    } else {
      long n = r.quarantinedRows().values().stream().mapToLong(Long::longValue).sum();
      out.println(n + " row(s) would be quarantined: " + r.quarantinedRows());
    }
    out.println(
        r.clean()
            ? "CLEAN: the raw data fits the contract"
            : "PROBLEMS: the raw data does not fully fit the contract (see above)");
    out.flush();
  }
}
