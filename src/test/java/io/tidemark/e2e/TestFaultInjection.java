package io.tidemark.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.e2e.trino.EngineAgreement;
import io.tidemark.ingest.kernel.FailurePoints;
import io.tidemark.model.contract.IngestCommit;
import io.tidemark.model.report.IngestRunReport;
import io.tidemark.model.report.IngestStatus;
import io.tidemark.model.report.ReconciliationMode;
import io.tidemark.model.report.ReconciliationReport;
import io.tidemark.model.report.ReconciliationStatus;
import io.tidemark.model.report.RuleResult;
import io.tidemark.model.report.RuleStatus;
import io.tidemark.model.testing.raw.CustomerScenario;
import io.tidemark.model.testing.raw.Delivery;
import io.tidemark.model.testing.raw.ExpectedState;
import io.tidemark.model.testing.raw.RawFile;
import io.tidemark.model.testing.raw.RawFileWriter;
import io.tidemark.model.testing.raw.RawRecord;
import io.tidemark.reconcile.engine.EngineRequest;
import io.tidemark.reconcile.engine.Observations;
import io.tidemark.reconcile.report.LocalRunReports;
import io.tidemark.reconcile.service.Reconciler;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Tags;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * Faults injected into the curated table, the raw layer and the state of a pipeline the real job
 * built, each reconciled in FULL and in WINDOW mode (a window over the last day of changes), and
 * undone before the next. Which rules each fault must fail is the table in docs/rules.md, "What the
 * reconciler catches", which this test reads: the documentation and the behaviour cannot drift
 * apart. {@link TestCleanPipelines} is the control.
 *
 * <p>Every fault is also observed by the Athena engine's SQL on a real Trino over the same files
 * ({@link EngineAgreement}), which must see exactly what the embedded DuckDB engine sees: counts,
 * sample keys, failures and freshness, in both modes.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Tags({@Tag("spark"), @Tag("trino")})
public class TestFaultInjection {
  private static final int CUSTOMERS = 400;
  private static final Duration FUTURE_TOLERANCE = Duration.ofHours(1);
  private static final Path RULES_DOC = Path.of("../../docs/rules.md");
  private static final String TABLE_HEADING = "# What the reconciler catches";

  @TempDir static Path work;
  private static SparkSession spark;
  private static Pipeline pipeline;
  private static long cleanSnapshot;
  private static Instant windowFrom;
  private static Map<String, ExpectedState.Row> expected;
  private static EngineAgreement agreement;

  @BeforeAll
  static void buildACleanPipeline() {
    spark = Pipeline.localSpark(work.resolve("faults"));
    pipeline = ingestAll(work.resolve("faults"), 7, spark);
    expected = ExpectedState.of(pipeline.landed(), Instant.now(), FUTURE_TOLERANCE);
    windowFrom = lastDayOfChanges(pipeline);
    cleanSnapshot =
        spark
            .sql(
                "SELECT snapshot_id FROM "
                    + pipeline.sparkTable()
                    + ".history"
                    + " WHERE is_current_ancestor ORDER BY made_current_at DESC LIMIT 1")
            .first()
            .getLong(0);
    agreement = new EngineAgreement(pipeline, work);
  }

  @AfterAll
  static void stop() {
    if (agreement != null) {
      agreement.close();
    }
    if (pipeline != null) {
      pipeline.close();
    }
    if (spark != null) {
      spark.stop();
    }
  }

  /** The start of the last day with changes: the WINDOW runs check that day. */
  static Instant lastDayOfChanges(Pipeline p) {
    return ExpectedState.of(p.landed(), Instant.now(), FUTURE_TOLERANCE).values().stream()
        .map(ExpectedState.Row::updatedAt)
        .max(Instant::compareTo)
        .orElseThrow()
        .truncatedTo(ChronoUnit.DAYS);
  }

  public static Pipeline ingestAll(Path root, long seed, SparkSession session) {
    Pipeline p = new Pipeline(root, session);
    for (Delivery day :
        new CustomerScenario(CUSTOMERS, seed, LocalDate.now(ZoneOffset.UTC)).deliveries()) {
      p.land(day);
      IngestStatus status = p.ingest(FailurePoints.none()).report().status();
      assertThat(status).as("seed %d day %d", seed, day.day()).isEqualTo(IngestStatus.SUCCEEDED);
    }
    return p;
  }

