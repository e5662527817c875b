package io.tidemark.reconcile.engine.athena;

import static io.tidemark.reconcile.engine.athena.TrinoDialect.SQL;

import io.tidemark.model.config.DatasetSpec;
import io.tidemark.model.contract.DatasetContract;
import io.tidemark.model.contract.DatasetSpecs;
import io.tidemark.model.contract.athena.AthenaRawTable;
import io.tidemark.model.contract.athena.AthenaRawTables;
import io.tidemark.model.report.ReconciliationMode;
import io.tidemark.reconcile.engine.AggregateFinding;
import io.tidemark.reconcile.engine.EngineRequest;
import io.tidemark.reconcile.engine.Finding;
import io.tidemark.reconcile.engine.Freshness;
import io.tidemark.reconcile.engine.Observations;
import io.tidemark.reconcile.engine.ReconciliationEngine;
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
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.iceberg.catalog.Catalog;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An engine that sends Trino-dialect SQL ({@link TrinoDialect}) to a query service: Amazon Athena
 * in production, a real Trino in the tests that prove the SQL. Raw is the dataset's external table
 * ({@link RawTable}); curated is the Iceberg table as the query service's catalog knows it.
 *
 * <p>One reconciliation runs one query per measure (the key measures share one, and the key
 * buckets' sums share theirs with freshness's markers, since every query reads both layers again),
 * at most {@code maxInFlight} at a time; each measure carries the bytes its query scanned, and a
 * measure whose query fails is recorded as failed (its rules report ERROR with the query service's
 * reason) while the others are kept.
 *
 * <p>The raw files are listed first ({@link RawLister}), as the embedded engine lists them: a
 * WINDOW run reads the partitions from the day before its start on, plus the files of older
 * partitions that arrived in the window (named by path, so only their partitions are read); the
 * listing's stray entries are reported the same way. Unlike the embedded engine, this one does not
 * read every file's footer first: a file that breaks the contract is not left out by name but fails
 * the queries that read it (the rules report ERROR with the reason), or, when it lacks a compared
 * column, reads as NULLs there (value mismatches).
 */
public final class SqlEngine implements ReconciliationEngine {
  private static final Logger LOG = LoggerFactory.getLogger(SqlEngine.class);

  /**
   * Where one dataset's tables are, as the query service names them.
   *
   * @param raw the raw external table, {@code [catalog.]database.table}
   * @param curated the curated Iceberg table, {@code [catalog.]database.table}
   */
  public record Tables(String raw, String curated) {
    public Tables {
      TrinoDialect.quoteTable(Objects.requireNonNull(raw, "raw is null"));
      TrinoDialect.quoteTable(Objects.requireNonNull(curated, "curated is null"));
    }
  }

  /** Lists a dataset's raw files under the contract, as {@link RawFiles#list} does locally. */
  @FunctionalInterface
  public interface RawLister {
    RawFiles.Listing list(DatasetContract contract, LocalDate fromDate, Instant arrivedSince);
  }

  private final String name;
  private final Function<DatasetContract, Tables> tables;
  private final Supplier<QueryRunner> runners;
  private final RawLister lister;
  private final Function<String, String> enginePath;
  private final ScanPricing pricing;
  private final int maxInFlight;

