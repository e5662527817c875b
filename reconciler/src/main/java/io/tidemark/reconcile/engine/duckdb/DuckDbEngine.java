package io.tidemark.reconcile.engine.duckdb;

import io.tidemark.model.config.ChangeMarkerType;
import io.tidemark.model.config.DatasetSpec;
import io.tidemark.model.contract.RawLayout.StrayEntry;
import io.tidemark.model.contract.RawSchema;
import io.tidemark.model.contract.ReasonCode;
import io.tidemark.model.json.Checks;
import io.tidemark.model.report.ReconciliationMode;
import io.tidemark.reconcile.engine.EngineNames;
import io.tidemark.reconcile.engine.EngineRequest;
import io.tidemark.reconcile.engine.ExcludedFile;
import io.tidemark.reconcile.engine.Finding;
import io.tidemark.reconcile.engine.Freshness;
import io.tidemark.reconcile.engine.Observations;
import io.tidemark.reconcile.engine.ReconciliationEngine;
import io.tidemark.reconcile.engine.sql.RawReadPlan;
import io.tidemark.reconcile.engine.sql.Sql;
import io.tidemark.reconcile.kernel.EngineException;
import io.tidemark.reconcile.storage.IcebergTables;
import io.tidemark.reconcile.storage.RawFiles;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The embedded engine: an in-memory DuckDB per reconciliation reads the raw Parquet partitions and
 * the curated table's live data files, with position deletes applied by an anti-join on file path
 * and row position (DuckDB's own Iceberg extension is not needed, nor available offline).
 *
 * <p>Each raw file's footer is read first, one file at a time. A file that cannot be read, lacks a
 * contract column (keys, change marker, operation column when configured, compared columns) or has
 * a change marker of an unusable type is left out whole, as the ingest job quarantines it whole
 * (UNREADABLE_FILE, MISSING_COLUMN, INCOMPATIBLE_TYPE): one bad file neither fails the whole
 * reconciliation nor reads as nulls (false missing keys). Each excluded file is logged at WARN and
 * returned in {@link Observations#excludedFiles()}; the {@code count_match} result's reason starts
 * with them, as {@code file:<path> (<reason>: <detail>)}, whatever its status, since the expected
 * row count leaves their rows out. The other rules evaluate the remaining files as usual.
 *
 * <p>Raw and curated are read as views over their files, never copied whole into memory: a FULL
 * reconciliation compares the two layers bucket by bucket of keys first and row by row only where a
 * bucket differs (see {@link DuckDbDialect}). One reconciliation's DuckDB holds at most {@link
 * #MEMORY_LIMIT} and spills beyond it to a folder of its own under {@code java.io.tmpdir}.
 *
 * <p>A raw row whose timestamp change marker is later than the reconciliation's start plus the
 * dataset's future tolerance is invalid, as a null marker is (the ingest job quarantines it as
 * FUTURE_CHANGE_MARKER): only markers between the window end and that limit hold a key in flight.
 */
public final class DuckDbEngine implements ReconciliationEngine {
  private static final Logger LOG = LoggerFactory.getLogger(DuckDbEngine.class);

  @Override
  public String name() {
    return EngineNames.DUCKDB;
  }

  @Override
  public Observations observe(EngineRequest request) {
    try (Connection c = open()) {
      // Curated first: its column types are what raw files' compared columns must keep.
      CuratedLoad curated = loadCurated(c, request);
      RawLoad raw = loadRaw(c, request, curated.types());
      return analyse(c, request, raw.bytes() + curated.bytes(), raw, curated.liveTypes());
    } catch (SQLException e) {
      throw new EngineException(
          "Cannot reconcile dataset " + request.dataset().name() + " on DuckDB: " + e.getMessage(),
          e);
    }
  }

  /**
   * How this engine reads raw at {@code request.to()}: the winning version of every key (deletes
   * included, keys shown with {@code |} between columns, in key order), the files left out whole
   * and the stray entries. What the rules compare the curated table with; public so that other
   * engines and the ingest job can be held to the same answer key by key.
   */
  public static RawView rawView(EngineRequest request) {
    try (Connection c = open()) {
      RawLoad raw = loadRaw(c, request, curatedTypes(request));
      ChangeMarkerType type = request.dataset().changeMarker().type();
      execute(
          c,
          DuckDbDialect.createExpected(
              DuckDbDialect.capPredicate(
                  type, micros(request.to()), date(request.to()).toString())));
      List<ExpectedVersion> out = new ArrayList<>();
      try (PreparedStatement ps = DuckDbDialect.expectedRows().prepare(c);
          ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          out.add(new ExpectedVersion(rs.getString(1), rs.getLong(2), rs.getBoolean(3)));
        }
      }
      return new RawView(out, raw.excluded(), raw.strays());
    } catch (SQLException e) {
      throw new EngineException(
          "Cannot derive the expected state of dataset "
              + request.dataset().name()
              + " on DuckDB: "
              + e.getMessage(),
          e);
    }
  }

  /**
   * One key's winning raw version.
   *
   * @param key the key, columns joined by {@code |}
   * @param marker the change marker: epoch microseconds, or the sequence
   * @param delete whether the winner is a delete
   */
  public record ExpectedVersion(String key, long marker, boolean delete) {}

  /**
   * Raw as this engine reads it.
   *
   * @param expected the winning version of every key, in key order
   * @param excluded the files left out whole
   * @param strays entries of the raw root that are neither partitions nor hidden
   */
  public record RawView(
      List<ExpectedVersion> expected, List<ExcludedFile> excluded, List<StrayEntry> strays) {}

  /**
   * How much memory one reconciliation's DuckDB may hold before it spills to disk: a FULL
   * reconciliation of ten million keys runs in it (B3 in the README's Performance section).
   */
  public static final String MEMORY_LIMIT = "1GB";

  static Connection open() throws SQLException {
    IcebergTables.loadDriver("org.duckdb.DuckDBDriver");
    Connection c = DriverManager.getConnection("jdbc:duckdb:");
    // Its own folder, which DuckDB makes only when it spills and removes when it closes.
    String spill =
        java.nio.file.Path.of(
                System.getProperty("java.io.tmpdir"),
                "tidemark-duckdb-" + java.util.UUID.randomUUID())
            .toString();
    for (Sql setting : DuckDbDialect.settings(MEMORY_LIMIT, spill)) {
      execute(c, setting);
    }
    return c;
  }

  /**
   * What loading raw did.
   *
   * @param bytes bytes of the files loaded
   * @param excluded the files left out whole
   * @param strays entries of the raw root that are neither partitions nor hidden
   */
  /**
   * What loading raw read.
   *
   * @param arrivals when each file read arrived (its modification time), by path
   */
  record RawLoad(
      long bytes,
      List<ExcludedFile> excluded,
      List<StrayEntry> strays,
      Map<String, Instant> arrivals) {}

  /** Loads the raw partitions the request needs into {@code raw_versions}. */
  static RawLoad loadRaw(Connection c, EngineRequest request, Map<String, String> tableTypes)
      throws SQLException {
    DatasetSpec spec = request.dataset();
    RawReadPlan plan = RawReadPlan.of(request);
    List<RawFiles.RawFile> files = new ArrayList<>();
    List<ExcludedFile> excluded = new ArrayList<>();
    RawFiles.Listing listing = RawFiles.list(spec.raw(), plan.fromDate(), plan.arrivedSince());
    for (StrayEntry stray : listing.strays()) {
      LOG.warn("Not reading {} of dataset {}: {}", stray.path(), spec.name(), stray.problem());
    }
    for (RawFiles.RawFile f : listing.files()) {
      ExcludedFile problem = check(c, spec, f.path(), tableTypes);
      if (problem == null) {
        files.add(f);
      } else {
        LOG.warn(
            "Excluding raw file {} of dataset {}: {} ({})",
            f.path(),
            spec.name(),
            problem.reason(),
            problem.detail());
        excluded.add(problem);
      }
    }
    try (Statement s = c.createStatement()) {
      s.execute(DuckDbDialect.createFileTable("raw_files"));
      if (files.isEmpty()) {
        s.execute(DuckDbDialect.emptyCanonicalRaw());
        return new RawLoad(0, excluded, listing.strays(), Map.of());
      }
    }
    try (PreparedStatement ps = c.prepareStatement(DuckDbDialect.insertFile("raw_files"))) {
      for (RawFiles.RawFile f : files) {
        ps.setString(1, f.path());
        ps.setString(2, f.path());
        ps.setString(3, f.partitionDate().toString());
        ps.addBatch();
      }
      ps.executeBatch();
    }
    createView(
        c,
        "raw_src",
        DuckDbDialect.readParquet(files.stream().map(RawFiles.RawFile::path).toList()));
    Map<String, String> types = columnTypes(c, "raw_src");
    // A FULL reconciliation streams every raw version through a few passes; a WINDOW keeps its
    // few versions in a table.
    Sql versions = DuckDbDialect.rawVersions(spec, types, micros(request.futureLimit()));
    if (request.mode() == ReconciliationMode.FULL) {
      createView(c, "raw_versions", versions);
    } else {
      execute(c, new Sql().append("CREATE TEMP TABLE raw_versions AS ").append(versions));
    }
    Map<String, Instant> arrivals = new java.util.HashMap<>();
    files.forEach(f -> arrivals.put(f.path(), f.arrived()));
    return new RawLoad(
        files.stream().mapToLong(RawFiles.RawFile::bytes).sum(),
        excluded,
        listing.strays(),
        arrivals);
  }

  /**
   * Why a raw file must be left out whole, or null when it can be read: its footer is read (no
   * rows), its columns checked against the contract's {@link RawSchema}.
   */
  /**
   * The curated table's column types as contract type names ({@link RawSchema}); empty when the
   * table does not exist yet.
   */
  static Map<String, String> curatedTypes(EngineRequest request) {
    Catalog catalog = IcebergTables.catalog(request.catalog());
    try {
      org.apache.iceberg.catalog.TableIdentifier id =
          org.apache.iceberg.catalog.TableIdentifier.parse(request.dataset().curatedTable());
      if (!catalog.tableExists(id)) {
        return Map.of();
      }
      return IcebergTables.contractTypes(catalog.loadTable(id));
    } finally {
      IcebergTables.close(catalog);
    }
  }

  /**
   * Why a raw file must be left out whole, or null when it can be read; {@code tableTypes} are the
   * curated table's types, which compared columns must keep.
   */
  static ExcludedFile check(
      Connection c, DatasetSpec spec, String path, Map<String, String> tableTypes) {
    List<RawSchema.Column> columns = new ArrayList<>();
    try (PreparedStatement ps = DuckDbDialect.probeParquet(path).prepare(c);
        ResultSet rs = ps.executeQuery()) {
      ResultSetMetaData md = rs.getMetaData();
      for (int i = 1; i <= md.getColumnCount(); i++) {
        String type = md.getColumnTypeName(i).toUpperCase(Locale.ROOT);
        columns.add(new RawSchema.Column(md.getColumnName(i), kind(type), type));
      }
      // DuckDB renames a column whose name repeats another's in another case (EMAIL -> EMAIL_1):
      // the file's own names come from its Parquet schema.
      List<String> names = new ArrayList<>();
      try (PreparedStatement schema = DuckDbDialect.parquetColumnNames(path).prepare(c);
          ResultSet leaves = schema.executeQuery()) {
        while (leaves.next()) {
          names.add(leaves.getString(1));
        }
      }
      if (names.size() == columns.size()) {
        for (int i = 0; i < names.size(); i++) {
          RawSchema.Column col = columns.get(i);
          columns.set(i, new RawSchema.Column(names.get(i), col.kind(), col.typeName()));
        }
      }
    } catch (SQLException | RuntimeException e) {
      return new ExcludedFile(path, ReasonCode.UNREADABLE_FILE, firstLine(e));
    }
    RawSchema.Problem problem = RawSchema.check(spec, columns);
    if (problem == null) {
      Map<String, String> fileTypes = new LinkedHashMap<>();
      columns.forEach(col -> fileTypes.put(col.name(), contractType(col.typeName())));
      problem = RawSchema.checkCompared(spec, fileTypes, tableTypes);
    }
    return problem == null ? null : new ExcludedFile(path, problem.reason(), problem.detail());
  }

  /** A DuckDB type's contract type name (Spark SQL's simpleString), see {@link RawSchema}. */
  static String contractType(String duckDbType) {
    String t = duckDbType.toUpperCase(Locale.ROOT);
    if (t.startsWith("DECIMAL")) {
      return t.toLowerCase(Locale.ROOT).replace(" ", "");
    }
    return switch (t) {
      case "VARCHAR" -> "string";
      case "INTEGER" -> "int";
      case "BIGINT" -> "bigint";
      case "SMALLINT" -> "smallint";
      case "TINYINT" -> "tinyint";
      case "FLOAT" -> "float";
      case "DOUBLE" -> "double";
      case "BOOLEAN" -> "boolean";
      case "DATE" -> "date";
      case "BLOB" -> "binary";
      case "TIMESTAMP WITH TIME ZONE" -> "timestamp";
      case "TIMESTAMP", "TIMESTAMP_NS", "TIMESTAMP_MS", "TIMESTAMP_S" -> "timestamp_ntz";
      default -> t.toLowerCase(Locale.ROOT);
    };
  }

  /** How a DuckDB type counts for the contract. */
  static RawSchema.Kind kind(String duckDbType) {
    if (duckDbType.equals("VARCHAR")) {
      return RawSchema.Kind.TEXT;
    }
    if (duckDbType.startsWith("TIMESTAMP")) {
      return RawSchema.Kind.TIMESTAMP;
    }
    return DuckDbDialect.isInteger(duckDbType) ? RawSchema.Kind.INTEGER : RawSchema.Kind.OTHER;
  }

  private static String firstLine(Throwable e) {
    String m = e.getMessage();
    if (m == null || m.isBlank()) {
      return e.getClass().getSimpleName();
    }
    return m.lines().filter(l -> !l.isBlank()).findFirst().orElse(m).trim();
  }

  /**
   * What loading the curated table did.
   *
   * @param bytes bytes of its live data and delete files
   * @param types its columns' contract types
   * @param liveTypes the DuckDB column types of {@code curated_live}; null when the table has no
   *     data file
   */
  record CuratedLoad(long bytes, Map<String, String> types, Map<String, String> liveTypes) {}

  /** Loads the curated table's live rows into {@code curated_rows}. */
  static CuratedLoad loadCurated(Connection c, EngineRequest request) throws SQLException {
    Catalog catalog = IcebergTables.catalog(request.catalog());
    try {
      Table table = IcebergTables.load(catalog, request.dataset().curatedTable());
      Map<String, String> tableTypes = IcebergTables.contractTypes(table);
      IcebergTables.LiveFiles live = IcebergTables.liveFiles(table);
      if (live.dataFiles().isEmpty()) {
        try (Statement s = c.createStatement()) {
          s.execute(DuckDbDialect.emptyCanonicalCurated());
        }
        return new CuratedLoad(0, tableTypes, null);
      }
      loadLive(c, live);
      Map<String, String> types = columnTypes(c, "curated_live");
      try (Statement s = c.createStatement()) {
        s.execute(DuckDbDialect.createCuratedRows(request.dataset(), types));
      }
      return new CuratedLoad(live.bytes(), tableTypes, types);
    } finally {
      IcebergTables.close(catalog);
    }
  }

  /**
   * Creates {@code curated_live}: every column of the live rows of the given files, position
   * deletes applied. Returns the column names.
   */
  public static List<String> loadLive(Connection c, IcebergTables.LiveFiles live)
      throws SQLException {
    try (Statement s = c.createStatement()) {
      s.execute(DuckDbDialect.createFileTable("curated_files"));
    }
    List<String> paths = new ArrayList<>();
    try (PreparedStatement ps = c.prepareStatement(DuckDbDialect.insertFile("curated_files"))) {
      for (String location : live.dataFiles()) {
        String path = RawFiles.localPath(location).toString();
        paths.add(path);
        ps.setString(1, path);
        ps.setString(2, location);
        ps.setString(3, null);
        ps.addBatch();
      }
      ps.executeBatch();
    }
    createView(c, "curated_src", DuckDbDialect.readParquet(paths));
    if (live.positionDeletes().isEmpty()) {
      try (Statement s = c.createStatement()) {
        s.execute(DuckDbDialect.emptyPositionDeletes());
      }
    } else {
      List<String> deletes =
          live.positionDeletes().stream().map(l -> RawFiles.localPath(l).toString()).toList();
      execute(c, DuckDbDialect.loadPositionDeletes(deletes));
    }
    List<String> columns = new ArrayList<>(columnTypes(c, "curated_src").keySet());
    columns.removeAll(List.of("filename", "file_row_number"));
    try (Statement s = c.createStatement()) {
      s.execute(DuckDbDialect.createCuratedLive(columns));
    }
    return columns;
  }

  private static Observations analyse(
      Connection c, EngineRequest r, long bytes, RawLoad raw, Map<String, String> curatedTypes)
      throws SQLException {
    DatasetSpec spec = r.dataset();
    String checkedCuratedRows = DuckDbDialect.createCheckedCuratedRows(spec, curatedTypes);
    ChangeMarkerType type = spec.changeMarker().type();
    long toMicros = micros(r.to());
    String toDate = date(r.to()).toString();
    Sql cap = DuckDbDialect.capPredicate(type, toMicros, toDate);
    execute(c, DuckDbDialect.createInFlight(cap));
    long expectedRows;
    long curatedRows;
    Long newestCurated;
    boolean compareRows = true;
    if (r.mode() == ReconciliationMode.WINDOW) {
      execute(c, DuckDbDialect.createExpected(cap));
      Long fromMicros = r.from() == null ? null : micros(r.from());
      String fromDate = r.from() == null ? null : date(r.from()).toString();
      execute(
          c,
          DuckDbDialect.createCheckedWindow(
              DuckDbDialect.rawWindowPredicate(type, fromMicros, toMicros, fromDate, toDate),
              DuckDbDialect.curatedWindowKeys(spec, curatedTypes, fromMicros, toMicros)));
      createComparison(c, checkedCuratedRows);
      expectedRows = scalar(c, new Sql().append(DuckDbDialect.EXPECTED_ROWS));
      curatedRows = scalar(c, new Sql().append(DuckDbDialect.CURATED_ROWS));
      // The checked rows' newest marker is one curated holds: only rows from it on can be newer.
      Long checkedNewest = nullableScalar(c, new Sql().append(DuckDbDialect.NEWEST_CHECKED));
      newestCurated =
          nullableScalar(c, DuckDbDialect.newestCurated(spec, curatedTypes, checkedNewest));
    } else {
      // Both layers bucket by bucket first; rows are compared only where a bucket differs.
      execute(c, DuckDbDialect.createRawBuckets(cap));
      execute(c, DuckDbDialect.createCuratedBuckets());
      execute(c, DuckDbDialect.createDifferentBuckets());
      long different = scalar(c, new Sql().append(DuckDbDialect.DIFFERENT_BUCKETS));
      LOG.debug(
          "Dataset {}: {} of {} key buckets differ", spec.name(), different, DuckDbDialect.BUCKETS);
      try (PreparedStatement ps = new Sql().append(DuckDbDialect.AGREEING_TOTALS).prepare(c);
          ResultSet rs = ps.executeQuery()) {
        rs.next();
        expectedRows = rs.getLong(1);
        curatedRows = rs.getLong(2);
        long newest = rs.getLong(3);
        newestCurated = rs.wasNull() ? null : newest;
      }
      compareRows = different > 0;
      if (compareRows) {
        execute(c, DuckDbDialect.createExpectedInDifferentBuckets(cap));
        execute(c, DuckDbDialect.createCheckedInDifferentBuckets());
        createComparison(c, checkedCuratedRows);
        expectedRows += scalar(c, new Sql().append(DuckDbDialect.EXPECTED_ROWS));
        curatedRows += scalar(c, new Sql().append(DuckDbDialect.CURATED_ROWS));
      }
    }
    int n = r.sampleSize();
    return new Observations(
        expectedRows,
        curatedRows,
        finding(c, DuckDbDialect.COUNT_DIFFERENCE, n, compareRows),
        finding(c, DuckDbDialect.MISSING, n, compareRows),
        finding(c, DuckDbDialect.UNEXPECTED, n, compareRows),
        finding(c, DuckDbDialect.DUPLICATES, n, compareRows),
        finding(c, DuckDbDialect.STALE, n, compareRows),
        finding(c, DuckDbDialect.MISMATCHED, n, compareRows),
        freshness(c, r, cap, newestCurated, raw.arrivals()),
        bytes,
        raw.excluded(),
        raw.strays());
  }

  /** The checked slices of both sides: {@code exp}, {@code cur_rows} and {@code cur}. */
  private static void createComparison(Connection c, String checkedCuratedRows)
      throws SQLException {
    execute(c, DuckDbDialect.CREATE_CHECKED_EXPECTED);
    // The joins of the checked rows build on the side written second: the checked keys, the
    // position deletes, the file list. Left to choose, DuckDB sometimes built on the table's
    // side instead (a one-day WINDOW over 10M keys then spilled a 118 MB hash table and took
    // 6-14 s instead of 1.5-2 s, in about one run of three).
    execute(c, DuckDbDialect.KEEP_BUILD_SIDES);
    try {
      execute(c, checkedCuratedRows);
    } finally {
      execute(c, DuckDbDialect.CHOOSE_BUILD_SIDES);
    }
    execute(c, DuckDbDialect.CREATE_CHECKED_CURATED);
  }

  private static Freshness freshness(
      Connection c, EngineRequest r, Sql cap, Long curated, Map<String, Instant> arrivals) {
    boolean timestamps = r.dataset().changeMarker().type() == ChangeMarkerType.TIMESTAMP;
    try {
      Long raw;
      Long oldestRaw;
      try (PreparedStatement ps = DuckDbDialect.rawMarkerRange(cap).prepare(c);
          ResultSet rs = ps.executeQuery()) {
        rs.next();
        long newest = rs.getLong(1);
        raw = rs.wasNull() ? null : newest;
        long oldest = rs.getLong(2);
        oldestRaw = rs.wasNull() ? null : oldest;
      }
      // An empty curated table while raw holds versions is behind by everything raw holds: since
      // the oldest raw version, every key waits.
      Long behindSince = curated != null ? curated : raw == null ? null : oldestRaw;
      Finding pending =
          behindSince == null
              ? Finding.of(0, List.of())
              : finding(
                  c,
                  DuckDbDialect.pending(cap, curated != null ? curated : Long.MIN_VALUE),
                  r.sampleSize());
      Double lagNow = null;
      if (timestamps && behindSince != null) {
        lagNow = Math.max(0, (micros(r.now()) - behindSince) / 1e6);
      } else if (!timestamps) {
        // A sequence carries no time: how long the oldest file curated has not caught up with
        // has been waiting.
        List<String> waiting = new ArrayList<>();
        if (behindSince != null) {
          try (PreparedStatement ps =
                  DuckDbDialect.pendingFiles(cap, curated != null ? curated : Long.MIN_VALUE)
                      .prepare(c);
              ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
              waiting.add(rs.getString(1));
            }
          }
        }
        lagNow = Freshness.sinceOldestArrival(waiting, arrivals, r.now());
      }
      return new Freshness(
          curated == null ? null : marker(curated, timestamps),
          raw == null ? null : marker(raw, timestamps),
          lagNow,
          pending,
          null);
    } catch (SQLException | RuntimeException e) {
      return Freshness.failed("Cannot measure freshness: " + e.getMessage());
    }
  }

  private static double marker(long value, boolean timestamps) {
    return timestamps ? value / 1e6 : value;
  }

  /** A key finding; none when no rows were compared (every bucket agreed). */
  private static Finding finding(Connection c, String keysQuery, int sampleSize, boolean compared) {
    return compared
        ? finding(c, new Sql().append(keysQuery), sampleSize)
        : Finding.of(0, List.of());
  }

  private static Finding finding(Connection c, Sql keysQuery, int sampleSize) {
    try {
      long count = scalar(c, DuckDbDialect.count(keysQuery));
      List<String> sample = new ArrayList<>();
      if (count == 0) {
        return Finding.of(0, sample); // no keys, no sample: the query is not run again for nothing
      }
      try (PreparedStatement ps = DuckDbDialect.sample(keysQuery, sampleSize).prepare(c);
          ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          sample.add(rs.getString(1));
        }
      }
      return Finding.of(count, sample);
    } catch (SQLException e) {
      return Finding.failed("Cannot run the query: " + e.getMessage());
    }
  }

  private static long scalar(Connection c, Sql sql) throws SQLException {
    Long v = nullableScalar(c, sql);
    return v == null ? 0 : v;
  }

  private static Long nullableScalar(Connection c, Sql sql) throws SQLException {
    try (PreparedStatement ps = sql.prepare(c);
        ResultSet rs = ps.executeQuery()) {
      if (!rs.next()) {
        return null;
      }
      long v = rs.getLong(1);
      return rs.wasNull() ? null : v;
    }
  }

  /**
   * Creates a temporary view over a query with bound values. DuckDB cannot keep parameters in a
   * view, so each value is bound (through a prepared statement) into a session variable of its own
   * that the view reads with {@code getvariable}; the values never enter the SQL text.
   */
  static void createView(Connection c, String name, Sql query) throws SQLException {
    Checks.identifier("view", name);
    try (Statement s = c.createStatement()) {
      s.execute(
          "CREATE TEMP TABLE IF NOT EXISTS bound_values"
              + " (name VARCHAR, text VARCHAR, number BIGINT, texts VARCHAR[])");
    }
    String text = query.text();
    List<Object> params = query.params();
    StringBuilder body = new StringBuilder(text.length() + 32 * params.size());
    int next = 0;
    for (int i = 0; i < text.length(); i++) {
      char ch = text.charAt(i);
      if (ch != '?') {
        body.append(ch);
        continue;
      }
      if (next >= params.size()) {
        throw new IllegalStateException("View " + name + " has more placeholders than values");
      }
      String variable = name + "_" + next;
      bind(c, variable, params.get(next++));
      body.append("getvariable('").append(variable).append("')");
    }
    if (next != params.size()) {
      throw new IllegalStateException("View " + name + " has more values than placeholders");
    }
    try (Statement s = c.createStatement()) {
      s.execute("CREATE TEMP VIEW " + name + " AS " + body);
    }
  }

  private static void bind(Connection c, String variable, Object value) throws SQLException {
    String column;
    try (PreparedStatement ps =
        c.prepareStatement("INSERT INTO bound_values VALUES (?, ?, ?, ?)")) {
      ps.setString(1, variable);
      ps.setNull(2, java.sql.Types.VARCHAR);
      ps.setNull(3, java.sql.Types.BIGINT);
      ps.setNull(4, java.sql.Types.ARRAY);
      if (value instanceof String text) {
        ps.setString(2, text);
        column = "text";
      } else if (value instanceof Long || value instanceof Integer) {
        ps.setLong(3, ((Number) value).longValue());
        column = "number";
      } else if (value instanceof List<?> list) {
        ps.setArray(4, c.createArrayOf("VARCHAR", list.toArray()));
        column = "texts";
      } else {
        throw new IllegalArgumentException(
            "Cannot bind a " + value.getClass().getSimpleName() + " into a view");
      }
      ps.execute();
    }
    try (Statement s = c.createStatement()) {
      s.execute(
          "SET VARIABLE "
              + variable
              + " = (SELECT "
              + column
              + " FROM bound_values WHERE name = '"
              + variable
              + "')");
    }
  }

  static void execute(Connection c, String sql) throws SQLException {
    execute(c, new Sql().append(sql));
  }

  static void execute(Connection c, Sql sql) throws SQLException {
    long t0 = System.nanoTime();
    try (PreparedStatement ps = sql.prepare(c)) {
      ps.execute();
    }
    if (LOG.isDebugEnabled()) {
      String text = sql.text();
      LOG.debug(
          "{} ms: {}",
          (System.nanoTime() - t0) / 1_000_000,
          text.substring(0, Math.min(100, text.length())));
    }
  }

  /** Column name (lower case) to DuckDB type, in table order. */
  static Map<String, String> columnTypes(Connection c, String table) throws SQLException {
    Map<String, String> types = new LinkedHashMap<>();
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(DuckDbDialect.describe(table))) {
      while (rs.next()) {
        types.put(
            rs.getString(1).toLowerCase(Locale.ROOT), rs.getString(2).toUpperCase(Locale.ROOT));
      }
    }
    return types;
  }

  static long micros(Instant i) {
    return ChronoUnit.MICROS.between(Instant.EPOCH, i);
  }

  static LocalDate date(Instant i) {
    return LocalDate.ofInstant(i, ZoneOffset.UTC);
  }
}
