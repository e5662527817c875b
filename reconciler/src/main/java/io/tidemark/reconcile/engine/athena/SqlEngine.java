package io.tidemark.reconcile.engine.athena;

import io.tidemark.model.config.ChangeMarkerType;
import io.tidemark.model.config.DatasetSpec;
import io.tidemark.model.config.RawSource;
import io.tidemark.model.report.ReconciliationMode;
import io.tidemark.reconcile.engine.EngineRequest;
import io.tidemark.reconcile.engine.Finding;
import io.tidemark.reconcile.engine.Freshness;
import io.tidemark.reconcile.engine.Observations;
import io.tidemark.reconcile.engine.ReconciliationEngine;
import io.tidemark.reconcile.engine.sql.RawReadPlan;
import io.tidemark.reconcile.engine.sql.Sql;
import io.tidemark.reconcile.kernel.EngineException;
import io.tidemark.reconcile.storage.IcebergTables;
import io.tidemark.reconcile.storage.RawFiles;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
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
 * <p>One reconciliation runs one query per measure, at most {@code maxInFlight} at a time; each
 * measure's bytes scanned are its own, and a measure whose query fails is recorded as failed (its
 * rules report ERROR with the query service's reason) while the others are kept.
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
    RawFiles.Listing list(RawSource raw, LocalDate fromDate, Instant arrivedSince);
  }

  /** The key measures by label, in the order of {@link Observations}' findings. */
  private static final Map<String, String> KEY_MEASURES = keyMeasures();

  private static Map<String, String> keyMeasures() {
    Map<String, String> m = new java.util.LinkedHashMap<>();
    m.put("count_match keys", TrinoDialect.COUNT_DIFFERENCE);
    m.put("missing_keys", TrinoDialect.MISSING);
    m.put("unexpected_keys", TrinoDialect.UNEXPECTED);
    m.put("duplicate_keys", TrinoDialect.DUPLICATES);
    m.put("stale_versions", TrinoDialect.STALE);
    m.put("value_mismatches", TrinoDialect.MISMATCHED);
    return java.util.Collections.unmodifiableMap(m);
  }

  private final String name;
  private final Function<DatasetSpec, Tables> tables;
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
      Function<DatasetSpec, Tables> tables,
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
  public RawFiles.Listing listRawFiles(RawSource raw) {
    return lister.list(raw, null, null);
  }

  @Override
  public Observations observe(EngineRequest request) {
    DatasetSpec spec = request.dataset();
    Tables t = tables.apply(spec);
    Map<String, String> curatedTypes = curatedTypes(request);
    Map<String, String> rawTypes = RawTable.readTypes(spec, curatedTypes);
    ChangeMarkerType type = spec.changeMarker().type();

    RawReadPlan plan = RawReadPlan.of(request);
    LocalDate fromDate = plan.fromDate();
    RawFiles.Listing listing = lister.list(spec.raw(), fromDate, plan.arrivedSince());
    listing
        .strays()
        .forEach(
            s -> LOG.warn("Not reading {} of dataset {}: {}", s.path(), spec.name(), s.problem()));
    List<String> lateFiles = new ArrayList<>();
    TreeSet<String> latePartitions = new TreeSet<>();
    for (RawFiles.RawFile f : listing.files()) {
      if (plan.late(f.partitionDate())) {
        lateFiles.add(enginePath.apply(f.path()));
        latePartitions.add(f.partitionDate().toString());
      }
    }
    TrinoDialect.RawScope scope =
        new TrinoDialect.RawScope(
            fromDate == null ? null : fromDate.toString(),
            lateFiles,
            List.copyOf(latePartitions),
            List.of());
    TrinoDialect.Bounds bounds =
        new TrinoDialect.Bounds(
            request.from() == null ? null : micros(request.from()),
            micros(request.to()),
            request.from() == null ? null : date(request.from()).toString(),
            date(request.to()).toString(),
            micros(request.futureLimit()),
            request.mode() == ReconciliationMode.WINDOW);
    Sql prelude =
        TrinoDialect.prelude(spec, t.raw(), t.curated(), rawTypes, curatedTypes, scope, bounds);
    int n = request.sampleSize();

    ExecutorService pool = Executors.newFixedThreadPool(maxInFlight, daemon(spec.name()));
    try (QueryRunner runner = runners.get()) {
      // Bucket sums first: when every bucket agrees, no key measure can find anything.
      Future<Measured> counts =
          pool.submit(
              () -> measure(runner, "count_match rows", prelude, TrinoDialect.BUCKETS_DIFFERING));
      Map<String, Instant> arrivals = new java.util.HashMap<>();
      listing.files().forEach(f -> arrivals.put(enginePath.apply(f.path()), f.arrived()));
      Future<Freshness> freshness =
          pool.submit(() -> freshness(runner, prelude, request, bounds, arrivals));
      Measured c = get(counts);
      boolean compare = c.error() != null || number(c.result().rows().get(0).get(0)) > 0;
      List<Measured> keyMeasures;
      if (compare) {
        List<Future<Measured>> running = new ArrayList<>();
        KEY_MEASURES.forEach(
            (label, query) -> running.add(keys(pool, runner, label, prelude, query, n)));
        keyMeasures = running.stream().map(SqlEngine::get).toList();
      } else {
        LOG.debug("Dataset {}: every key bucket agrees; no key measure runs", spec.name());
        Measured none = new Measured(new QueryResult(null, List.of(), 0), null, 0);
        keyMeasures = java.util.Collections.nCopies(KEY_MEASURES.size(), none);
      }
      Freshness fresh = get(freshness);
      List<Finding> findings =
          new ArrayList<>(keyMeasures.stream().map(SqlEngine::finding).toList());
      long expectedRows = 0;
      long curatedRows = 0;
      if (c.error() != null) {
        findings.set(0, Finding.failed(c.error()));
      } else {
        List<String> row = c.result().rows().get(0);
        expectedRows = number(row.get(1));
        curatedRows = number(row.get(2));
      }
      // count_match reads both its queries.
      findings.set(0, findings.get(0).withBytesScanned(keyMeasures.get(0).bytes() + c.bytes()));
      List<Long> perQuery = new ArrayList<>();
      perQuery.add(c.bytes());
      if (compare) {
        keyMeasures.forEach(m -> perQuery.add(m.bytes())); // only the queries that ran are billed
      }
      perQuery.add(fresh.bytesScanned());
      long bytes = perQuery.stream().mapToLong(Long::longValue).sum();
      return new Observations(
          expectedRows,
          curatedRows,
          findings.get(0),
          findings.get(1),
          findings.get(2),
          findings.get(3),
          findings.get(4),
          findings.get(5),
          fresh,
          bytes,
          pricing.costUsd(perQuery),
          List.of(),
          listing.strays());
    } finally {
      pool.shutdownNow();
    }
  }

  /**
   * One query's outcome.
   *
   * @param result its rows; null when it failed
   * @param error why it failed; null when it ran
   * @param bytes bytes it scanned (also when it failed, where the service says)
   */
  record Measured(QueryResult result, String error, long bytes) {}

  private static Future<Measured> keys(
      ExecutorService pool,
      QueryRunner runner,
      String label,
      Sql prelude,
      String keysQuery,
      int sampleSize) {
    Sql sql = new Sql().append(prelude).append(TrinoDialect.countAndSample(keysQuery, sampleSize));
    return pool.submit(() -> measure(runner, label, sql));
  }

  private static Measured measure(QueryRunner runner, String label, Sql prelude, String query) {
    return measure(runner, label, new Sql().append(prelude).append(query));
  }

  private static Measured measure(QueryRunner runner, String label, Sql sql) {
    try {
      QueryResult r = runner.run(label, sql.text(), sql.params());
      return new Measured(r, null, r.bytesScanned());
    } catch (QueryFailedException e) {
      return new Measured(null, "Cannot run the query for " + label + ": " + e.getMessage(), 0);
    } catch (RuntimeException e) {
      return new Measured(null, "Cannot run the query for " + label + ": " + e, 0);
    }
  }

  /** A key measure's rows ({@code total, key}) as a finding. */
  private static Finding finding(Measured m) {
    if (m.error() != null) {
      return Finding.failed(m.error());
    }
    List<List<String>> rows = m.result().rows();
    long total = rows.isEmpty() ? 0 : number(rows.get(0).get(0));
    List<String> sample = rows.stream().map(r -> r.get(1)).toList();
    return new Finding(total, sample, null, m.bytes());
  }

  private static Freshness freshness(
      QueryRunner runner,
      Sql prelude,
      EngineRequest r,
      TrinoDialect.Bounds bounds,
      Map<String, Instant> arrivals) {
    ChangeMarkerType type = r.dataset().changeMarker().type();
    boolean timestamps = type == ChangeMarkerType.TIMESTAMP;
    Measured markers =
        measure(
            runner,
            "freshness",
            new Sql().append(prelude).append(TrinoDialect.markers(type, bounds)));
    if (markers.error() != null) {
      return Freshness.failed(markers.error(), markers.bytes());
    }
    List<String> row = markers.result().rows().get(0);
    Long curated = nullableNumber(row.get(0));
    Long raw = nullableNumber(row.get(1));
    Long behindSince = curated != null ? curated : raw == null ? null : nullableNumber(row.get(2));
    long bytes = markers.bytes();
    Finding pending = Finding.of(0, List.of());
    if (behindSince != null) {
      Sql keys = TrinoDialect.pending(curated != null ? curated : Long.MIN_VALUE);
      Measured p =
          measure(
              runner,
              "freshness pending keys",
              new Sql().append(prelude).append(TrinoDialect.countAndSample(keys, r.sampleSize())));
      bytes += p.bytes();
      if (p.error() != null) {
        return Freshness.failed(p.error(), bytes);
      }
      pending = finding(p);
    }
    Double lagNow = null;
    if (timestamps && behindSince != null) {
      lagNow = Math.max(0, (micros(r.now()) - behindSince) / 1e6);
    } else if (!timestamps) {
      // A sequence carries no time: how long the oldest file curated has not caught up with has
      // been waiting (the same measure as the embedded engine's).
      List<String> waiting = new ArrayList<>();
      if (behindSince != null) {
        Measured f =
            measure(
                runner,
                "freshness waiting files",
                new Sql()
                    .append(prelude)
                    .append(
                        TrinoDialect.pendingFiles(
                            type, bounds, curated != null ? curated : Long.MIN_VALUE)));
        bytes += f.bytes();
        if (f.error() != null) {
          return Freshness.failed(f.error(), bytes);
        }
        f.result().rows().forEach(file -> waiting.add(file.get(0)));
      }
      try {
        lagNow = Freshness.sinceOldestArrival(waiting, arrivals, r.now());
      } catch (IllegalStateException e) {
        return Freshness.failed(e.getMessage(), bytes);
      }
    }
    return new Freshness(
        curated == null ? null : marker(curated, timestamps),
        raw == null ? null : marker(raw, timestamps),
        lagNow,
        pending,
        null,
        bytes);
  }

  private static double marker(long value, boolean timestamps) {
    return timestamps ? value / 1e6 : value;
  }

  private static Map<String, String> curatedTypes(EngineRequest request) {
    Catalog catalog = IcebergTables.catalog(request.catalog());
    try {
      return IcebergTables.contractTypes(
          IcebergTables.load(catalog, request.dataset().curatedTable()));
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

  private static long number(String s) {
    Long v = nullableNumber(s);
    return v == null ? 0 : v;
  }

  private static Long nullableNumber(String s) {
    return s == null ? null : Long.parseLong(s.trim());
  }

  private static java.util.concurrent.ThreadFactory daemon(String dataset) {
    return r -> {
      Thread t = new Thread(r, "sql-engine-" + dataset);
      t.setDaemon(true);
      return t;
    };
  }

  static long micros(Instant i) {
    return ChronoUnit.MICROS.between(Instant.EPOCH, i);
  }

  static LocalDate date(Instant i) {
    return LocalDate.ofInstant(i, ZoneOffset.UTC);
  }
}
