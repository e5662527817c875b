package io.tidemark.ingest.validate;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.struct;
import static org.apache.spark.sql.functions.to_json;

import io.tidemark.ingest.discovery.RawFile;
import io.tidemark.ingest.sql.IngestSql;
import io.tidemark.model.config.ChangeMarkerType;
import io.tidemark.model.config.DatasetSpec;
import io.tidemark.model.contract.RawSchema;
import io.tidemark.model.contract.ReasonCode;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RawLocalFileSystem;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.apache.parquet.schema.MessageType;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.execution.datasources.parquet.ParquetToSparkSchemaConverter;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads raw Parquet files and applies the schema-drift policy file by file: an unreadable file, a
 * file missing a contract column, or one whose contract column has an incompatible type is
 * quarantined as a file; extra columns are ignored and reported by name. Conforming files come back
 * as one normalized Dataset (contract columns plus the working columns of {@link Cols}).
 */
public final class RawReader {
  private static final ReasonCode DUPLICATE_COLUMN = ReasonCode.DUPLICATE_COLUMN;
  private static final Logger LOG = LoggerFactory.getLogger(RawReader.class);

  /** The shape of quarantine rows before the batch's id and time are added. */
  public static final StructType PROBLEM_SCHEMA =
      new StructType()
          .add("source_file", DataTypes.StringType, false)
          .add("row_number", DataTypes.LongType, false)
          .add("reason", DataTypes.StringType, false)
          .add("detail", DataTypes.StringType, true)
          .add("original_values", DataTypes.StringType, true);

  /** A file quarantined whole. */
  public record FileProblem(RawFile file, ReasonCode reason, String detail) {
    @Override
    public String toString() {
      return file.path() + ": " + reason + " (" + detail + ")";
    }
  }

  /**
   * What reading produced.
   *
   * @param rows normalized rows of the conforming files; null when there are none
   * @param problemRows quarantine-shaped rows ({@link #PROBLEM_SCHEMA}) of the quarantined files;
   *     null when there are none
   * @param problems the files quarantined whole
   * @param warnings schema-drift warnings, naming columns and files
   * @param columnTypes the types of key and payload columns that conforming files have
   */
  public record Result(
      Dataset<Row> rows,
      Dataset<Row> problemRows,
      List<FileProblem> problems,
      List<String> warnings,
      Map<String, DataType> columnTypes) {}

  /**
   * How raw files are read, by Spark and by the footer check alike, so that any S3 key is a
   * readable file name:
   *
   * <ul>
   *   <li>{@code __globPaths__=false} (Spark's DataSource.GLOB_PATHS_KEY): Spark otherwise expands
   *       a path holding {@code [ ] { } * ?} or a backslash as a glob pattern, so that {@code
   *       a[1].parquet} reads {@code a1.parquet} and {@code q?.parquet} every one-letter name.
   *   <li>{@code fs.file.impl=RawLocalFileSystem}, uncached: Hadoop's default local file system
   *       opens a {@code .<name>.crc} sibling first and builds its path by parsing the name, which
   *       fails on a colon ({@code export-2024-03-01T10:00:00.parquet}). Raw files carry no Hadoop
   *       checksums; object stores ({@code s3a://}) are not affected.
   * </ul>
   */
  static final Map<String, String> LITERAL_READ_OPTIONS =
      Map.of(
          "__globPaths__", "false",
          "fs.file.impl", RawLocalFileSystem.class.getName(),
          "fs.file.impl.disable.cache", "true");

  private final SparkSession spark;
  private final DatasetSpec spec;
  private final Configuration conf;

  public RawReader(SparkSession spark, DatasetSpec spec) {
    this.spark = spark;
    this.spec = spec;
    this.conf = new Configuration(spark.sparkContext().hadoopConfiguration());
    LITERAL_READ_OPTIONS.forEach(conf::set);
  }

  /**
   * Reads the files.
   *
   * @param files the files to read, in path order
   * @param newFiles paths of files new in this batch (for {@link Cols#NEW_FILE})
   * @param tableTypes the curated table's column types when it exists; otherwise the most common
   *     type among the files decides
   */
  public Result read(
      List<RawFile> files, Collection<String> newFiles, Map<String, DataType> tableTypes) {
    return read(files, newFiles, tableTypes, Map.of());
  }