  /** A reconciler with a history of its own, so that no run carries over another's failure. */
  static Reconciler reconciler(Pipeline p, Path reports) {
    return Reconciler.builder(reports)
        .dataset(p.contract(), p.catalog())
        .runReports(new LocalRunReports(p.stateRoot()))
        .build();
  }

  /** What a run found: the failing rule ids, or {@code ERROR} when the reconciliation failed. */
  static Set<String> failing(ReconciliationReport r) {
    if (r.status() == ReconciliationStatus.ERROR) {
      return Set.of("ERROR");
    }
    return r.results().stream()
        .filter(x -> x.status() != RuleStatus.PASS)
        .map(x -> x.status() == RuleStatus.ERROR ? x.ruleId() + ":ERROR" : x.ruleId())
        .collect(Collectors.toCollection(TreeSet::new));
  }

  // ---- the table ----

  /** One row of the documented table. */
  record Row(String fault, Set<String> full, Set<String> window) {}

  static List<Row> readTable() throws IOException {
    List<String> lines = Files.readAllLines(RULES_DOC);
    int at = lines.indexOf(TABLE_HEADING);
    assertThat(at).as("docs/rules.md section '%s'", TABLE_HEADING).isNotNegative();
    List<Row> rows = new ArrayList<>();
    for (String line : lines.subList(at + 1, lines.size())) {
      if (line.startsWith("## ")) {
        break;
      }
      if (!line.startsWith("| `")) {
        continue;
      }
      String[] cells = line.split("\\|");
      rows.add(new Row(cells[1].trim().replace("`", ""), rules(cells[3]), rules(cells[4])));
    }
    return rows;
  }

  private static Set<String> rules(String cell) {
    String c = cell.replace("¹", "").trim().replace("`", "");
    if (c.equals("—")) {
      return Set.of();
    }
    return Stream.of(c.split(",")).map(String::trim).collect(Collectors.toCollection(TreeSet::new));
  }

  // ---- the faults ----

  private static String recentKey(int n) {
    return expected.values().stream()
        .filter(r -> r.updatedAt().isAfter(windowFrom))
        .map(ExpectedState.Row::customerId)
        .sorted()
        .skip(n)
        .findFirst()
        .orElseThrow();
  }

  private static String oldKey() {
    return expected.values().stream()
        .filter(r -> r.updatedAt().isBefore(windowFrom.minus(Duration.ofDays(2))))
        .map(ExpectedState.Row::customerId)
        .sorted()
        .findFirst()
        .orElseThrow();
  }

  private static void sql(String statement) {
    spark.sql(statement.replace("$T", pipeline.sparkTable()));
  }

  private static String ts(Instant i) {
    return "TIMESTAMP '" + i.toString().replace("T", " ").replace("Z", "") + "'";
  }

  /** Keys the current fault touched: the failing key rules must name one of them. */
  private static final Set<String> touched = new TreeSet<>();

  private static String k(String key) {
    touched.add(key);
    // The key as a changed case or an added space leaves it, for the unexpected side.
    touched.add(key + " ");
    touched.add(key.toLowerCase(java.util.Locale.ROOT));
    touched.add(key.toUpperCase(java.util.Locale.ROOT));
    return key;
  }

