package io.tidemark.ingest.validate;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.struct;
import static org.apache.spark.sql.functions.to_json;

import io.tidemark.ingest.kernel.Cols;
import io.tidemark.ingest.kernel.DeclaredTypes;
import io.tidemark.ingest.kernel.Operations;
import io.tidemark.ingest.kernel.RawFile;
import io.tidemark.ingest.kernel.SqlNames;
import io.tidemark.model.config.ChangeMarkerType;
import io.tidemark.model.contract.DatasetContract;
import io.tidemark.model.contract.RawSchema;
import io.tidemark.model.contract.ReasonCode;
import java.net.URI;
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
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RawLocalFileSystem;
import org.apache.parquet.HadoopReadOptions;
import org.apache.parquet.ParquetReadOptions;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.util.HadoopStreams;
import org.apache.parquet.io.InputFile;
import org.apache.parquet.io.SeekableInputStream;
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
   * @param columnTypes the types of key and payload columns, as the contract declares them
   * @param undeclaredColumns columns of the conforming files that the contract does not declare,
   *     sorted (schema drift: read by no one)
   */
  public record Result(
      Dataset<Row> rows,
      Dataset<Row> problemRows,
      List<FileProblem> problems,
      List<String> warnings,
      Map<String, DataType> columnTypes,
      List<String> undeclaredColumns) {}

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
  private final DatasetContract spec;
  private final Configuration conf;

  /**
   * Options for reading footers, made once: Parquet's default options build a Hadoop configuration
   * of their own, parsing its default resources, for every file opened.
   */
  private final ParquetReadOptions footerOptions;

  public RawReader(SparkSession spark, DatasetContract spec) {
    this.spark = spark;
    this.spec = spec;
    this.conf = new Configuration(spark.sparkContext().hadoopConfiguration());
    LITERAL_READ_OPTIONS.forEach(conf::set);
    this.footerOptions = HadoopReadOptions.builder(conf).build();
  }

  /**
   * Reads the files.
   *
   * @param files the files to read, in path order
   * @param newFiles paths of files new in this batch (for {@link Cols#NEW_FILE})
   * @param tableTypes the curated table's column types when it exists (checked against the contract
   *     already); unused, the contract's types decide
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
    List<FileProblem> problems = new ArrayList<>();
    Map<RawFile, StructType> schemas = footers(files, unreadable, problems);
    // The contract's types, whatever the files hold: keys as text (RawKeys: an integer key reads
    // as its digits), every other column as declared; a file that cannot hold them is rejected.
    Map<String, DataType> types = DeclaredTypes.keysAndPayload(spec);
    Groups groups = group(schemas, types, problems);
    List<Dataset<Row>> conforming = new ArrayList<>();
    groups.conforming.forEach(
        (g, group) -> conforming.add(normalize(group, g.schema(), types, isNew)));
    List<Dataset<Row>> problemRows = problemRows(groups.rejected, problems);
    List<String> warnings = driftWarnings(groups.drift);
    Set<String> undeclared = new TreeSet<>();
    groups.drift.keySet().forEach(undeclared::addAll);
    return new Result(
        union(conforming), union(problemRows), problems, warnings, types, List.copyOf(undeclared));
  }

  /**
   * The footer schemas of the files that can be read; the others are quarantined whole, into {@code
   * problems}.
   */
  private Map<RawFile, StructType> footers(
      List<RawFile> files, Map<String, String> unreadable, List<FileProblem> problems) {
    Map<RawFile, StructType> schemas = new LinkedHashMap<>();
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
    return schemas;
  }

  /**
   * The readable files by footer schema: the ones that conform, the ones the contract rejects, and
   * the extra columns (schema drift) of the conforming ones. Files of one footer schema are read by
   * one scan: a scan (and a union branch) per file makes planning grow with the square of the
   * batch's files.
   */
  private static final class Groups {
    final Map<ReadGroup, List<RawFile>> conforming = new LinkedHashMap<>();
    final Map<ReadGroup, List<FileProblem>> rejected = new LinkedHashMap<>();
    final Map<Set<String>, List<String>> drift = new LinkedHashMap<>();
  }

  private Groups group(
      Map<RawFile, StructType> schemas, Map<String, DataType> types, List<FileProblem> problems) {
    Set<String> contract = new TreeSet<>(spec.columns().keySet());
    Groups groups = new Groups();
    for (Map.Entry<RawFile, StructType> e : schemas.entrySet()) {
      RawFile f = e.getKey();
      StructType schema = e.getValue();
      FileProblem problem = check(f, schema);
      if (problem != null) {
        LOG.warn("Quarantining raw file {}: {} ({})", f.path(), problem.reason(), problem.detail());
        problems.add(problem);
        groups
            .rejected
            .computeIfAbsent(ReadGroup.of(f, schema), k -> new ArrayList<>())
            .add(problem);
        continue;
      }
      Set<String> extra = new TreeSet<>(Arrays.asList(schema.fieldNames()));
      extra.removeAll(contract);
      if (!extra.isEmpty()) {
        groups.drift.computeIfAbsent(extra, k -> new ArrayList<>()).add(f.path());
      }
      groups.conforming.computeIfAbsent(ReadGroup.of(f, schema), k -> new ArrayList<>()).add(f);
    }
    return groups;
  }

  /**
   * The quarantine rows of the files quarantined whole: with their values where the file reads, one
   * row without values where it does not.
   */
  private List<Dataset<Row>> problemRows(
      Map<ReadGroup, List<FileProblem>> rejected, List<FileProblem> problems) {
    List<Dataset<Row>> problemRows = new ArrayList<>();
    rejected.forEach((g, group) -> problemRows.add(quarantineRows(group, g.schema())));
    List<Row> noValues = new ArrayList<>();
    for (FileProblem p : problems) {
      if (p.reason() == ReasonCode.UNREADABLE_FILE || p.reason() == DUPLICATE_COLUMN) {
        noValues.add(RowFactory.create(p.file().path(), -1L, p.reason().name(), p.detail(), null));
      }
    }
    if (!noValues.isEmpty()) {
      problemRows.add(spark.createDataFrame(noValues, PROBLEM_SCHEMA));
    }
    return problemRows;
  }

  private static List<String> driftWarnings(Map<Set<String>, List<String>> drift) {
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
    return warnings;
  }

  /**
   * An empty batch with the normalized shape, for when no file conforms; null when the column types
   * are unknown (no conforming file and no table).
   */
  public static Dataset<Row> emptyNormalized(
      SparkSession spark, DatasetContract spec, Map<String, DataType> types) {
    StructType s = new StructType();
    List<String> cols = new ArrayList<>(spec.keyColumns());
    cols.addAll(spec.payloadColumns());
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
    Map<ReadGroup, List<RawFile>> bySchema = new LinkedHashMap<>();
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
      bySchema.computeIfAbsent(ReadGroup.of(f, schema), k -> new ArrayList<>()).add(f);
    }
    Map<String, String> out = new LinkedHashMap<>();
    bySchema.forEach((g, group) -> findUnreadable(group, g.schema(), out));
    return out;
  }

  /**
   * Reads the files of one schema together and, when that fails, each half again: a batch of n
   * files with k bad ones costs about 2k log2(n) reads instead of n.
   */
  private void findUnreadable(List<RawFile> files, StructType schema, Map<String, String> out) {
    try {
      readLiterally(files, schema).write().format("noop").mode("overwrite").save();
    } catch (Exception e) {
      if (files.size() == 1) {
        RawFile f = files.get(0);
        String why = firstLine(rootCause(e));
        LOG.warn("Raw file {} has a readable footer but unreadable data: {}", f.path(), why);
        out.put(f.path(), why);
        return;
      }
      int half = files.size() / 2;
      findUnreadable(files.subList(0, half), schema, out);
      findUnreadable(files.subList(half, files.size()), schema, out);
    }
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

  /**
   * The file systems footers are read through, one per scheme and authority: the literal-read
   * configuration disables Hadoop's cache, and a file system made per file cost more than reading a
   * one-row file's footer.
   */
  private final Map<String, FileSystem> fileSystems = new HashMap<>();

  private FileSystem fileSystem(Path p) throws java.io.IOException {
    URI u = p.toUri();
    String key = u.getScheme() + "://" + u.getAuthority();
    FileSystem fs = fileSystems.get(key);
    if (fs == null) {
      fs = p.getFileSystem(conf);
      fileSystems.put(key, fs);
    }
    return fs;
  }

  /**
   * A raw file's columns and their Spark types, from its footer.
   *
   * @throws Exception when the footer cannot be read
   */
  public StructType schemaOf(RawFile f) throws Exception {
    return footerSchema(f);
  }

  private StructType footerSchema(RawFile f) throws Exception {
    Path p = new Path(f.path());
    FileSystem fs = fileSystem(p);
    // The listed length: no second status request per file.
    InputFile in =
        new InputFile() {
          @Override
          public long getLength() {
            return f.size();
          }

          @Override
          public SeekableInputStream newStream() throws java.io.IOException {
            return HadoopStreams.wrap(fs.open(p));
          }
        };
    try (ParquetFileReader r = ParquetFileReader.open(in, footerOptions)) {
      MessageType mt = r.getFooter().getFileMetaData().getSchema();
      return new ParquetToSparkSchemaConverter(spark.sessionState().conf()).convert(mt);
    }
  }

  /**
   * The contract's check: required columns, key, marker and operation types, and every declared
   * column's type (a type it widens to without loss: {@code int} into {@code long}, a narrower
   * decimal into a wider one).
   */
  private FileProblem check(RawFile f, StructType schema) {
    RawSchema.Problem p = RawSchema.check(spec, contractColumns(schema));
    return p == null ? null : new FileProblem(f, p.reason(), p.detail());
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
      List<RawFile> files, StructType schema, Map<String, DataType> types, Set<String> isNew) {
    String marker = spec.changeMarker().column();
    String op = spec.operationColumn();
    boolean hasOp = op != null && Arrays.asList(schema.fieldNames()).contains(op);
    List<String> rawColumns = new ArrayList<>(spec.keyColumns());
    rawColumns.addAll(spec.payloadColumns());
    rawColumns.add(marker);
    if (hasOp) {
      rawColumns.add(op);
    }
    Dataset<Row> df =
        withFileFacts(
            files,
            schema,
            rawColumns.stream().distinct().toList(),
            new StructType()
                .add(Cols.SOURCE_FILE, DataTypes.StringType, false)
                .add(Cols.NEW_FILE, DataTypes.BooleanType, false),
            f -> new Object[] {f.path(), isNew.contains(f.path())});
    List<Column> select = new ArrayList<>();
    for (String k : spec.keyColumns()) {
      select.add(col(k).cast(DataTypes.StringType).as(k));
    }
    for (String c : spec.payloadColumns()) {
      // Lossless: the file's type is the declared one or widens to it (checked above).
      select.add(col(c).cast(types.get(c)).as(c));
    }
    select.add(col(marker).isNotNull().as(Cols.MARKER_PRESENT));
    select.add(
        parseMarker(col(marker), schema.apply(marker).dataType(), spec.changeMarker().type())
            .as(Cols.MARKER));
    select.add(
        (hasOp ? Operations.of(col(op), spec.operation()) : Operations.absent()).as(Cols.OP));
    select.add(col(Cols.SOURCE_FILE));
    select.add(col(ROW_INDEX_READ).as(Cols.ROW_INDEX));
    select.add(col(ORIGINAL_READ).as(Cols.ORIGINAL));
    select.add(col(Cols.NEW_FILE));
    return df.select(select.toArray(Column[]::new));
  }

  /** The rows of files quarantined whole, with their values: one scan for the schema's files. */
  private Dataset<Row> quarantineRows(List<FileProblem> problems, StructType schema) {
    Map<RawFile, FileProblem> byFile = new LinkedHashMap<>();
    problems.forEach(p -> byFile.put(p.file(), p));
    return withFileFacts(
            List.copyOf(byFile.keySet()),
            schema,
            List.of(),
            new StructType()
                .add(Cols.SOURCE_FILE, DataTypes.StringType, false)
                .add(Cols.REASON, DataTypes.StringType, false)
                .add(Cols.DETAIL, DataTypes.StringType, true),
            f -> new Object[] {f.path(), byFile.get(f).reason().name(), byFile.get(f).detail()})
        .select(
            col(Cols.SOURCE_FILE).as("source_file"),
            col(ROW_INDEX_READ).as("row_number"),
            col(Cols.REASON).as("reason"),
            col(Cols.DETAIL).as("detail"),
            col(ORIGINAL_READ).as("original_values"));
  }

  /**
   * Files read by one scan: those of one footer schema whose paths are plain. A path with a
   * character Spark would escape or take for a pattern ({@code [ ] { } * ? \ :}, a space, {@code
   * %}, anything beyond ASCII letters, digits and {@code / . _ - =}) is read alone, as before:
   * Spark's listing of several such paths at once reads some files more than once.
   *
   * @param alone the file read alone; null for the group of plain paths
   */
  private record ReadGroup(StructType schema, String alone) {
    static ReadGroup of(RawFile f, StructType schema) {
      return new ReadGroup(schema, isPlain(f.path()) ? null : f.path());
    }
  }

  /** Whether a path holds only characters every spelling of it shares (see {@link ReadGroup}). */
  static boolean isPlain(String path) {
    int start = path.indexOf(":/");
    String rest = start < 0 ? path : path.substring(start + 1);
    for (int i = 0; i < rest.length(); i++) {
      char c = rest.charAt(i);
      boolean ok =
          (c >= 'a' && c <= 'z')
              || (c >= 'A' && c <= 'Z')
              || (c >= '0' && c <= '9')
              || c == '/'
              || c == '.'
              || c == '_'
              || c == '-'
              || c == '=';
      if (!ok) {
        return false;
      }
    }
    return true;
  }

  /** Working columns of {@link #withFileFacts}: a row's position in its file, its raw values. */
  private static final String ROW_INDEX_READ = "_read_row_index";

  private static final String ORIGINAL_READ = "_read_original";
  private static final String FILE_KEY = "_read_file";
  private static final String FACT_KEY = "_read_fact_file";

  /**
   * Reads files of one schema in one scan: the {@code rawColumns} of each row, its position in its
   * file ({@value #ROW_INDEX_READ}), its values as JSON ({@value #ORIGINAL_READ}) and the facts of
   * its file (the columns of {@code factSchema}, per file from {@code facts}), matched by the path
   * Spark read the row from. A row whose path matches no file of the list fails the query, naming
   * the path: no row is ever left without its file.
   */
  private Dataset<Row> withFileFacts(
      List<RawFile> files,
      StructType schema,
      List<String> rawColumns,
      StructType factSchema,
      java.util.function.Function<RawFile, Object[]> facts) {
    Dataset<Row> df = readLiterally(files, schema);
    List<Row> factRows = factRows(df, files, facts);
    StructType keyed = new StructType().add(FACT_KEY, DataTypes.StringType, false);
    for (StructField f : factSchema.fields()) {
      keyed = keyed.add(f);
    }
    List<Column> select = new ArrayList<>();
    rawColumns.forEach(c -> select.add(col(SqlNames.quote(c))));
    select.add(col("_metadata.file_path").as(FILE_KEY));
    select.add(col("_metadata.row_index").as(ROW_INDEX_READ));
    select.add(original(schema).as(ORIGINAL_READ));
    Dataset<Row> read = df.select(select.toArray(Column[]::new));
    Dataset<Row> fileFacts = spark.createDataFrame(factRows, keyed);
    Dataset<Row> joined =
        read.join(
            org.apache.spark.sql.functions.broadcast(fileFacts),
            read.col(FILE_KEY).equalTo(fileFacts.col(FACT_KEY)),
            "left");
    String first = factSchema.fieldNames()[0];
    return joined
        .withColumn(
            first,
            org.apache.spark.sql.functions.coalesce(
                col(first),
                org.apache.spark.sql.functions.raise_error(
                    org.apache.spark.sql.functions.concat(
                        lit("Cannot tell which raw file of the batch a row read from "),
                        col(FILE_KEY),
                        lit(" came from")))))
        .drop(FACT_KEY, FILE_KEY);
  }

  /**
   * The facts of each file Spark listed, under each spelling of its path, matched to the batch's
   * files by location; every file of the batch must be listed, and nothing else.
   */
  private static List<Row> factRows(
      Dataset<Row> df, List<RawFile> files, java.util.function.Function<RawFile, Object[]> facts) {
    Map<String, RawFile> byLocation = new HashMap<>();
    files.forEach(f -> byLocation.put(location(new Path(f.path()).toUri()), f));
    List<Row> factRows = new ArrayList<>();
    for (String listed : df.inputFiles()) {
      RawFile f = byLocation.remove(location(URI.create(listed)));
      if (f == null) {
        throw new IllegalStateException(
            "Cannot match the file Spark listed, "
                + listed
                + ", to a raw file of the batch ("
                + files.size()
                + " file(s) read with one schema, the first "
                + files.get(0).path()
                + ")");
      }
      Object[] values = facts.apply(f);
      // Spark's listing and its rows' file_path may spell a path differently (file:/// and
      // file:/): the file's facts go under each spelling; a row's path has one of them.
      Set<String> spellings = new java.util.LinkedHashSet<>();
      spellings.add(listed);
      spellings.add(new Path(URI.create(listed)).toUri().toString());
      spellings.add(new Path(f.path()).toUri().toString());
      for (String spelling : spellings) {
        Object[] row = new Object[values.length + 1];
        row[0] = spelling;
        System.arraycopy(values, 0, row, 1, values.length);
        factRows.add(RowFactory.create(row));
      }
    }
    if (!byLocation.isEmpty()) {
      throw new IllegalStateException(
          "Cannot read raw files "
              + byLocation.values().stream().map(RawFile::path).sorted().limit(10).toList()
              + ": Spark did not list them");
    }
    return factRows;
  }

  /**
   * A location as scheme, authority and decoded path: what Hadoop's literal spelling of a path
   * ({@code file:/a/q?.parquet}) and Spark's URI of it ({@code file:///a/q%3F.parquet}) share.
   */
  static String location(URI u) {
    return u.getScheme()
        + "|"
        + (u.getAuthority() == null ? "" : u.getAuthority())
        + "|"
        + u.getPath();
  }

  /** Reads raw files of one schema by their literal paths (see {@link #LITERAL_READ_OPTIONS}). */
  private Dataset<Row> readLiterally(List<RawFile> files, StructType schema) {
    return spark
        .read()
        .schema(schema)
        .options(LITERAL_READ_OPTIONS)
        .parquet(files.stream().map(RawFile::path).toArray(String[]::new));
  }

  private static Column original(StructType schema) {
    return to_json(
        struct(
            Arrays.stream(schema.fieldNames())
                .map(n -> col(SqlNames.quote(n)))
                .toArray(Column[]::new)));
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