  /**
   * Reads the files, quarantining as unreadable the ones {@link #findUnreadable} found.
   *
   * @param unreadable path -> why, for files whose footer reads but whose data does not
   */
  public Result read(
      List<RawFile> files,
      Collection<String> newFiles,
      Map<String, DataType> tableTypes,
      Map<String, String> unreadable) {
    Set<String> isNew = Set.copyOf(newFiles);
    Map<RawFile, StructType> schemas = new LinkedHashMap<>();
    List<FileProblem> problems = new ArrayList<>();
    for (RawFile f : files) {
      String why = unreadable.get(f.path());
      if (why == null) {
        try {
          StructType schema = footerSchema(f);
          String clash = duplicateColumns(schema);
          if (clash == null) {
            schemas.put(f, schema);
          } else {
            // Spark cannot even load such a file without case-sensitive analysis: no row values.
            LOG.warn("Quarantining raw file {}: {} ({})", f.path(), DUPLICATE_COLUMN, clash);
            problems.add(new FileProblem(f, DUPLICATE_COLUMN, clash));
          }
          continue;
        } catch (Exception e) {
          why = firstLine(e);
        }
      }
      LOG.warn("Cannot read raw file {}: {}; quarantining it as a file", f.path(), why);
      problems.add(new FileProblem(f, ReasonCode.UNREADABLE_FILE, why));
    }
    Map<String, DataType> types =
        new LinkedHashMap<>(
            tableTypes != null
                ? tableTypes
                : majorityTypes(schemas.values(), spec.comparedColumns()));
    // Keys are text under the contract (RawKeys): an integer key column reads as its digits, and
    // the first file's type never pins the table.
    spec.keyColumns().forEach(k -> types.put(k, DataTypes.StringType));

    Set<String> contract = new TreeSet<>(spec.contractColumns());
    Map<Set<String>, List<String>> drift = new LinkedHashMap<>();
    List<Dataset<Row>> conforming = new ArrayList<>();
    List<Dataset<Row>> problemRows = new ArrayList<>();
    for (Map.Entry<RawFile, StructType> e : schemas.entrySet()) {
      RawFile f = e.getKey();
      StructType schema = e.getValue();
      FileProblem problem = check(f, schema, types);
      if (problem != null) {
        LOG.warn("Quarantining raw file {}: {} ({})", f.path(), problem.reason(), problem.detail());
        problems.add(problem);
        problemRows.add(quarantineRows(f, schema, problem));
        continue;
      }
      Set<String> extra = new TreeSet<>(Arrays.asList(schema.fieldNames()));
      extra.removeAll(contract);
      if (!extra.isEmpty()) {
        drift.computeIfAbsent(extra, k -> new ArrayList<>()).add(f.path());
      }
      conforming.add(normalize(f, schema, types, isNew.contains(f.path())));
    }
    for (FileProblem p : problems) {
      if (p.reason() == ReasonCode.UNREADABLE_FILE || p.reason() == DUPLICATE_COLUMN) {
        problemRows.add(
            spark.createDataFrame(
                List.of(
                    RowFactory.create(p.file().path(), -1L, p.reason().name(), p.detail(), null)),
                PROBLEM_SCHEMA));
      }
    }
    List<String> warnings = new ArrayList<>();
    drift.forEach(
        (cols, paths) ->
            warnings.add(
                "Schema drift: extra column(s) "
                    + cols
                    + " ignored in "
                    + paths.size()
                    + " file(s): "
                    + String.join(", ", paths)));
    warnings.forEach(LOG::warn);
    return new Result(union(conforming), union(problemRows), problems, warnings, types);
  }

