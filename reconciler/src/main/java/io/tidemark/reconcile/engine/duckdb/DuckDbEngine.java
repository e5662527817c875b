package io.tidemark.reconcile.engine.duckdb;

import static io.tidemark.reconcile.engine.duckdb.DuckDbDialect.SQL;

import io.tidemark.model.config.ChangeMarkerType;
import io.tidemark.model.config.DatasetSpec;
import io.tidemark.model.config.RuleSpec;
import io.tidemark.model.contract.DatasetContract;
import io.tidemark.model.contract.DatasetSpecs;
import io.tidemark.model.contract.RawLayout.StrayEntry;
import io.tidemark.model.json.Checks;
import io.tidemark.model.report.ReconciliationMode;
import io.tidemark.reconcile.engine.AggregateFinding;
import io.tidemark.reconcile.engine.EngineNames;
import io.tidemark.reconcile.engine.EngineRequest;
import io.tidemark.reconcile.engine.ExcludedFile;
import io.tidemark.reconcile.engine.Finding;
import io.tidemark.reconcile.engine.Freshness;
import io.tidemark.reconcile.engine.Observations;
import io.tidemark.reconcile.engine.ReconciliationEngine;
import io.tidemark.reconcile.engine.Referenced;
import io.tidemark.reconcile.engine.sql.AggregateMeasures;
import io.tidemark.reconcile.engine.sql.CustomRules;
import io.tidemark.reconcile.engine.sql.FreshnessMeasure;
import io.tidemark.reconcile.engine.sql.KeySamples;
import io.tidemark.reconcile.engine.sql.RawReadPlan;
import io.tidemark.reconcile.engine.sql.ReconciliationSql;
import io.tidemark.reconcile.engine.sql.ReferenceRules;
import io.tidemark.reconcile.engine.sql.Sql;
import io.tidemark.reconcile.engine.sql.ValueDiffs;
import io.tidemark.reconcile.engine.sql.Window;
import io.tidemark.reconcile.kernel.EngineException;
import io.tidemark.reconcile.storage.IcebergTables;
import io.tidemark.reconcile.storage.RawFiles;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
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
 * bucket differs (see {@link ReconciliationSql}). One reconciliation's DuckDB holds at most {@link
 * #MEMORY_LIMIT} and spills beyond it to a folder of its own under {@code java.io.tmpdir}.
 *
 * <p>A raw row whose timestamp change marker is later than the reconciliation's start plus the
 * dataset's future tolerance is invalid, as a null marker is (the ingest job quarantines it as
 * FUTURE_CHANGE_MARKER): only markers between the window end and that limit hold a key in flight.
 */
public final class DuckDbEngine implements ReconciliationEngine {
  private static final Logger LOG = LoggerFactory.getLogger(DuckDbEngine.class);

  /**
   * How much memory one reconciliation's DuckDB may hold before it spills to disk: a FULL
   * reconciliation of ten million keys runs in it (B3 in the README's Performance section).
   */
  public static final String MEMORY_LIMIT = "1GB";

  /** The key rows of {@code expected}, keys shown with {@code |} between columns, in key order. */
  private static final Sql EXPECTED_ROWS =
      new Sql()
          .append("SELECT replace(key, " + ReconciliationSql.KEY_SEPARATOR + ", ")
          .param(ReconciliationSql.DISPLAY_SEPARATOR)
          .append(") AS k, marker, is_delete FROM expected ORDER BY k");

  /** How long a custom rule's query may run before it is stopped (its rule is then an ERROR). */
  public static final Duration CUSTOM_RULE_TIMEOUT = Duration.ofMinutes(10);