  /**
   * @param name the engine's name in config and reports
   * @param tables where each dataset's tables are
   * @param runners a new runner per reconciliation
   * @param lister lists the raw files
   * @param enginePath a listed file's path as the query service shows it in {@code "$path"}
   * @param pricing what the query service charges for bytes scanned
   * @param maxInFlight queries running at once per reconciliation, at least 1
   */
  public SqlEngine(
      String name,
      Function<DatasetContract, Tables> tables,
      Supplier<QueryRunner> runners,
      RawLister lister,
      Function<String, String> enginePath,
      ScanPricing pricing,
      int maxInFlight) {
    this.name = Objects.requireNonNull(name, "name is null");
    this.tables = Objects.requireNonNull(tables, "tables is null");
    this.runners = Objects.requireNonNull(runners, "runners is null");
    this.lister = Objects.requireNonNull(lister, "lister is null");
    this.enginePath = Objects.requireNonNull(enginePath, "enginePath is null");
    this.pricing = Objects.requireNonNull(pricing, "pricing is null");
    if (maxInFlight < 1) {
      throw new IllegalArgumentException("maxInFlight must be at least 1: " + maxInFlight);
    }
    this.maxInFlight = maxInFlight;
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public RawFiles.Listing listRawFiles(DatasetContract contract) {
    return lister.list(contract, null, null);
  }

  @Override
  public Observations observe(EngineRequest request) {
    DatasetSpec spec = request.dataset();
    Tables t = tables.apply(request.contract());
    Map<String, String> curatedTypes = curatedTypes(request);
    RawReadPlan plan = RawReadPlan.of(request);
    RawFiles.Listing listed = lister.list(request.contract(), plan.fromDate(), plan.arrivedSince());
    // An audit reads raw as the ingest run found it: later files are not read. A partition read
    // whole leaves them out by path.
    List<String> later =
        listed.arrivedAfter(request.rawArrivedBy()).stream()
            .map(f -> enginePath.apply(f.path()))
            .toList();
    RawFiles.Listing listing = listed.asOf(request.rawArrivedBy());
    boolean hive = DatasetSpecs.partitionColumn(request.contract().raw().layout()) != null;
    Map<String, String> rawTypes =
        hive ? RawTable.readTypes(spec, curatedTypes) : AthenaRawTables.columns(request.contract());
    listing
        .strays()
        .forEach(
            s -> LOG.warn("Not reading {} of dataset {}: {}", s.path(), spec.name(), s.problem()));
    TrinoDialect.RawScope rawScope =
        hive
            ? scope(plan, listing, later)
            : TrinoDialect.RawScope.byFile(fileScope(request.contract(), listing));
    TrinoDialect.Bounds bounds =
        new TrinoDialect.Bounds(
            Window.of(request),
            Window.micros(request.futureLimit()),
            request.mode() == ReconciliationMode.WINDOW);
    Function<Boolean, Sql> preludes =
        withValues ->
            TrinoDialect.prelude(
                request.contract(),
                t.raw(),
                t.curated(),
                request.curatedSnapshot(),
                rawTypes,
                curatedTypes,
                rawScope,
                bounds,
                withValues);
    Map<String, Instant> arrivals = new HashMap<>();
    listing.files().forEach(f -> arrivals.put(enginePath.apply(f.path()), f.arrived()));
    // One in flight: every query on this thread, in the order the run asks for them, so that a
    // reconciliation sends the same sequence every time. More: a pool, and a gate on the runner,
    // since the calling thread sends queries of its own beside the pool's.
    ExecutorService pool =
        maxInFlight == 1
            ? new InOrder()
            : Executors.newFixedThreadPool(maxInFlight, daemon(spec.name()));
    try (QueryRunner runner = runners.get()) {
      return new Run(
              pool,
              new Gated(runner, maxInFlight),
              preludes.apply(false),
              preludes.apply(true),
              request,
              curatedTypes,
              TrinoDialect.curatedRelation(t.curated(), request.curatedSnapshot()))
          .observe(arrivals, listing);
    } finally {
      pool.shutdownNow();
    }
  }

  /** The partitions a request reads whole, and the late files of older ones by engine path. */
  private TrinoDialect.RawScope scope(
      RawReadPlan plan, RawFiles.Listing listing, List<String> skipped) {
    List<String> lateFiles = new ArrayList<>();
    TreeSet<String> latePartitions = new TreeSet<>();
    for (RawFiles.RawFile f : listing.files()) {
      if (plan.late(f.partitionDate())) {
        lateFiles.add(enginePath.apply(f.path()));
        latePartitions.add(f.partitionDate().toString());
      }
    }
    return new TrinoDialect.RawScope(
        plan.fromDate() == null ? null : plan.fromDate().toString(),
        lateFiles,
        List.copyOf(latePartitions),
        skipped);
  }

  /**
   * The listed files of a layout whose folders name no column, by engine path, each with the day
   * the listing gives it; and, where the raw table is partitioned, the partition values they lie
   * in, from their paths below the raw location.
   */
  private TrinoDialect.Files fileScope(DatasetContract contract, RawFiles.Listing listing) {
    AthenaRawTable table = AthenaRawTables.readTable(contract);
    String root = contract.raw().location().replaceAll("/+$", "") + "/";
    Map<String, String> dates = new TreeMap<>();
    Map<String, List<String>> partitions = new java.util.LinkedHashMap<>();
    table.partitionKeyNames().forEach(k -> partitions.put(k, new ArrayList<>()));
    boolean prune = table.partitioned();
    for (RawFiles.RawFile f : listing.files()) {
      dates.put(enginePath.apply(f.path()), f.partitionDate().toString());
      Map<String, String> values =
          f.path().startsWith(root)
              ? table.partitionValues(f.path().substring(root.length()))
              : null;
      if (values == null) {
        prune = false;
      } else {
        values.forEach((k, v) -> partitions.get(k).add(v));
      }
    }
    return new TrinoDialect.Files(dates, prune ? partitions : Map.of());
  }

  /**
   * One query's outcome.
   *
   * @param result its rows; null when it failed
   * @param error why it failed; null when it ran
   * @param bytes bytes it scanned (also when it failed, where the service says)
   */
  record Measured(QueryResult result, String error, long bytes) {}

  /** One reconciliation's queries, all after the same prelude. */
  private final class Run {
    private final ExecutorService pool;
    private final QueryRunner runner;
    private final Sql prelude;
    private final Sql valuedPrelude;
    private final EngineRequest request;
    private final Map<String, String> curatedTypes;
    private final String curated;
    private final java.util.concurrent.atomic.AtomicLong diffBytes =
        new java.util.concurrent.atomic.AtomicLong();
    private boolean oneKeyQuery = true;

    Run(
        ExecutorService pool,
        QueryRunner runner,
        Sql prelude,
        Sql valuedPrelude,
        EngineRequest request,
        Map<String, String> curatedTypes,
        String curated) {
      this.pool = pool;
      this.runner = runner;
      this.prelude = prelude;
      this.valuedPrelude = valuedPrelude;
      this.request = request;
      this.curatedTypes = curatedTypes;
      this.curated = curated;
    }

    Observations observe(Map<String, Instant> arrivals, RawFiles.Listing listing) {
      Map<String, String> listedPaths = new HashMap<>();
      listing.files().forEach(f -> listedPaths.put(enginePath.apply(f.path()), f.path()));
      // The window's end on the marker, which every query below reads raw up to.
      Sql cap = SQL.cap(request.dataset().changeMarker().type(), Window.of(request));
      // Bucket sums first: when every bucket agrees, no key measure can find anything. Freshness's
      // markers come in the same query: a healthy table is one query, not two.
      Future<Measured> counts =
          pool.submit(
              () ->
                  measure(
                      BUCKETS_AND_MARKERS,
                      ReconciliationSql.withMarkers(SQL.checkedBucketsDiffering(), cap)));
      // Custom rules check what they check on every run, beside the measures.
      Future<Map<String, Finding>> custom =
          pool.submit(
              () ->
                  CustomRules.measure(
                      SQL,
                      request.contract(),
                      cap,
                      request.sampleSize(),
                      this::valuedRows,
                      this::quarantine));
      Future<Map<String, Finding>> references =
          pool.submit(
              () ->
                  ReferenceRules.measure(
                      SQL,
                      request.contract(),
                      curatedTypes,
                      curated,
                      rule -> referencedKeys(request.referenced(rule).contract()),
                      request.sampleSize(),
                      this::rows));
      Measured c = get(counts);
      // With the counts' query failed, freshness asks for its markers in a query of its own.
      FreshnessQueries freshnessQueries =
          c.error() != null
              ? new FreshnessQueries(this, cap, null)
              : new FreshnessQueries(
                  this,
                  cap,
                  FreshnessQueries.markers(
                      c.result().rows().get(0), ReconciliationSql.MARKERS_AFTER_COUNTS));
      Future<Freshness> freshness =
          pool.submit(() -> FreshnessMeasure.measure(freshnessQueries, request, arrivals));
      boolean compare = c.error() != null || KeySamples.number(c.result().rows().get(0).get(0)) > 0;
      List<Measured> keyMeasures = compare ? keyMeasures() : skippedKeyMeasures();
      Freshness fresh = get(freshness);
      if (c.error() == null) {
        // The shared query is freshness's too: its bytes count in freshness's finding, once in
        // the total.
        fresh = fresh.withBytesScanned(fresh.bytesScanned() + c.bytes());
      }
      List<Finding> findings =
          new ArrayList<>(keyMeasures.stream().map(SqlEngine::finding).toList());
      long expectedRows = 0;
      long curatedRows = 0;
      if (c.error() != null) {
        findings.set(0, Finding.failed(c.error()));
      } else {
        List<String> row = c.result().rows().get(0);
        expectedRows = KeySamples.number(row.get(1));
        curatedRows = KeySamples.number(row.get(2));
      }
      // count_match reads both its queries.
      findings.set(0, findings.get(0).withBytesScanned(keyMeasures.get(0).bytes() + c.bytes()));
      List<Long> perQuery = new ArrayList<>();
      perQuery.add(c.bytes());
      if (compare) {
        if (oneKeyQuery) {
          perQuery.add(keyMeasures.get(0).bytes()); // the one query of every key measure
        } else {
          keyMeasures.forEach(m -> perQuery.add(m.bytes()));
        }
      }
      perQuery.add(freshnessQueries.bytesScanned());
      AggregateFinding aggregates =
          AggregateMeasures.wanted(request.contract())
              ? AggregateFinding.allAgree()
              : AggregateFinding.NONE;
      if (compare) {
        // When every bucket agrees the rows are the same on both sides, and so is every aggregate.
        // The aggregates and the difference's two queries side by side: Trino plans each on one
        // core, and they read the same prelude.
        Future<AggregateFinding> aggregated =
            pool.submit(
                () ->
                    AggregateMeasures.measure(
                        SQL,
                        request.contract(),
                        cap,
                        request.mode() == ReconciliationMode.FULL,
                        this::valuedRows));
        findings =
            ValueDiffs.attach(
                SQL,
                request.dataset(),
                cap,
                findings,
                curatedTypes,
                this::valuedRows,
                pool,
                file -> listedPaths.getOrDefault(file, file),
                ValueDiffs.blame(request));
        aggregates = get(aggregated);
      }
      Map<String, Finding> queried = new java.util.LinkedHashMap<>(get(custom));
      queried.putAll(get(references));
      // the difference, aggregates, custom and referential rules together
      perQuery.add(diffBytes.get());
      long bytes = perQuery.stream().mapToLong(Long::longValue).sum();
      return Observations.builder(expectedRows, curatedRows)
          .keyFindings(findings)
          .aggregates(aggregates)
          .queried(queried)
          .freshness(fresh)
          .scanned(bytes, pricing.costUsd(perQuery))
          .rawFiles(List.of(), listing.strays())
          .build();
    }

    /**
     * The key measures, all from one query: each query reads both layers and is planned anew, so
     * one pass costs a sixth of six. Every measure's finding carries that query's bytes; {@code
     * perQuery} bills them once.
     */
    private List<Measured> keyMeasures() {
      Measured all = measure("key measures", SQL.keyMeasuresInOnePass(request.sampleSize()));
      if (all.error() != null) {
        // One query per measure, so that a measure that can run is kept when another cannot.
        oneKeyQuery = false;
        LOG.warn(
            "Dataset {}: the key measures' query failed ({}); running one query per measure",
            request.dataset().name(),
            all.error());
        List<Future<Measured>> running = new ArrayList<>();
        for (ReconciliationSql.KeyMeasure m : SQL.keyMeasures()) {
          Sql keys =
              ReconciliationSql.countAndSample(new Sql().append(m.keys()), request.sampleSize());
          running.add(pool.submit(() -> measure(m.label(), keys)));
        }
        return running.stream().map(SqlEngine::get).toList();
      }
      List<Measured> out = new ArrayList<>();
      for (int i = 0; i < SQL.keyMeasures().size(); i++) {
        long measure = i;
        List<List<String>> rows =
            all.result().rows().stream()
                .filter(r -> KeySamples.number(r.get(0)) == measure)
                .map(r -> r.subList(1, r.size()))
                .toList();
        out.add(
            new Measured(
                new QueryResult(all.result().queryId(), rows, all.bytes()), null, all.bytes()));
      }
      return out;
    }

    private List<Measured> skippedKeyMeasures() {
      LOG.debug(
          "Dataset {}: every key bucket agrees; no key measure runs", request.dataset().name());
      Measured none = new Measured(new QueryResult(null, List.of(), 0), null, 0);
      return Collections.nCopies(SQL.keyMeasures().size(), none);
    }

    /** A query after the prelude with the valued relations; a failure is thrown. */
    private List<List<String>> valuedRows(String label, Sql query) throws QueryFailedException {
      return rows(label, new Sql().append(valuedPrelude).append(query));
    }

    /** Runs a query that needs no prelude; its bytes count with the difference's. */
    private List<List<String>> rows(String label, Sql sql) throws QueryFailedException {
      QueryResult r = runner.run(label, sql.text(), sql.params());
      diffBytes.addAndGet(r.bytesScanned());
      return r.rows();
    }

    /**
     * The quarantine relation of custom rules over the quarantine table, by the name the engine
     * knows it (in the curated table's catalog); null when the ingest job has not made it yet.
     */
    private String quarantine() {
      String table = request.contract().quarantineTable();
      boolean replays;
      Catalog catalog = IcebergTables.catalog(request.catalog());
      try {
        if (!catalog.tableExists(org.apache.iceberg.catalog.TableIdentifier.parse(table))) {
          return null;
        }
        replays = IcebergTables.load(catalog, table).schema().findField("replayed_at") != null;
      } finally {
        IcebergTables.close(catalog);
      }
      String name = tables.apply(request.contract()).curated();
      String own = request.dataset().curatedTable();
      String prefix = name.endsWith(own) ? name.substring(0, name.length() - own.length()) : "";
      return SQL.quarantineRows(TrinoDialect.curatedRelation(prefix + table, null), replays);
    }

    /** The live keys of a referenced dataset's curated table, at its current snapshot. */
    private String referencedKeys(DatasetContract referenced) {
      return SQL.referencedKeys(
          DatasetSpecs.of(referenced),
          ReferenceRules.declaredTypes(referenced),
          TrinoDialect.curatedRelation(tables.apply(referenced).curated(), null));
    }

    Measured measure(String label, String query) {
      return measure(label, new Sql().append(query));
    }

    /** Runs the prelude and {@code query}; a failure is returned, never thrown. */
    Measured measure(String label, Sql query) {
      Sql sql = new Sql().append(prelude).append(query);
      try {
        QueryResult r = runner.run(label, sql.text(), sql.params());
        return new Measured(r, null, r.bytesScanned());
      } catch (QueryFailedException e) {
        return new Measured(null, "Cannot run the query for " + label + ": " + e.getMessage(), 0);
      } catch (RuntimeException e) {
        return new Measured(null, "Cannot run the query for " + label + ": " + e, 0);
      }
    }
  }

  /**
   * Freshness's queries, each after the prelude; a failed one fails freshness with its bytes. Its
   * markers come from the counts' query, or from a query of its own when that one failed.
   */
  private static final class FreshnessQueries implements FreshnessMeasure.Queries {
    private final Run run;
    private final Sql cap;
    private final FreshnessMeasure.Markers known;
    private long bytes;

    /**
     * @param cap the window's end on the marker
     * @param known the markers, when the counts' query gave them; null to ask for them
     */
    FreshnessQueries(Run run, Sql cap, FreshnessMeasure.Markers known) {
      this.run = run;
      this.cap = cap;
      this.known = known;
    }

    /** The markers {@link ReconciliationSql#markers} gives, from {@code row} at {@code from}. */
    static FreshnessMeasure.Markers markers(List<String> row, int from) {
      return new FreshnessMeasure.Markers(
          KeySamples.nullableNumber(row.get(from)),
          KeySamples.nullableNumber(row.get(from + 1)),
          KeySamples.nullableNumber(row.get(from + 2)));
    }

    @Override
    public FreshnessMeasure.Markers markers() throws FreshnessMeasure.Failed {
      if (known != null) {
        return known;
      }
      return markers(rows("freshness", ReconciliationSql.markers(cap)).get(0), 0);
    }

    @Override
    public Finding pendingKeys(long newerThan) throws FreshnessMeasure.Failed {
      Sql keys =
          ReconciliationSql.countAndSample(
              ReconciliationSql.pendingExpectedKeys(newerThan), run.request.sampleSize());
      Measured p = ran("freshness pending keys", keys);
      return KeySamples.finding(p.result().rows(), p.bytes());
    }

    @Override
    public List<String> pendingFiles(long newerThan) throws FreshnessMeasure.Failed {
      return rows("freshness waiting files", ReconciliationSql.pendingFiles(cap, newerThan))
          .stream()
          .map(file -> file.get(0))
          .toList();
    }

    @Override
    public long bytesScanned() {
      return bytes;
    }

    private List<List<String>> rows(String label, Sql query) throws FreshnessMeasure.Failed {
      return ran(label, query).result().rows();
    }

    private Measured ran(String label, Sql query) throws FreshnessMeasure.Failed {
      Measured m = run.measure(label, query);
      bytes += m.bytes();
      if (m.error() != null) {
        throw new FreshnessMeasure.Failed(m.error());
      }
      return m;
    }
  }

  /** The label of the first query of every observation: the bucket sums and freshness's markers. */
  static final String BUCKETS_AND_MARKERS = "bucket sums and freshness markers";

  /** A key measure's rows ({@code total, key}) as a finding. */
  private static Finding finding(Measured m) {
    return m.error() != null
        ? Finding.failed(m.error())
        : KeySamples.finding(m.result().rows(), m.bytes());
  }

  private static Map<String, String> curatedTypes(EngineRequest request) {
    Catalog catalog = IcebergTables.catalog(request.catalog());
    try {
      return IcebergTables.contractTypes(
          IcebergTables.load(catalog, request.dataset().curatedTable()), request.curatedSnapshot());
    } finally {
      IcebergTables.close(catalog);
    }
  }

  private static <T> T get(Future<T> f) {
    try {
      return f.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new EngineException("Interrupted while waiting for a query", e);
    } catch (ExecutionException e) {
      throw new EngineException("A query task failed: " + e.getCause(), e.getCause());
    }
  }

  /** A runner that lets at most {@code permits} of its callers' queries run at once. */
  static final class Gated implements QueryRunner {
    private final QueryRunner runner;
    private final java.util.concurrent.Semaphore slots;

    Gated(QueryRunner runner, int permits) {
      this.runner = runner;
      this.slots = new java.util.concurrent.Semaphore(permits, true);
    }

    @Override
    public QueryResult run(String label, String sql, List<Object> params) {
      try {
        slots.acquire();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new QueryFailedException(
            "Interrupted before running the query for " + label, null, "CANCELLED", e);
      }
      try {
        return runner.run(label, sql, params);
      } finally {
        slots.release();
      }
    }

    @Override
    public void close() {
      // the runner is closed by whoever opened it
    }
  }

  /** Runs each task on the thread that submits it, when it is submitted. */
  private static final class InOrder extends java.util.concurrent.AbstractExecutorService {
    private volatile boolean shutdown;

    @Override
    public void execute(Runnable task) {
      if (shutdown) {
        throw new java.util.concurrent.RejectedExecutionException("shut down");
      }
      task.run();
    }

    @Override
    public void shutdown() {
      shutdown = true;
    }

    @Override
    public List<Runnable> shutdownNow() {
      shutdown = true;
      return List.of();
    }

    @Override
    public boolean isShutdown() {
      return shutdown;
    }

    @Override
    public boolean isTerminated() {
      return shutdown;
    }

    @Override
    public boolean awaitTermination(long timeout, java.util.concurrent.TimeUnit unit) {
      return shutdown;
    }
  }

  private static java.util.concurrent.ThreadFactory daemon(String dataset) {
    return r -> {
      Thread t = new Thread(r, "sql-engine-" + dataset);
      t.setDaemon(true);
      return t;
    };
  }
}
