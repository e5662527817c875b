package io.tidemark.e2e.trino;

import io.tidemark.e2e.Pipeline;
import io.tidemark.model.config.RuleSpec;
import io.tidemark.model.config.ToleranceMode;
import io.tidemark.model.contract.DatasetContract;
import io.tidemark.model.contract.DatasetSpecs;
import io.tidemark.model.contract.athena.AthenaRawTables;
import io.tidemark.model.report.ReconciliationMode;
import io.tidemark.model.report.ValueDiff;
import io.tidemark.reconcile.engine.AggregateFinding;
import io.tidemark.reconcile.engine.EngineRequest;
import io.tidemark.reconcile.engine.Finding;
import io.tidemark.reconcile.engine.Freshness;
import io.tidemark.reconcile.engine.Observations;
import io.tidemark.reconcile.engine.Referenced;
import io.tidemark.reconcile.engine.athena.JdbcQueryRunner;
import io.tidemark.reconcile.engine.athena.QueryRunner;
import io.tidemark.reconcile.engine.athena.RawTable;
import io.tidemark.reconcile.engine.athena.ScanPricing;
import io.tidemark.reconcile.engine.athena.SqlEngine;
import io.tidemark.reconcile.engine.duckdb.DuckDbEngine;
import io.tidemark.reconcile.engine.sql.ReferenceRules;
import io.tidemark.reconcile.kernel.EngineException;
import io.tidemark.reconcile.storage.RawFiles;
import io.trino.jdbc.TrinoResultSet;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.UnaryOperator;

/**
 * Holds the Athena engine's SQL to the embedded engine's answers: the same request observed by the
 * DuckDB engine and by {@link SqlEngine} on a real Trino (Athena engine v3's SQL engine) over the
 * same raw Parquet files (an external table declared by {@link RawTable#trinoDdl}, partition
 * projection included) and the same curated Iceberg table (read through the SQLite catalog Spark
 * commits to). Every measure must agree: counts, sample keys, failures, freshness.
 */
public final class EngineAgreement implements AutoCloseable {
  static final String RAW_CATALOG = "raw";
  static final String CURATED_CATALOG = "lake";
  static final String RAW_SCHEMA = RAW_CATALOG + ".tidemark";
  static final String RAW_TABLE = RAW_SCHEMA + ".customers_raw";

  private final TrinoServer trino;
  private final Pipeline pipeline;
  private final DatasetContract contract;
  private final String rawTable;
  private final SqlEngine sqlEngine;
  private final DuckDbEngine duckDb = new DuckDbEngine();

  /** Starts Trino and declares the pipeline's raw table and curated catalog in it. */
  public EngineAgreement(Pipeline pipeline, Path work) {
    this.pipeline = pipeline;
    this.contract = pipeline.contract();
    this.rawTable = RAW_TABLE;
    this.trino = TrinoServer.shared();
    trino.createRawCatalog(RAW_CATALOG, work.resolve("trino-metastore"));
    trino.createIcebergCatalog(CURATED_CATALOG, pipeline.warehouse());
    trino.execute("CREATE SCHEMA IF NOT EXISTS " + RAW_SCHEMA);
    trino.execute(
        RawTable.trinoDdl(
            DatasetSpecs.of(pipeline.contract()),
            pipeline.curatedTypes(),
            RAW_TABLE,
            TrinoServer.localUri(Path.of(pipeline.contract().raw().location())),
            // A month before the oldest delivery: faults land files up to a week before it.
            pipeline.oldestPartition().minusDays(30)));
    this.sqlEngine = sqlEngine("trino", runner -> runner, 2);
  }

  /**
   * Starts Trino and declares one dataset of the pipeline's contract in it as the stack declares it
   * in Glue: its raw tables from the contract's shared Athena definition ({@link
   * RawTable#trinoDdl(DatasetContract, String, String, LocalDate)}, every layout), read through the
   * one {@link AthenaRawTables#readTable} names.
   *
   * @param projectionStart the oldest date folder a projected table reads
   */
  public EngineAgreement(Pipeline pipeline, Path work, String dataset, LocalDate projectionStart) {
    this.pipeline = pipeline;
    this.contract = pipeline.contract(dataset);
    this.rawTable = RAW_SCHEMA + "." + AthenaRawTables.readTable(contract).name();
    this.trino = TrinoServer.shared();
    trino.createRawCatalog(RAW_CATALOG, work.resolve("trino-metastore"));
    trino.createIcebergCatalog(CURATED_CATALOG, pipeline.warehouse());
    trino.execute("CREATE SCHEMA IF NOT EXISTS " + RAW_SCHEMA);
    for (String ddl :
        RawTable.trinoDdl(
            contract,
            RAW_SCHEMA,
            TrinoServer.localUri(Path.of(contract.raw().location())),
            projectionStart)) {
      trino.execute(ddl);
    }
    this.sqlEngine = sqlEngine("trino", runner -> runner, 2);
  }