  /** Stops custom queries that run past their time. */
  private static final java.util.concurrent.ScheduledExecutorService TIMER =
      java.util.concurrent.Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread t = new Thread(r, "duckdb-custom-rule-timer");
            t.setDaemon(true);
            return t;
          });

  private final Duration customRuleTimeout;

  public DuckDbEngine() {
    this(CUSTOM_RULE_TIMEOUT);
  }

  /** An engine whose custom rules' queries are stopped after {@code customRuleTimeout}. */
  public DuckDbEngine(Duration customRuleTimeout) {
    if (customRuleTimeout.isNegative() || customRuleTimeout.isZero()) {
      throw new IllegalArgumentException(
          "Cannot time custom rules out after " + customRuleTimeout + ": must be positive");
    }
    this.customRuleTimeout = customRuleTimeout;
  }

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
      return analyse(
          c,
          request,
          raw.bytes() + curated.bytes(),
          raw,
          curated.liveTypes(),
          curated.types(),
          customRuleTimeout);
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
          DuckDbDialect.createTable("expected", SQL.expected(SQL.cap(type, Window.of(request)))));
      List<ExpectedVersion> out = new ArrayList<>();
      try (PreparedStatement ps = EXPECTED_ROWS.prepare(c);
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

  static Connection open() throws SQLException {
    IcebergTables.loadDriver("org.duckdb.DuckDBDriver");
    Connection c = DriverManager.getConnection("jdbc:duckdb:");
    // Its own folder, which DuckDB makes only when it spills and removes when it closes.
    String spill =
        java.nio.file.Path.of(
                System.getProperty("java.io.tmpdir"),
                "tidemark-duckdb-" + java.util.UUID.randomUUID())
            .toString();
    for (Sql setting : DuckDbFiles.settings(MEMORY_LIMIT, spill)) {
      execute(c, setting);
    }
    return c;
  }

  /**
   * What loading raw read.
   *
   * @param bytes bytes of the files loaded
   * @param excluded the files left out whole
   * @param strays entries of the raw root that are neither partitions nor hidden
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
    // An audit reads raw as the ingest run found it: later files are not read.
    RawFiles.Listing listing =
        RawFiles.list(request.contract(), plan.fromDate(), plan.arrivedSince())
            .asOf(request.rawArrivedBy());
    for (StrayEntry stray : listing.strays()) {
      LOG.warn("Not reading {} of dataset {}: {}", stray.path(), spec.name(), stray.problem());
    }
    List<ExcludedFile> excluded = new ArrayList<>();
    List<RawFiles.RawFile> files =
        readable(c, request.contract(), listing.files(), tableTypes, excluded);
    try (Statement s = c.createStatement()) {
      s.execute(DuckDbFiles.createFileTable("raw_files"));
      if (files.isEmpty()) {
        s.execute(DuckDbFiles.emptyCanonicalRaw());
        s.execute(DuckDbFiles.emptyRawValued(spec.comparedColumns().size()));
        return new RawLoad(0, excluded, listing.strays(), Map.of());
      }
    }
    try (PreparedStatement ps = c.prepareStatement(DuckDbFiles.insertFile("raw_files"))) {
      for (RawFiles.RawFile f : files) {
        ps.setString(1, f.path());
        ps.setString(2, f.path());
        ps.setString(3, f.partitionDate().toString());
        ps.addBatch();
      }
      ps.executeBatch();
    }
    createView(
        c, "raw_src", DuckDbFiles.readParquet(files.stream().map(RawFiles.RawFile::path).toList()));
    Map<String, String> types = columnTypes(c, "raw_src");
    // A FULL reconciliation streams every raw version through a few passes; a WINDOW keeps its
    // few versions in a table.
    Sql versions =
        DuckDbDialect.rawVersions(request.contract(), types, micros(request.futureLimit()));
    if (request.mode() == ReconciliationMode.FULL) {
      createView(c, "raw_versions", versions);
    } else {
      execute(c, DuckDbDialect.createTable("raw_versions", versions));
    }
    createView(
        c,
        "raw_valued",
        DuckDbDialect.rawValued(request.contract(), types, micros(request.futureLimit())));
    Map<String, Instant> arrivals = new HashMap<>();
    files.forEach(f -> arrivals.put(f.path(), f.arrived()));
    return new RawLoad(
        files.stream().mapToLong(RawFiles.RawFile::bytes).sum(),
        excluded,
        listing.strays(),
        arrivals);
  }

  /**
   * The files that can be read; each one left out whole is logged and added to {@code excluded}.
   */
  private static List<RawFiles.RawFile> readable(
      Connection c,
      DatasetContract contract,
      List<RawFiles.RawFile> listed,
      Map<String, String> tableTypes,
      List<ExcludedFile> excluded) {
    List<RawFiles.RawFile> files = new ArrayList<>();
    for (RawFiles.RawFile f : listed) {
      ExcludedFile problem = RawFileCheck.check(c, contract, f.path(), tableTypes);
      if (problem == null) {
        files.add(f);
      } else {
        LOG.warn(
            "Excluding raw file {} of dataset {}: {} ({})",
            f.path(),
            contract.name(),
            problem.reason(),
            problem.detail());
        excluded.add(problem);
      }
    }
    return files;
  }

  /**
   * The curated table's column types as contract type names ({@link
   * io.tidemark.model.contract.RawSchema}); empty when the table does not exist yet.
   */
  static Map<String, String> curatedTypes(EngineRequest request) {
    Catalog catalog = IcebergTables.catalog(request.catalog());
    try {
      org.apache.iceberg.catalog.TableIdentifier id =
          org.apache.iceberg.catalog.TableIdentifier.parse(request.dataset().curatedTable());
      if (!catalog.tableExists(id)) {
        return Map.of();
      }
      return IcebergTables.contractTypes(catalog.loadTable(id), request.curatedSnapshot());
    } finally {
      IcebergTables.close(catalog);
    }
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

  /** Loads the live rows of the requested curated snapshot into {@code curated_rows}. */
  static CuratedLoad loadCurated(Connection c, EngineRequest request) throws SQLException {
    Catalog catalog = IcebergTables.catalog(request.catalog());
    try {
      Table table = IcebergTables.load(catalog, request.dataset().curatedTable());
      Map<String, String> tableTypes =
          IcebergTables.contractTypes(table, request.curatedSnapshot());
      IcebergTables.LiveFiles live = IcebergTables.liveFiles(table, request.curatedSnapshot());
      if (live.dataFiles().isEmpty()) {
        try (Statement s = c.createStatement()) {
          s.execute(DuckDbFiles.emptyCanonicalCurated());
          s.execute(DuckDbFiles.emptyCuratedValued(request.dataset().comparedColumns().size()));
        }
        return new CuratedLoad(0, tableTypes, null);
      }
      loadLive(c, "curated", live);
      Map<String, String> types = columnTypes(c, "curated_live");
      try (Statement s = c.createStatement()) {
        s.execute(DuckDbDialect.createCuratedRows(request.dataset(), types));
        s.execute(DuckDbDialect.createCuratedValued(request.dataset(), types));
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
    return loadLive(c, "curated", live);
  }

  /**
   * Creates {@code <table>_live}: every column of the live rows of the given files, position
   * deletes applied. Returns the column names.
   */
  static List<String> loadLive(Connection c, String table, IcebergTables.LiveFiles live)
      throws SQLException {
    try (Statement s = c.createStatement()) {
      s.execute(DuckDbFiles.createFileTable(table + "_files"));
    }
    List<String> paths = new ArrayList<>();
    try (PreparedStatement ps = c.prepareStatement(DuckDbFiles.insertFile(table + "_files"))) {
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
    createView(c, table + "_src", DuckDbFiles.readParquet(paths));
    if (live.positionDeletes().isEmpty()) {
      try (Statement s = c.createStatement()) {
        s.execute(DuckDbFiles.emptyPositionDeletes(table));
      }
    } else {
      List<String> deletes =
          live.positionDeletes().stream().map(l -> RawFiles.localPath(l).toString()).toList();
      execute(c, DuckDbFiles.loadPositionDeletes(table, deletes));
    }
    List<String> columns = new ArrayList<>(columnTypes(c, table + "_src").keySet());
    columns.removeAll(List.of("filename", "file_row_number"));
    try (Statement s = c.createStatement()) {
      s.execute(DuckDbFiles.createLive(table, columns));
    }
    return columns;
  }

  /**
   * The query of the live keys of the dataset a referential rule references: its curated table's
   * live rows at its current snapshot, loaded as {@code ref_<n>_live} the first time a rule names
   * it.
   */
  private static String referencedKeys(Connection c, EngineRequest r, RuleSpec rule, Loads loaded) {
    Referenced ref = r.referenced(rule);
    return loaded.done.computeIfAbsent(
        "dataset " + ref.contract().name(),
        k -> {
          String live =
              live(
                  c,
                  ref.catalog(),
                  DatasetSpecs.of(ref.contract()).curatedTable(),
                  loaded.name("ref"),
                  false);
          if (live == null) {
            return DuckDbFiles.NO_KEYS;
          }
          // The keys as a table of their own: the rule's NOT EXISTS then reads a plain table,
          // not a view that holds a NOT EXISTS of its own (the position deletes), a nesting on
          // which DuckDB 1.4 failed with "Attempted to access index 0 within vector of size 0".
          String keys = loaded.name("ref_keys");
          try {
            execute(
                c,
                DuckDbDialect.createTable(
                    keys,
                    new Sql()
                        .append(
                            SQL.referencedKeys(
                                DatasetSpecs.of(ref.contract()),
                                ReferenceRules.declaredTypes(ref.contract()),
                                live))));
          } catch (SQLException e) {
            throw new EngineException(
                "Cannot read the keys of dataset " + ref.contract().name() + ": " + e.getMessage(),
                e);
          }
          return "SELECT tidemark_key FROM " + keys;
        });
  }

  /**
   * Tables one reconciliation loaded for the rules with a query of their own, each once (by what
   * they are), under names used once: a load that fails halfway leaves its names behind.
   */
  private static final class Loads {
    final Map<String, String> done = new HashMap<>();
    private int next;

    String name(String prefix) {
      return prefix + "_" + next++;
    }
  }

  /** The quarantine relation of custom rules: its table's live rows, or null without a table. */
  private static String quarantineRows(Connection c, EngineRequest r, Loads loaded) {
    String live =
        live(c, r.catalog(), r.contract().quarantineTable(), loaded.name("quarantine"), true);
    if (live == null) {
      return null;
    }
    try {
      return SQL.quarantineRows(live, columnTypes(c, live).containsKey("replayed_at"));
    } catch (SQLException e) {
      throw new EngineException("Cannot read the quarantine table: " + e.getMessage(), e);
    }
  }

  /**
   * The live rows of an Iceberg table at its current snapshot, loaded as {@code <name>_live}: the
   * view's name, or null when the table holds no data file (or, when {@code mayBeMissing}, does not
   * exist).
   */
  private static String live(
      Connection c,
      io.tidemark.model.config.CatalogSpec spec,
      String table,
      String name,
      boolean mayBeMissing) {
    Catalog catalog = IcebergTables.catalog(spec);
    try {
      org.apache.iceberg.catalog.TableIdentifier id =
          org.apache.iceberg.catalog.TableIdentifier.parse(table);
      if (mayBeMissing && !catalog.tableExists(id)) {
        return null;
      }
      IcebergTables.LiveFiles live =
          IcebergTables.liveFiles(IcebergTables.load(catalog, table), null);
      if (live.dataFiles().isEmpty()) {
        return null;
      }
      loadLive(c, name, live);
      return name + "_live";
    } catch (SQLException e) {
      throw new EngineException("Cannot read table " + table + ": " + e.getMessage(), e);
    } finally {
      IcebergTables.close(catalog);
    }
  }

  /**
   * What comparing the layers found before the key measures.
   *
   * @param expectedRows live keys in the expected state among the checked keys
   * @param curatedRows curated rows among them
   * @param newestCurated curated's newest change marker; null for an empty table
   * @param rowsCompared whether any rows were compared (a FULL comparison whose buckets all agree
   *     compares none, and no key measure can find anything)
   */
  private record Compared(
      long expectedRows, long curatedRows, Long newestCurated, boolean rowsCompared) {}

  private static Observations analyse(
      Connection c,
      EngineRequest r,
      long bytes,
      RawLoad raw,
      Map<String, String> liveTypes,
      Map<String, String> curatedTypes,
      Duration customRuleTimeout)
      throws SQLException {
    Window w = Window.of(r);
    Sql cap = SQL.cap(r.dataset().changeMarker().type(), w);
    execute(c, DuckDbDialect.createTable("in_flight", SQL.inFlight(cap)));
    Compared compared =
        r.mode() == ReconciliationMode.WINDOW
            ? compareWindow(c, r.dataset(), w, cap, liveTypes)
            : compareFull(c, r.dataset(), cap, liveTypes);
    List<Finding> keys = new ArrayList<>();
    for (ReconciliationSql.KeyMeasure m : SQL.keyMeasures()) {
      keys.add(
          compared.rowsCompared()
              ? finding(c, new Sql().append(m.keys()), r.sampleSize())
              : Finding.of(0, List.of()));
    }
    if (compared.rowsCompared()) {
      keys =
          ValueDiffs.attach(
              SQL,
              r.dataset(),
              cap,
              keys,
              curatedTypes,
              (label, query) -> rows(c, query),
              file -> file,
              ValueDiffs.blame(r));
    }
    // When every bucket agrees the rows are the same on both sides, and so is every aggregate.
    AggregateFinding aggregates =
        compared.rowsCompared()
            ? AggregateMeasures.measure(
                SQL,
                r.contract(),
                cap,
                r.mode() == ReconciliationMode.FULL,
                (label, query) -> rows(c, query))
            : AggregateMeasures.wanted(r.contract())
                ? AggregateFinding.allAgree()
                : AggregateFinding.NONE;
    // Tables loaded for the rules with a query of their own, each once: the quarantine table, the
    // referenced datasets' curated tables.
    Loads loaded = new Loads();
    Map<String, Finding> queried =
        new LinkedHashMap<>(
            CustomRules.measure(
                SQL,
                r.contract(),
                cap,
                r.sampleSize(),
                (label, query) -> rows(c, query, customRuleTimeout),
                // The quarantine table, read only when a rule names it; the ingest job makes it
                // when it first quarantines a row.
                () ->
                    loaded.done.computeIfAbsent("quarantine", k -> quarantineRows(c, r, loaded))));
    queried.putAll(
        ReferenceRules.measure(
            SQL,
            r.contract(),
            liveTypes,
            liveTypes == null ? null : "curated_live",
            rule -> referencedKeys(c, r, rule, loaded),
            r.sampleSize(),
            (label, query) -> rows(c, query, customRuleTimeout)));
    return Observations.builder(compared.expectedRows(), compared.curatedRows())
        .keyFindings(keys)
        .aggregates(aggregates)
        .queried(queried)
        .freshness(freshness(c, r, cap, compared.newestCurated(), raw.arrivals()))
        .scanned(bytes, 0)
        .rawFiles(raw.excluded(), raw.strays())
        .build();
  }

  /** A WINDOW: the keys changed in it, on either side, are compared row by row. */
  private static Compared compareWindow(
      Connection c, DatasetSpec spec, Window w, Sql cap, Map<String, String> liveTypes)
      throws SQLException {
    execute(c, DuckDbDialect.createTable("expected", SQL.expected(cap)));
    Sql rawWindow = SQL.rawWindow(spec.changeMarker().type(), w);
    Sql curatedWindow = DuckDbDialect.curatedWindowKeys(spec, liveTypes, w);
    execute(c, DuckDbDialect.createTable("checked", SQL.checkedInWindow(rawWindow, curatedWindow)));
    createComparison(c, spec, liveTypes);
    long[] counts = counts(c);
    // The checked rows' newest marker is one curated holds: only rows from it on can be newer.
    Long checkedNewest = nullableScalar(c, new Sql().append(DuckDbDialect.NEWEST_CHECKED));
    Long newest = nullableScalar(c, DuckDbDialect.newestCurated(spec, liveTypes, checkedNewest));
    return new Compared(counts[0], counts[1], newest, true);
  }

  /** A FULL comparison: both layers bucket by bucket first; rows only where a bucket differs. */
  private static Compared compareFull(
      Connection c, DatasetSpec spec, Sql cap, Map<String, String> liveTypes) throws SQLException {
    execute(c, DuckDbDialect.createTable("raw_buckets", SQL.rawBuckets(cap)));
    execute(c, DuckDbDialect.createTable("curated_buckets", SQL.curatedBuckets()));
    execute(c, DuckDbDialect.createTable("different_buckets", SQL.differentBuckets()));
    long different = scalar(c, new Sql().append(ReconciliationSql.DIFFERENT_BUCKETS));
    LOG.debug(
        "Dataset {}: {} of {} key buckets differ",
        spec.name(),
        different,
        ReconciliationSql.BUCKETS);
    long expectedRows;
    long curatedRows;
    Long newestCurated;
    try (PreparedStatement ps = new Sql().append(ReconciliationSql.AGREEING_TOTALS).prepare(c);
        ResultSet rs = ps.executeQuery()) {
      rs.next();
      expectedRows = rs.getLong(1);
      curatedRows = rs.getLong(2);
      long newest = rs.getLong(3);
      newestCurated = rs.wasNull() ? null : newest;
    }
    if (different > 0) {
      String inDifferent = SQL.inDifferentBucket("key");
      Sql filter = new Sql().append(cap).append(" AND " + inDifferent);
      execute(c, DuckDbDialect.createTable("expected", SQL.expected(filter)));
      execute(c, DuckDbDialect.createTable("checked", SQL.checkedAll(inDifferent)));
      createComparison(c, spec, liveTypes);
      long[] counts = counts(c);
      expectedRows += counts[0];
      curatedRows += counts[1];
    }
    return new Compared(expectedRows, curatedRows, newestCurated, different > 0);
  }

  /** The checked slices of both sides: {@code exp}, {@code cur_rows} and {@code cur}. */
  private static void createComparison(
      Connection c, DatasetSpec spec, Map<String, String> liveTypes) throws SQLException {
    execute(c, DuckDbDialect.createTable("exp", SQL.checkedExpected()));
    // The joins of the checked rows build on the side written second: the checked keys, the
    // position deletes, the file list. Left to choose, DuckDB sometimes built on the table's
    // side instead (a one-day WINDOW over 10M keys then spilled a 118 MB hash table and took
    // 6-14 s instead of 1.5-2 s, in about one run of three).
    execute(c, DuckDbDialect.KEEP_BUILD_SIDES);
    try {
      execute(
          c,
          DuckDbDialect.createTable(
              "cur_rows", SQL.checkedCuratedRows(spec, liveTypes, "curated_live")));
    } finally {
      execute(c, DuckDbDialect.CHOOSE_BUILD_SIDES);
    }
    execute(c, DuckDbDialect.createTable("cur", ReconciliationSql.CHECKED_CURATED));
  }

  /** Expected live rows and curated rows among the checked keys. */
  private static long[] counts(Connection c) throws SQLException {
    try (PreparedStatement ps = new Sql().append(ReconciliationSql.COUNTS).prepare(c);
        ResultSet rs = ps.executeQuery()) {
      rs.next();
      return new long[] {rs.getLong(1), rs.getLong(2)};
    }
  }

  private static Freshness freshness(
      Connection c, EngineRequest r, Sql cap, Long curated, Map<String, Instant> arrivals) {
    FreshnessMeasure.Queries queries =
        new FreshnessMeasure.Queries() {
          @Override
          public FreshnessMeasure.Markers markers() throws FreshnessMeasure.Failed {
            try (PreparedStatement ps = ReconciliationSql.rawMarkerRange(cap).prepare(c);
                ResultSet rs = ps.executeQuery()) {
              rs.next();
              long newest = rs.getLong(1);
              Long raw = rs.wasNull() ? null : newest;
              long oldest = rs.getLong(2);
              return new FreshnessMeasure.Markers(curated, raw, rs.wasNull() ? null : oldest);
            } catch (SQLException e) {
              throw failed(e);
            }
          }

          @Override
          public Finding pendingKeys(long newerThan) {
            return finding(c, ReconciliationSql.pendingKeys(cap, newerThan), r.sampleSize());
          }

          @Override
          public List<String> pendingFiles(long newerThan) throws FreshnessMeasure.Failed {
            try {
              return strings(c, ReconciliationSql.pendingFiles(cap, newerThan));
            } catch (SQLException e) {
              throw failed(e);
            }
          }

          @Override
          public long bytesScanned() {
            return 0; // everything was read once up front, counted in Observations
          }
        };
    try {
      return FreshnessMeasure.measure(queries, r, arrivals);
    } catch (RuntimeException e) {
      return Freshness.failed("Cannot measure freshness: " + e.getMessage());
    }
  }

  private static FreshnessMeasure.Failed failed(SQLException e) {
    return new FreshnessMeasure.Failed("Cannot measure freshness: " + e.getMessage());
  }

  /** A key measure's count and sample as a finding; a failed query is a failed finding. */
  private static Finding finding(Connection c, Sql keys, int sampleSize) {
    try {
      long count = scalar(c, ReconciliationSql.count(keys));
      return KeySamples.finding(
          count, () -> strings(c, ReconciliationSql.sample(keys, sampleSize)));
    } catch (SQLException e) {
      return Finding.failed("Cannot run the query: " + e.getMessage());
    }
  }

  private static List<String> strings(Connection c, Sql sql) throws SQLException {
    List<String> out = new ArrayList<>();
    try (PreparedStatement ps = sql.prepare(c);
        ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        out.add(rs.getString(1));
      }
    }
    return out;
  }

  /** Every row of a query, each column as text (NULL as null). */
  private static List<List<String>> rows(Connection c, Sql sql) throws SQLException {
    try (PreparedStatement ps = sql.prepare(c);
        ResultSet rs = ps.executeQuery()) {
      return texts(rs);
    }
  }

  /** Every row of {@code rs}, each value as text (NULL as null). */
  private static List<List<String>> texts(ResultSet rs) throws SQLException {
    List<List<String>> out = new ArrayList<>();
    int n = rs.getMetaData().getColumnCount();
    while (rs.next()) {
      List<String> row = new ArrayList<>(n);
      for (int i = 1; i <= n; i++) {
        row.add(rs.getString(i));
      }
      out.add(row);
    }
    return out;
  }

  /**
   * {@link #rows}, the query stopped (and the failure saying so) once it runs past {@code limit}.
   */
  private static List<List<String>> rows(Connection c, Sql sql, Duration limit)
      throws SQLException {
    try (PreparedStatement ps = sql.prepare(c)) {
      java.util.concurrent.atomic.AtomicBoolean stopped =
          new java.util.concurrent.atomic.AtomicBoolean();
      java.util.concurrent.ScheduledFuture<?> stop =
          TIMER.schedule(
              () -> {
                stopped.set(true);
                try {
                  ps.cancel();
                } catch (SQLException e) {
                  LOG.warn("Cannot stop a query past its timeout: {}", e.toString());
                }
              },
              limit.toMillis(),
              java.util.concurrent.TimeUnit.MILLISECONDS);
      try (ResultSet rs = ps.executeQuery()) {
        return texts(rs);
      } catch (SQLException e) {
        if (stopped.get()) {
          throw new SQLException("stopped after the timeout of " + limit, e);
        }
        throw e;
      } finally {
        stop.cancel(false);
      }
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
        ResultSet rs = s.executeQuery(DuckDbFiles.describe(table))) {
      while (rs.next()) {
        types.put(
            rs.getString(1).toLowerCase(Locale.ROOT), rs.getString(2).toUpperCase(Locale.ROOT));
      }
    }
    return types;
  }

  static long micros(Instant i) {
    return Window.micros(i);
  }
}