  /** Injects a fault and returns how to undo what the table's rollback does not. */
  private static Runnable inject(String fault) throws IOException {
    touched.clear();
    Runnable none = () -> {};
    switch (fault) {
      case "row dropped (recent)" ->
          sql("DELETE FROM $T WHERE customer_id = '" + k(recentKey(0)) + "'");
      case "row dropped (old)" -> sql("DELETE FROM $T WHERE customer_id = '" + k(oldKey()) + "'");
      case "row duplicated" ->
          sql("INSERT INTO $T SELECT * FROM $T WHERE customer_id = '" + k(recentKey(1)) + "'");
      case "row stale" ->
          sql(
              "UPDATE $T SET updated_at = updated_at - INTERVAL 1 DAY WHERE customer_id = '"
                  + k(recentKey(2))
                  + "'");
      case "value altered" ->
          sql(
              "UPDATE $T SET email = 'x@tampered.example' WHERE customer_id = '"
                  + k(recentKey(3))
                  + "'");
      case "value nulled" ->
          sql("UPDATE $T SET customer_name = NULL WHERE customer_id = '" + k(recentKey(4)) + "'");
      case "deleted key resurrected" -> {
        ExpectedState.Row r = DemoMain.lastUpsertOfADeletedKey(pipeline, expected);
        sql(
            "INSERT INTO $T (customer_id, customer_name, email, updated_at) VALUES ('"
                + k(r.customerId())
                + "', 'back', 'back@example.com', "
                + ts(r.updatedAt())
                + ")");
      }
      case "key case changed" ->
          sql(
              "UPDATE $T SET customer_id = CASE WHEN upper(customer_id) = customer_id"
                  + " THEN lower(customer_id) ELSE upper(customer_id) END WHERE customer_id = '"
                  + k(recentKey(5))
                  + "'");
      case "key whitespace added" ->
          sql(
              "UPDATE $T SET customer_id = concat(customer_id, ' ') WHERE customer_id = '"
                  + k(recentKey(6))
                  + "'");
      case "timestamp shifted +2 h" ->
          sql(
              "UPDATE $T SET updated_at = updated_at + INTERVAL 2 HOURS WHERE customer_id = '"
                  + k(recentKey(7))
                  + "'");
      case "row invented" ->
          sql(
              "INSERT INTO $T (customer_id, customer_name, email, updated_at) VALUES"
                  + " ('"
                  + k("zz-invented")
                  + "', 'n', 'e@example.com', "
                  + ts(Instant.now().minus(Duration.ofHours(2)).truncatedTo(ChronoUnit.SECONDS))
                  + ")");
      case "table rolled back" -> {
        // Back one batch: the newest earlier snapshot on main that carries a batch (a batch with
        // new keys and updates appends the new keys in a commit of its own just before).
        long previous =
            spark
                .sql(
                    "SELECT h.snapshot_id FROM "
                        + pipeline.sparkTable()
                        + ".history h JOIN "
                        + pipeline.sparkTable()
                        + ".snapshots s ON h.snapshot_id = s.snapshot_id"
                        + " WHERE h.is_current_ancestor AND h.snapshot_id <> "
                        + cleanSnapshot
                        + " AND s.summary['"
                        + IngestCommit.BATCH_ID_PROPERTY
                        + "'] IS NOT NULL ORDER BY h.made_current_at DESC, s.committed_at DESC"
                        + " LIMIT 1")
                .first()
                .getLong(0);
        setCurrent(previous);
      }
      case "table emptied" -> sql("DELETE FROM $T");
      case "compacted by another engine" ->
          // Every data file rewritten (deletes applied): a "replace" snapshot no Tidemark run made,
          // which changes no row, so no rule may fail.
          spark.sql(
              "CALL "
                  + pipeline.catalog().name()
                  + ".system.rewrite_data_files(table => '"
                  + Pipeline.CURATED_TABLE
                  + "', options => map('rewrite-all', 'true'))");
      case "data file lost" -> {
        String location =
            spark
                .sql(
                    "SELECT file_path FROM "
                        + pipeline.sparkTable()
                        + ".data_files ORDER BY record_count DESC LIMIT 1")
                .first()
                .getString(0);
        return moveAway(
            location.startsWith("file:")
                ? Path.of(java.net.URI.create(location))
                : Path.of(location));
      }
      case "raw file deleted" -> {
        Path last =
            pipeline.landed().stream()
                .filter(f -> f.rows().size() > 10)
                .reduce((a, b) -> b)
                .map(f -> pipeline.rawRoot().resolve("customers").resolve(f.relativePath()))
                .orElseThrow();
        return moveAway(last);
      }
      case "run report deleted" -> {
        List<Path> reports;
        try (Stream<Path> files = Files.walk(pipeline.stateRoot().resolve("_runs"))) {
          reports = files.filter(f -> f.toString().endsWith(".json")).sorted().toList();
        }
        Path succeeded = null;
        for (Path f : reports) {
          IngestRunReport r = io.tidemark.model.json.Json.read(f, IngestRunReport.class);
          if (r.status() == IngestStatus.SUCCEEDED) {
            succeeded = f;
          }
        }
        return moveAway(succeeded);
      }
      case "late file beyond the lookback" -> {
        // Filed a week back, long past the job's lookback, landed seven hours ago (past the
        // unprocessed-file grace), with a change inside the window: no run will read it.
        LocalDate partition = LocalDate.ofInstant(windowFrom, ZoneOffset.UTC).minusDays(7);
        Instant at = Instant.now().minus(Duration.ofHours(3)).truncatedTo(ChronoUnit.SECONDS);
        Path file;
        try (RawFileWriter writer = new RawFileWriter()) {
          file =
              writer.write(
                  pipeline.rawRoot().resolve("customers"),
                  new RawFile(
                      partition,
                      "late-beyond-lookback.parquet",
                      List.of(new RawRecord(k("zz-late"), "late", "late@example.com", at, "U"))));
        }
        Files.setLastModifiedTime(
            file, java.nio.file.attribute.FileTime.from(Instant.now().minus(Duration.ofHours(7))));
        return () -> {
          try {
            Files.delete(file);
          } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
          }
        };
      }
      default -> throw new IllegalArgumentException("Cannot inject unknown fault '" + fault + "'");
    }
    return none;
  }

  private static void setCurrent(long snapshot) {
    spark.sql(
        "CALL "
            + pipeline.catalog().name()
            + ".system.set_current_snapshot(table => '"
            + Pipeline.CURATED_TABLE
            + "', snapshot_id => "
            + snapshot
            + ")");
  }

  private static Runnable moveAway(Path file) throws IOException {
    Path aside = work.resolve("aside").resolve(file.getFileName().toString());
    Files.createDirectories(aside.getParent());
    Files.move(file, aside, StandardCopyOption.REPLACE_EXISTING);
    return () -> {
      try {
        Files.move(aside, file);
      } catch (IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    };
  }

  private static final Set<String> KEY_RULES =
      Set.of(
          "missing_keys",
          "unexpected_keys",
          "duplicate_keys",
          "stale_versions",
          "value_mismatches");

  /**
   * Why a run's samples do not show the fault: a failing key rule that names none of the keys the
   * fault touched, or an ERROR that does not name what it could not read; null when they do.
   */
  private static String wrongSamples(ReconciliationReport r) {
    if (r.status() == ReconciliationStatus.ERROR) {
      return r.error() != null && r.error().contains(".parquet")
          ? null
          : "ERROR without the file it could not read: " + r.error();
    }
    if (touched.isEmpty()) {
      return null;
    }
    for (RuleResult x : r.results()) {
      if (x.status() == RuleStatus.FAIL
          && KEY_RULES.contains(x.ruleId())
          && x.sampleKeys().stream().noneMatch(touched::contains)) {
        return x.ruleId() + " samples " + x.sampleKeys() + " name none of " + touched;
      }
    }
    return null;
  }

  /** The rules whose failing keys show both sides. */
  private static final List<String> DIFF_RULES =
      List.of("missing_keys", "unexpected_keys", "stale_versions", "value_mismatches");

  /**
   * Why a failing key rule of {@code r} does not show the difference of its sample keys, or null:
   * every sample key has its two sides, and a key on both sides names a differing column or
   * version.
   */
  private static String undiffed(ReconciliationReport r) {
    for (RuleResult x : r.results()) {
      if (x.status() != RuleStatus.FAIL || !DIFF_RULES.contains(x.ruleId())) {
        continue;
      }
      if (x.diff() == null) {
        return x.ruleId() + " fails without showing the difference";
      }
      List<String> shown =
          x.diff().samples().stream().map(io.tidemark.model.report.ValueDiff.KeyDiff::key).toList();
      if (!shown.equals(x.sampleKeys())) {
        return x.ruleId() + " shows " + shown + " for sample keys " + x.sampleKeys();
      }
      for (var k : x.diff().samples()) {
        boolean bothSides = k.raw() != null && k.curated() != null && !k.raw().delete();
        if (x.ruleId().equals("value_mismatches") && k.differingColumns().isEmpty()) {
          return "value_mismatches key " + k.key() + " names no differing column: " + k;
        }
        if (x.ruleId().equals("stale_versions")
            && bothSides
            && k.raw().changeMarker().equals(k.curated().changeMarker())) {
          return "stale_versions key " + k.key() + " shows one version on both sides: " + k;
        }
        if (x.ruleId().equals("missing_keys") && (k.raw() == null || k.curated() != null)) {
          return "missing_keys key " + k.key() + " is not on raw's side only: " + k;
        }
      }
    }
    return null;
  }

  @Test
  void everyFaultFailsTheRulesTheReadmeNamesInFullAndInWindowMode() throws Exception {
    List<Row> table = readTable();
    assertThat(table).as("faults in docs/rules.md's table").hasSizeGreaterThanOrEqualTo(16);
    Map<String, String> mismatches = new LinkedHashMap<>();
    Map<String, List<String>> engines = new LinkedHashMap<>();
    int n = 0;
    for (Row row : table) {
      Runnable undo = inject(row.fault());
      try {
        Path reports = work.resolve("reports-" + n++);
        ReconciliationReport full =
            reconciler(pipeline, reports.resolve("full"))
                .run("customers", ReconciliationMode.FULL, null, null, "fault");
        ReconciliationReport window =
            reconciler(pipeline, reports.resolve("window"))
                .run("customers", ReconciliationMode.WINDOW, windowFrom, null, "fault");
        if (!failing(full).equals(row.full()) || !failing(window).equals(row.window())) {
          mismatches.put(
              row.fault(),
              "FULL "
                  + failing(full)
                  + " (table "
                  + row.full()
                  + "), WINDOW "
                  + failing(window)
                  + " (table "
                  + row.window()
                  + ")");
        }
        for (ReconciliationReport r : List.of(full, window)) {
          String wrong = wrongSamples(r);
          if (wrong != null) {
            mismatches.put(row.fault() + " " + r.mode(), wrong);
          }
          String undiffed = undiffed(r);
          if (undiffed != null) {
            mismatches.put(row.fault() + " " + r.mode() + " difference", undiffed);
          }
        }
        engines.put(row.fault() + " FULL", agreement.disagreements(fullRequest()));
        engines.put(row.fault() + " WINDOW", agreement.disagreements(windowRequest()));
      } finally {
        undo.run();
        setCurrent(cleanSnapshot);
      }
    }
    assertThat(mismatches)
        .as("faults whose failing rules differ from docs/rules.md's table")
        .isEmpty();
    engines.values().removeIf(List::isEmpty);
    assertThat(engines)
        .as("faults the Athena engine's SQL (on Trino) observes differently from DuckDB")
        .isEmpty();
  }

  /**
   * The Athena engine's SQL, run on a real Trino over the same files, observes the clean pipeline
   * exactly as the embedded engine does; the fault test above holds it to that on every fault.
   */
  @Test
  void theAthenaSqlOnTrinoObservesTheCleanPipelineAsDuckDbDoes() {
    EngineAgreement.Compared full = agreement.compare(fullRequest());
    assertThat(full.disagreements()).as("FULL").isEmpty();
    assertThat(agreement.disagreements(windowRequest())).as("WINDOW").isEmpty();
    Observations o = full.sql();
    assertThat(o.expectedRows()).isEqualTo(expected.size());
    assertThat(o.missing().count() + o.unexpected().count() + o.stale().count()).isZero();
  }

  /**
   * A reconciliation reads the curated snapshot it pinned when it began, on both engines (Athena's
   * {@code FOR VERSION AS OF}): a row deleted by hand after the pin is the next run's to find.
   */
  @Test
  void bothEnginesReadThePinnedSnapshot() {
    String key = recentKey(0);
    sql("DELETE FROM $T WHERE customer_id = '" + key + "'");
    try {
      EngineRequest pinned =
          agreement.request(ReconciliationMode.FULL, null, FUTURE_TOLERANCE, cleanSnapshot);
      EngineAgreement.Compared atPin = agreement.compare(pinned);
      assertThat(atPin.disagreements()).as("pinned").isEmpty();
      assertThat(atPin.sql().missing().count()).as("missing at the pinned snapshot").isZero();
      EngineAgreement.Compared current = agreement.compare(fullRequest());
      assertThat(current.disagreements()).as("current").isEmpty();
      assertThat(current.sql().missing().sample())
          .as("missing at the current snapshot")
          .containsExactly(key);
    } finally {
      setCurrent(cleanSnapshot);
    }
  }

  private static EngineRequest fullRequest() {
    return agreement.request(ReconciliationMode.FULL, null, FUTURE_TOLERANCE);
  }

  private static EngineRequest windowRequest() {
    return agreement.request(ReconciliationMode.WINDOW, windowFrom, FUTURE_TOLERANCE);
  }
}