  /** The Trino server, for queries of a test's own. */
  public TrinoServer trino() {
    return trino;
  }

  /** The engine under test. */
  public SqlEngine sqlEngine() {
    return sqlEngine;
  }

  /**
   * The same queries on the same Trino, as another engine: under {@code name}, each
   * reconciliation's runner passed through {@code wrap} (to record what runs), at most {@code
   * maxInFlight} queries at once.
   */
  public SqlEngine sqlEngine(String name, UnaryOperator<QueryRunner> wrap, int maxInFlight) {
    return new SqlEngine(
        name,
        spec -> new SqlEngine.Tables(rawTable, CURATED_CATALOG + "." + spec.curatedTable()),
        // Trino's statistics say what each query read: the Athena engine's bytes scanned.
        () ->
            wrap.apply(
                new JdbcQueryRunner(
                    trino::connect,
                    rs -> rs.unwrap(TrinoResultSet.class).getStats().getPhysicalInputBytes())),
        RawFiles::list,
        path -> TrinoServer.localUri(Path.of(path)),
        ScanPricing.free(),
        maxInFlight);
  }

  /** A request as the reconciler makes it: up to now, 20 sample keys. */
  public EngineRequest request(ReconciliationMode mode, Instant from, Duration futureTolerance) {
    return request(mode, from, futureTolerance, null);
  }

  /** A request that reads one curated snapshot (null: the current one). */
  public EngineRequest request(
      ReconciliationMode mode, Instant from, Duration futureTolerance, Long curatedSnapshot) {
    Instant now = Instant.now();
    // The datasets the contract's referential rules reference, from the same pipeline.
    Map<String, Referenced> referenced = new java.util.TreeMap<>();
    for (RuleSpec rule : ReferenceRules.of(contract)) {
      referenced.put(
          rule.references(),
          new Referenced(pipeline.contract(rule.references()), pipeline.catalog()));
    }
    return new EngineRequest(
        contract,
        pipeline.catalog(),
        mode,
        from,
        now,
        now,
        20,
        futureTolerance,
        curatedSnapshot,
        null,
        referenced);
  }

  /**
   * One request observed on both engines.
   *
   * @param disagreements how they disagree, one line per measure; empty when they agree
   * @param sql what the Athena engine's SQL observed on Trino, for a test's own assertions
   */
  public record Compared(List<String> disagreements, Observations sql) {}

  /**
   * Observes the request on both engines.
   *
   * @return how they disagree, one line per measure; empty when they agree
   */
  public List<String> disagreements(EngineRequest request) {
    return compare(request).disagreements();
  }

  /**
   * Observes the request on both engines, each once: a test that also asserts on the SQL's own
   * observations takes them from here rather than asking Trino again.
   */
  public Compared compare(EngineRequest request) {
    Observations actual = sqlEngine.observe(request);
    return new Compared(disagreements(request, actual), actual);
  }

  /**
   * Observes the request on the embedded engine and holds {@code actual}, the SQL's observations of
   * the same request, to it.
   *
   * @return how they disagree, one line per measure; empty when they agree
   */
  public List<String> disagreements(EngineRequest request, Observations actual) {
    Observations expected;
    try {
      expected = duckDb.observe(request);
    } catch (EngineException e) {
      // The embedded engine could not read a file at all: every SQL measure must fail too.
      List<String> out = new ArrayList<>();
      for (Finding f : findings(actual)) {
        if (!f.failed()) {
          out.add("DuckDB failed (" + e.getMessage() + ") but a SQL measure ran: " + f);
        }
      }
      return out;
    }
    List<String> out = new ArrayList<>();
    same(out, "expectedRows", expected.expectedRows(), actual.expectedRows());
    same(out, "curatedRows", expected.curatedRows(), actual.curatedRows());
    String[] names = {
      "countDifference", "missing", "unexpected", "duplicates", "stale", "mismatched"
    };
    List<Finding> e = findings(expected);
    List<Finding> a = findings(actual);
    for (int i = 0; i < names.length; i++) {
      finding(out, names[i], e.get(i), a.get(i));
    }
    Freshness ef = expected.freshness();
    Freshness af = actual.freshness();
    same(out, "freshness.error", ef.error(), af.error());
    close(out, "freshness.newestCurated", ef.newestCurated(), af.newestCurated());
    close(out, "freshness.newestRaw", ef.newestRaw(), af.newestRaw());
    finding(out, "freshness.pending", ef.pending(), af.pending());
    same(out, "strayEntries", expected.strayEntries(), actual.strayEntries());
    same(out, "aggregates", aggregates(expected.aggregates()), aggregates(actual.aggregates()));
    same(out, "queried rules", expected.queried().keySet(), actual.queried().keySet());
    expected
        .queried()
        .forEach(
            (rule, f) -> {
              Finding other = actual.queried().get(rule);
              if (other != null) {
                finding(out, "rule " + rule, f, other);
              }
            });
    return out;
  }