  /**
   * An empty batch with the normalized shape, for when no file conforms; null when the column types
   * are unknown (no conforming file and no table).
   */
  public static Dataset<Row> emptyNormalized(
      SparkSession spark, DatasetSpec spec, Map<String, DataType> types) {
    StructType s = new StructType();
    List<String> cols = new ArrayList<>(spec.keyColumns());
    cols.addAll(spec.comparedColumns());
    for (String c : cols) {
      if (!types.containsKey(c)) {
        return null;
      }
      s = s.add(c, types.get(c));
    }
    s =
        s.add(Cols.MARKER_PRESENT, DataTypes.BooleanType)
            .add(
                Cols.MARKER,
                spec.changeMarker().type() == ChangeMarkerType.TIMESTAMP
                    ? DataTypes.TimestampType
                    : DataTypes.LongType)
            .add(Cols.OP, DataTypes.StringType)
            .add(Cols.SOURCE_FILE, DataTypes.StringType)
            .add(Cols.ROW_INDEX, DataTypes.LongType)
            .add(Cols.ORIGINAL, DataTypes.StringType)
            .add(Cols.NEW_FILE, DataTypes.BooleanType);
    return spark.createDataFrame(List.<Row>of(), s);
  }

  /**
   * Reads every column of every row of each file and returns the files that fail, path -> why:
   * files whose footer is valid but whose data pages are corrupt fail only when a query reads them,
   * and then fail the whole query. Costs a full read, so the job calls it only after a batch
   * failed.
   */
  public Map<String, String> findUnreadable(List<RawFile> files) {
    Map<String, String> out = new LinkedHashMap<>();
    for (RawFile f : files) {
      StructType schema;
      try {
        schema = footerSchema(f);
      } catch (Exception e) {
        continue; // read() quarantines it from its footer already
      }
      if (duplicateColumns(schema) != null) {
        continue;
      }
      try {
        readLiterally(f, schema).write().format("noop").mode("overwrite").save();
      } catch (Exception e) {
        String why = firstLine(rootCause(e));
        LOG.warn("Raw file {} has a readable footer but unreadable data: {}", f.path(), why);
        out.put(f.path(), why);
      }
    }
    return out;
  }

  /** Why the file's columns are ambiguous under the contract, or null when they are not. */
  private String duplicateColumns(StructType schema) {
    RawSchema.Problem p = RawSchema.check(spec, contractColumns(schema));
    return p != null && p.reason() == DUPLICATE_COLUMN ? p.detail() : null;
  }

  /** The file's columns as the contract sees them. */
  static List<RawSchema.Column> contractColumns(StructType schema) {
    List<RawSchema.Column> out = new ArrayList<>();
    for (StructField f : schema.fields()) {
      out.add(new RawSchema.Column(f.name(), kind(f.dataType()), f.dataType().simpleString()));
    }
    return out;
  }

  /** How a Spark type counts for the contract. */
  static RawSchema.Kind kind(DataType t) {
    if (t.equals(DataTypes.StringType)) {
      return RawSchema.Kind.TEXT;
    }
    if (t.equals(DataTypes.LongType)
        || t.equals(DataTypes.IntegerType)
        || t.equals(DataTypes.ShortType)
        || t.equals(DataTypes.ByteType)) {
      return RawSchema.Kind.INTEGER;
    }
    if (t.equals(DataTypes.TimestampType) || t.equals(DataTypes.TimestampNTZType)) {
      return RawSchema.Kind.TIMESTAMP;
    }
    return RawSchema.Kind.OTHER;
  }

  private static Throwable rootCause(Throwable e) {
    Throwable t = e;
    while (t.getCause() != null && t.getCause() != t) {
      t = t.getCause();
    }
    return t;
  }

  private StructType footerSchema(RawFile f) throws Exception {
    try (ParquetFileReader r =
        ParquetFileReader.open(HadoopInputFile.fromPath(new Path(f.path()), conf))) {
      MessageType mt = r.getFooter().getFileMetaData().getSchema();
      return new ParquetToSparkSchemaConverter(spark.sessionState().conf()).convert(mt);
    }
  }

  /**
   * The contract's check (required columns, key, marker and operation types), then the compared
   * columns' types against the table's (or the batch's majority when there is no table yet).
   */
  private FileProblem check(RawFile f, StructType schema, Map<String, DataType> types) {
    RawSchema.Problem p = RawSchema.check(spec, contractColumns(schema));
    if (p != null) {
      return new FileProblem(f, p.reason(), p.detail());
    }
    Map<String, String> fileTypes = new HashMap<>();
    for (StructField field : schema.fields()) {
      fileTypes.put(field.name(), field.dataType().simpleString());
    }
    Map<String, String> tableTypes = new HashMap<>();
    types.forEach((c, t) -> tableTypes.put(c, t.simpleString()));
    RawSchema.Problem compared = RawSchema.checkCompared(spec, fileTypes, tableTypes);
    return compared == null ? null : new FileProblem(f, compared.reason(), compared.detail());
  }