  /**
   * What aggregate_match sees, engine-neutral: an error, agreement (computed or known from the
   * buckets), or each aggregate's two values; timestamps to the millisecond, the precision the
   * Athena SQL reads raw at.
   */
  private static List<String> aggregates(AggregateFinding f) {
    if (f == null) {
      return List.of("not measured");
    }
    if (f.error() != null) {
      return List.of("ERROR");
    }
    boolean differ =
        f.values().stream().anyMatch(v -> v.deviation(ToleranceMode.ABSOLUTE) > 0.0005);
    if (!differ) {
      return List.of(f == AggregateFinding.NONE ? "none" : "all agree");
    }
    return f.values().stream()
        .map(
            v ->
                v.unit() == AggregateFinding.Unit.SECONDS
                    ? v.column()
                        + " "
                        + v.aggregate().id()
                        + ": raw "
                        + microsToMillis(v.raw())
                        + ", curated "
                        + microsToMillis(v.curated())
                    : v.describe())
        .toList();
  }

  private static Long microsToMillis(String micros) {
    return micros == null ? null : Math.floorDiv(Long.parseLong(micros.trim()), 1000L);
  }

  private static List<Finding> findings(Observations o) {
    return List.of(
        o.countDifference(),
        o.missing(),
        o.unexpected(),
        o.duplicates(),
        o.stale(),
        o.mismatched());
  }

  private static void finding(List<String> out, String name, Finding e, Finding a) {
    if (e.failed() != a.failed()) {
      out.add(
          name
              + ": DuckDB "
              + (e.failed() ? e.error() : "ran")
              + ", Trino "
              + (a.failed() ? a.error() : "ran"));
    }
    if (e.failed() || a.failed()) {
      return;
    }
    same(out, name + ".count", e.count(), a.count());
    same(out, name + ".sample", e.sample(), a.sample());
    same(out, name + ".diff", comparable(e.diff()), comparable(a.diff()));
  }

  /**
   * A difference as both engines must show it: everything but the raw row position, which Athena
   * cannot give, with timestamps to the millisecond, the precision the Athena SQL compares them at
   * (rounded, as its cast rounds).
   */
  private static ValueDiff comparable(ValueDiff d) {
    if (d == null) {
      return null;
    }
    return new ValueDiff(
        d.keys(),
        d.differingKeys(),
        d.samples().stream()
            .map(
                k ->
                    new ValueDiff.KeyDiff(
                        k.key(),
                        k.raw() == null
                            ? null
                            : new ValueDiff.RawVersion(
                                k.raw().file(),
                                null,
                                millis(k.raw().changeMarker()),
                                k.raw().delete(),
                                millisValues(k.raw().values())),
                        k.curated() == null
                            ? null
                            : new ValueDiff.CuratedRow(
                                k.curated().dataFile(),
                                k.curated().snapshotId(),
                                k.curated().runId(),
                                k.curated().operation(),
                                k.curated().engine(),
                                millis(k.curated().changeMarker()),
                                millisValues(k.curated().values())),
                        k.differingColumns()))
            .toList());
  }

  private static java.util.Map<String, String> millisValues(java.util.Map<String, String> values) {
    java.util.Map<String, String> out = new java.util.LinkedHashMap<>();
    values.forEach((k, v) -> out.put(k, millis(v)));
    return out;
  }

  /** An ISO-8601 instant rounded to the millisecond; any other text as it is. */
  private static String millis(String text) {
    if (text == null) {
      return null;
    }
    try {
      Instant i = Instant.parse(text);
      return Instant.ofEpochMilli(
              Math.floorDiv(i.getEpochSecond() * 1_000_000L + i.getNano() / 1000 + 500, 1000))
          .toString();
    } catch (java.time.format.DateTimeParseException e) {
      return text;
    }
  }

  private static void same(List<String> out, String name, Object e, Object a) {
    if (!Objects.equals(e, a)) {
      out.add(name + ": DuckDB " + e + ", Trino " + a);
    }
  }

  /** Markers agree to the millisecond: Athena reads raw timestamps at that precision. */
  private static void close(List<String> out, String name, Double e, Double a) {
    if (e == null || a == null ? e != a : Math.abs(e - a) > 0.001) {
      out.add(name + ": DuckDB " + e + ", Trino " + a);
    }
  }

  @Override
  public void close() {
    trino.close();
  }
}