  /** The marker column parsed to the configured type: null when it does not parse. */
  static Column parseMarker(Column raw, DataType rawType, ChangeMarkerType type) {
    DataType target =
        type == ChangeMarkerType.TIMESTAMP ? DataTypes.TimestampType : DataTypes.LongType;
    if (rawType.equals(target)) {
      return raw;
    }
    if (rawType.equals(DataTypes.StringType)) {
      return raw.try_cast(target);
    }
    return raw.cast(target);
  }

  private Dataset<Row> normalize(
      RawFile f, StructType schema, Map<String, DataType> types, boolean isNew) {
    Dataset<Row> df = readLiterally(f, schema);
    String marker = spec.changeMarker().column();
    List<Column> select = new ArrayList<>();
    for (String k : spec.keyColumns()) {
      select.add(col(k).cast(DataTypes.StringType).as(k));
    }
    for (String c : spec.comparedColumns()) {
      select.add(col(c));
    }
    select.add(col(marker).isNotNull().as(Cols.MARKER_PRESENT));
    select.add(
        parseMarker(col(marker), schema.apply(marker).dataType(), spec.changeMarker().type())
            .as(Cols.MARKER));
    String op = spec.operationColumn();
    boolean hasOp = op != null && Arrays.asList(schema.fieldNames()).contains(op);
    select.add(
        (hasOp
                ? org.apache.spark.sql.functions.coalesce(
                    col(op), lit(DatasetSpec.OPERATION_UPSERT))
                : lit(DatasetSpec.OPERATION_UPSERT))
            .as(Cols.OP));
    select.add(lit(f.path()).as(Cols.SOURCE_FILE));
    select.add(col("_metadata.row_index").as(Cols.ROW_INDEX));
    select.add(original(schema).as(Cols.ORIGINAL));
    select.add(lit(isNew).as(Cols.NEW_FILE));
    return df.select(select.toArray(Column[]::new));
  }

  private Dataset<Row> quarantineRows(RawFile f, StructType schema, FileProblem p) {
    return readLiterally(f, schema)
        .select(
            lit(f.path()).as("source_file"),
            col("_metadata.row_index").as("row_number"),
            lit(p.reason().name()).as("reason"),
            lit(p.detail()).as("detail"),
            original(schema).as("original_values"));
  }

  /** Reads one raw file by its literal path (see {@link #LITERAL_READ_OPTIONS}). */
  private Dataset<Row> readLiterally(RawFile f, StructType schema) {
    return spark.read().schema(schema).options(LITERAL_READ_OPTIONS).parquet(f.path());
  }

  private static Column original(StructType schema) {
    return to_json(
        struct(
            Arrays.stream(schema.fieldNames())
                .map(n -> col(IngestSql.quote(n)))
                .toArray(Column[]::new)));
  }

  private static Map<String, DataType> majorityTypes(
      Collection<StructType> schemas, List<String> columns) {
    Map<String, DataType> out = new LinkedHashMap<>();
    for (String c : columns) {
      Map<DataType, Integer> votes = new LinkedHashMap<>();
      for (StructType s : schemas) {
        if (Arrays.asList(s.fieldNames()).contains(c)) {
          votes.merge(s.apply(c).dataType(), 1, Integer::sum);
        }
      }
      votes.entrySet().stream()
          .max(Map.Entry.comparingByValue())
          .ifPresent(e -> out.put(c, e.getKey()));
    }
    return out;
  }

  private static Dataset<Row> union(List<Dataset<Row>> parts) {
    Dataset<Row> out = null;
    for (Dataset<Row> d : parts) {
      out = out == null ? d : out.unionByName(d);
    }
    return out;
  }

  private static String firstLine(Throwable e) {
    String m = String.valueOf(e.getMessage());
    int nl = m.indexOf('\n');
    return e.getClass().getSimpleName() + ": " + (nl < 0 ? m : m.substring(0, nl));
  }
}
