package io.tidemark.reconcile.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;
import static org.assertj.core.api.Assertions.within;

import io.tidemark.model.config.RuleKind;
import io.tidemark.model.contract.ContractFile;
import io.tidemark.model.report.ReconciliationMode;
import io.tidemark.model.report.ReconciliationReport;
import io.tidemark.model.report.ReconciliationStatus;
import io.tidemark.model.report.RuleResult;
import io.tidemark.model.report.RuleStatus;
import io.tidemark.reconcile.alarms.AlarmState;
import io.tidemark.reconcile.alarms.AlarmStatus;
import io.tidemark.reconcile.fixtures.OrdersScenario;
import io.tidemark.reconcile.fixtures.OrdersScenario.Line;
import io.tidemark.reconcile.fixtures.QuarantineTable;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A DMS orders dataset, declared only by its contract file, reconciled on DuckDB against a real
 * Iceberg table: a composite key (string + int), a decimal, a date, a boolean, a sequence marker,
 * DMS's {@code Op} values I/U/D mapped by the contract, and a full load without the Op column.
 */
class TestDmsOrders {
  private static final Instant NOW = Instant.now().truncatedTo(ChronoUnit.SECONDS);

  @TempDir Path dir;

  /** A service of every dataset of the scenario's contract file. */
  private static Reconciler service(OrdersScenario s) {
    Reconciler.Builder b = Reconciler.builder(s.stateRoot).clock(Clock.fixed(NOW, ZoneOffset.UTC));
    ContractFile.load(s.contractFile).datasets().values().forEach(d -> b.dataset(d, s.catalog()));
    return b.build();
  }

  /** Reconciles orders in a service of every dataset of the scenario's contract file. */
  private static ReconciliationReport reconcile(OrdersScenario s) {
    return service(s).run("orders", ReconciliationMode.FULL, null, null, "test");
  }

  private static final List<String> HEADS = List.of("O-1", "O-2", "O-4");

  /** Gives the scenario's custom rule, amounts_match_raw (its one {@code sql:}), another query. */
  private static void customQuery(OrdersScenario s, String sql) throws java.io.IOException {
    String yaml = Files.readString(s.contractFile);
    java.util.regex.Matcher m =
        java.util.regex.Pattern.compile("(?m)^(\\s*sql: ).*$").matcher(yaml);
    assertThat(m.find()).as("the custom rule's query in %s", s.contractFile).isTrue();
    Files.writeString(
        s.contractFile, m.replaceFirst(java.util.regex.Matcher.quoteReplacement(m.group(1) + sql)));
  }

  private static Map<RuleKind, RuleResult> byKind(ReconciliationReport r) {
    return r.results().stream().collect(Collectors.toMap(RuleResult::kind, Function.identity()));
  }

  @Test
  void curatedEqualToTheFullLoadAndItsChangesPasses() throws Exception {
    ReconciliationReport r = reconcile(OrdersScenario.create(dir, NOW, OrdersScenario.EXPECTED));
    assertThat(r.results())
        .as("%s", r.results())
        .allSatisfy(x -> assertThat(x.status()).as(x.ruleId()).isEqualTo(RuleStatus.PASS));
    assertThat(r.status()).isEqualTo(ReconciliationStatus.PASSED);
  }

  @Test
  void anAlteredAmountFailsValueMismatchesNamingTheWholeKey() throws Exception {
    List<Line> curated = new ArrayList<>(OrdersScenario.EXPECTED);
    // One cent off: a float rounding could hide it, an exact decimal comparison cannot.
    curated.set(2, new Line("O-2", 1, "99.98", "2026-03-02", false, 3));
    Map<RuleKind, RuleResult> r = byKind(reconcile(OrdersScenario.create(dir, NOW, curated)));
    assertThat(r.get(RuleKind.VALUE_MISMATCHES).status()).isEqualTo(RuleStatus.FAIL);
    assertThat(r.get(RuleKind.VALUE_MISMATCHES).sampleKeys()).containsExactly("O-2|1");
    assertThat(r.get(RuleKind.MISSING_KEYS).status()).isEqualTo(RuleStatus.PASS);
    // The same cent in the aggregates, exactly: the sum and the largest amount moved, the rest
    // (the smallest amount, the dates, the null counts) did not.
    RuleResult aggregates = r.get(RuleKind.AGGREGATE_MATCH);
    assertThat(aggregates.status()).isEqualTo(RuleStatus.FAIL);
    assertThat(aggregates.observed()).isEqualTo(0.01);
    assertThat(aggregates.sampleKeys())
        .containsExactly(
            "amount sum: raw 135.60, curated 135.59 (absolute difference 0.01)",
            "amount max: raw 99.99, curated 99.98 (absolute difference 0.01)");
    assertThat(aggregates.reason())
        .startsWith("2 of 7 aggregate(s) of amount, order_date differ by more than the threshold");
  }

  /**
   * The orders, and their heads, with the damage of a fault docs/rules.md lists for this dataset,
   * by the fault's name.
   */
  private static OrdersScenario damaged(Path root, String fault) throws Exception {
    List<Line> curated = new ArrayList<>(OrdersScenario.EXPECTED);
    List<String> removedHeads = List.of();
    switch (fault) {
      case "amount altered" -> curated.set(2, new Line("O-2", 1, "99.98", "2026-03-02", false, 3));
      case "line dropped" -> curated.remove(1);
      case "order head removed" -> removedHeads = List.of("O-2");
      default -> throw new AssertionError("docs/rules.md names a fault this test lacks: " + fault);
    }
    return OrdersScenario.createWithHeads(root, NOW, curated, HEADS, removedHeads);
  }

  @Test
  void eachFaultFailsTheRulesDocsRulesMdNames() throws Exception {
    List<String> lines = Files.readAllLines(Path.of("../docs/rules.md"));
    int at = lines.indexOf("## On the DMS orders example");
    assertThat(at).as("docs/rules.md's orders section").isNotNegative();
    int rows = 0;
    for (String line : lines.subList(at + 1, lines.size())) {
      if (line.startsWith("## ")) {
        break;
      }
      if (!line.startsWith("| `")) {
        continue;
      }
      String[] cells = line.split("\\|");
      String fault = cells[1].trim().replace("`", "");
      List<String> documented =
          java.util.Arrays.stream(cells[3].replace("`", "").split(","))
              .map(String::trim)
              .sorted()
              .toList();
      Path root = dir.resolve("fault-" + rows++);
      ReconciliationReport report = reconcile(damaged(root, fault));
      List<String> failing =
          report.results().stream()
              .filter(x -> x.status() != RuleStatus.PASS)
              .map(RuleResult::ruleId)
              .sorted()
              .toList();
      assertThat(failing).as("%s: %s", fault, report.results()).isEqualTo(documented);
    }
    assertThat(rows).isEqualTo(3);
  }

  /**
   * A line whose order head is gone from the heads' curated table breaks head_known, naming the
   * line, and nothing else fails: raw and curated orders still agree. With every head there, the
   * rule passes.
   */
  @Test
  void aLineWhoseOrderHeadIsGoneBreaksItsReferenceNamingTheLine() throws Exception {
    OrdersScenario clean =
        OrdersScenario.createWithHeads(
            dir.resolve("clean"), NOW, OrdersScenario.EXPECTED, HEADS, List.of());
    ReconciliationReport passed = reconcile(clean);
    assertThat(passed.results())
        .as("%s", passed.results())
        .allSatisfy(x -> assertThat(x.status()).as(x.ruleId()).isEqualTo(RuleStatus.PASS))
        .anySatisfy(x -> assertThat(x.ruleId()).isEqualTo("head_known"));

    OrdersScenario broken =
        OrdersScenario.createWithHeads(
            dir.resolve("broken"), NOW, OrdersScenario.EXPECTED, HEADS, List.of("O-2"));
    List<io.tidemark.model.metrics.Datum> published = new ArrayList<>();
    Reconciler.Builder b =
        Reconciler.builder(broken.stateRoot)
            .clock(Clock.fixed(NOW, ZoneOffset.UTC))
            .listener((report, datapoints) -> published.addAll(datapoints));
    ContractFile.load(broken.contractFile)
        .datasets()
        .values()
        .forEach(d -> b.dataset(d, broken.catalog()));
    ReconciliationReport failed =
        b.build().run("orders", ReconciliationMode.FULL, null, null, "test");
    assertThat(published)
        .as("the dataset's broken references, on the dashboard's metric")
        .filteredOn(x -> x.metric() == io.tidemark.model.metrics.Metric.BROKEN_REFERENCES)
        .singleElement()
        .satisfies(x -> assertThat(x.value()).isEqualTo(1.0));
    assertThat(failed.results())
        .filteredOn(x -> x.status() != RuleStatus.PASS)
        .singleElement()
        .satisfies(
            x -> {
              assertThat(x.ruleId()).isEqualTo("head_known");
              assertThat(x.kind()).isEqualTo(RuleKind.REFERENTIAL_INTEGRITY);
              assertThat(x.status()).isEqualTo(RuleStatus.FAIL);
              assertThat(x.observed()).isEqualTo(1);
              assertThat(x.sampleKeys()).containsExactly("O-2|1");
              assertThat(x.reason())
                  .isEqualTo(
                      "1 curated row(s) whose order_id is no live key of dataset order_heads"
                          + " (threshold 0.0); the rows' keys are shown");
            });
  }

  /**
   * A custom rule may read the rows the ingest job quarantined: none before the job has made its
   * quarantine table, then those its query keeps, named by file and row.
   */
  @Test
  void aCustomRuleReadsTheQuarantineWhenItNamesIt() throws Exception {
    OrdersScenario s = OrdersScenario.create(dir, NOW, OrdersScenario.EXPECTED);
    String query =
        "SELECT source_file || '#' || CAST(row_number AS VARCHAR) AS at, reason FROM quarantine"
            + " WHERE reason <> 'LATE_RECORD' AND replayed_at IS NULL";
    customQuery(s, query);
    RuleResult before = byKind(reconcile(s)).get(RuleKind.CUSTOM_SQL);
    assertThat(before.status()).as(before.reason()).isEqualTo(RuleStatus.PASS);

    QuarantineTable.write(
        s.catalog(),
        "curated.orders_quarantine",
        "run-q",
        NOW.minus(Duration.ofHours(1)),
        List.of("UNKNOWN_OPERATION", "LATE_RECORD", "INVALID_KEY"));
    RuleResult after = byKind(reconcile(s)).get(RuleKind.CUSTOM_SQL);
    assertThat(after.status()).as(after.reason()).isEqualTo(RuleStatus.FAIL);
    assertThat(after.observed()).isEqualTo(2);
    assertThat(after.sampleKeys()).containsExactly("part-001.parquet#0", "part-001.parquet#2");

    // After a replay ingested the first row, the table has the replay columns: it is left out.
    OrdersScenario replayed =
        OrdersScenario.create(dir.resolve("replayed"), NOW, OrdersScenario.EXPECTED);
    customQuery(replayed, query);
    QuarantineTable.writeWithReplays(
        replayed.catalog(),
        "curated.orders_quarantine",
        NOW.minus(Duration.ofHours(1)),
        List.of("UNKNOWN_OPERATION", "LATE_RECORD", "INVALID_KEY"),
        1);
    assertThat(byKind(reconcile(replayed)).get(RuleKind.CUSTOM_SQL).sampleKeys())
        .containsExactly("part-001.parquet#2");
  }

  /**
   * Rules under ids of their own have alarms of their own, named as the stack names them: a failing
   * custom rule and a broken reference each raise theirs (no kind's alarm watches them).
   */
  @Test
  void aFailingRuleUnderAnIdOfItsOwnRaisesItsOwnAlarm() throws Exception {
    List<Line> curated = new ArrayList<>(OrdersScenario.EXPECTED);
    curated.set(2, new Line("O-2", 1, "99.98", "2026-03-02", false, 3));
    Reconciler r =
        service(OrdersScenario.createWithHeads(dir, NOW, curated, HEADS, List.of("O-2")));
    r.run("orders", ReconciliationMode.FULL, null, null, "test");
    assertThat(r.alarms())
        .filteredOn(a -> a.dataset().equals("orders") && a.rule() != null)
        .filteredOn(a -> List.of("amounts_match_raw", "head_known").contains(a.rule()))
        .extracting(AlarmStatus::alarmName, AlarmStatus::state)
        .containsExactlyInAnyOrder(
            tuple("tidemark-default-orders-rule-amounts-match-raw-failing", AlarmState.ALARM),
            tuple("tidemark-default-orders-rule-head-known-failing", AlarmState.ALARM));
  }

  /**
   * A reference the service cannot read is refused when the service is built, naming the rule; a
   * referenced table that is gone at run time is that rule's ERROR, naming it.
   */
  @Test
  void aReferenceNoOneCanReadIsRefusedAtStartAndAMissingTableIsAnError() throws Exception {
    OrdersScenario s =
        OrdersScenario.createWithHeads(dir, NOW, OrdersScenario.EXPECTED, HEADS, List.of());
    assertThatThrownBy(
            () -> Reconciler.builder(s.stateRoot).dataset(s.contract(), s.catalog()).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "Cannot reconcile dataset orders: rule head_known references dataset 'order_heads',"
                + " which this service does not reconcile (it reconciles [orders])");

    org.apache.iceberg.catalog.Catalog catalog =
        io.tidemark.reconcile.storage.IcebergTables.catalog(s.catalog());
    try {
      catalog.dropTable(
          org.apache.iceberg.catalog.TableIdentifier.parse(OrdersScenario.HEADS_TABLE), false);
    } finally {
      io.tidemark.reconcile.storage.IcebergTables.close(catalog);
    }
    RuleResult r = byKind(reconcile(s)).get(RuleKind.REFERENTIAL_INTEGRITY);
    assertThat(r.status()).isEqualTo(RuleStatus.ERROR);
    assertThat(r.reason()).startsWith("Referential rule head_known could not run its query: ");
  }

  @Test
  void aCustomRuleNamesTheRowsItsQueryReturnsAndAFailingQueryIsAnErrorNamingTheRule()
      throws Exception {
    List<Line> curated = new ArrayList<>(OrdersScenario.EXPECTED);
    curated.set(2, new Line("O-2", 1, "99.98", "2026-03-02", false, 3));
    OrdersScenario s = OrdersScenario.create(dir, NOW, curated);
    Map<RuleKind, RuleResult> r = byKind(reconcile(s));
    RuleResult custom = r.get(RuleKind.CUSTOM_SQL);
    assertThat(custom.ruleId()).isEqualTo("amounts_match_raw");
    assertThat(custom.status()).isEqualTo(RuleStatus.FAIL);
    assertThat(custom.observed()).isEqualTo(1);
    assertThat(custom.sampleKeys()).containsExactly("O-2|1");

    // Unpaid lines of raw's latest versions, the first column a key: two rows, both named.
    customQuery(s, "SELECT key, amount FROM raw_latest WHERE NOT paid");
    custom = byKind(reconcile(s)).get(RuleKind.CUSTOM_SQL);
    assertThat(custom.status()).isEqualTo(RuleStatus.FAIL);
    assertThat(custom.sampleKeys()).containsExactly("O-2|1", "O-4|1");

    customQuery(s, "SELECT key FROM curated WHERE discount > 0");
    custom = byKind(reconcile(s)).get(RuleKind.CUSTOM_SQL);
    assertThat(custom.status()).isEqualTo(RuleStatus.ERROR);
    assertThat(custom.reason())
        .startsWith("Custom rule amounts_match_raw could not run its query: ")
        .contains("discount");
  }

  @Test
  void aCustomQueryThatRunsPastItsTimeIsStoppedAndAnErrorNamingTheRule() throws Exception {
    OrdersScenario s = OrdersScenario.create(dir, NOW, OrdersScenario.EXPECTED);
    // A billion steps of a recursive query: minutes of work, stopped after half a second.
    customQuery(
        s,
        "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1000000000)"
            + " SELECT CAST(i AS VARCHAR) AS key FROM n WHERE i < 0");
    ReconciliationReport report =
        Reconciler.builder(s.stateRoot)
            .engine(new io.tidemark.reconcile.engine.duckdb.DuckDbEngine(Duration.ofMillis(500)))
            .dataset(s.contract(), s.catalog())
            .clock(Clock.fixed(NOW, ZoneOffset.UTC))
            .build()
            .run("orders", ReconciliationMode.FULL, null, null, "test");
    RuleResult custom = byKind(report).get(RuleKind.CUSTOM_SQL);
    assertThat(custom.status()).isEqualTo(RuleStatus.ERROR);
    assertThat(custom.reason())
        .isEqualTo(
            "Custom rule amounts_match_raw could not run its query: stopped after the timeout of"
                + " PT0.5S");
    assertThat(byKind(report).get(RuleKind.VALUE_MISMATCHES).status())
        .as("the other rules still judged")
        .isEqualTo(RuleStatus.PASS);
  }

  @Test
  void aRatioToleranceLetsACentPassTheSumWhileValueMismatchesStillFails() throws Exception {
    List<Line> curated = new ArrayList<>(OrdersScenario.EXPECTED);
    curated.set(2, new Line("O-2", 1, "99.98", "2026-03-02", false, 3));
    OrdersScenario s = OrdersScenario.create(dir, NOW, curated);
    String yaml = Files.readString(s.contractFile);
    String rule = "aggregate_match: {columns: [amount, order_date]}";
    assertThat(yaml).contains(rule);
    Files.writeString(
        s.contractFile,
        yaml.replace(
            rule,
            "aggregate_match: {columns: [amount], aggregates: [sum], tolerance: ratio,"
                + " threshold: 0.001}"));

    Map<RuleKind, RuleResult> r = byKind(reconcile(s));

    RuleResult aggregates = r.get(RuleKind.AGGREGATE_MATCH);
    assertThat(aggregates.status()).as("%s", aggregates).isEqualTo(RuleStatus.PASS);
    assertThat(aggregates.observed()).isCloseTo(0.01 / 135.60, within(1e-12));
    assertThat(r.get(RuleKind.VALUE_MISMATCHES).status()).isEqualTo(RuleStatus.FAIL);
  }

  /**
   * {@code sample-columns: [order_id]}: line_nr is shown as a hash (SHA-256 of "1" begins
   * 6b86b273ff34) in the stored report, while the key column listed stays readable.
   */
  @Test
  void keyColumnsTheContractDoesNotListAreHashedInTheSamples() throws Exception {
    List<Line> curated = new ArrayList<>(OrdersScenario.EXPECTED);
    curated.set(2, new Line("O-2", 1, "99.98", "2026-03-02", false, 3));
    OrdersScenario s = OrdersScenario.create(dir, NOW, curated);
    String yaml = Files.readString(s.contractFile);
    String schedule = "      schedule: \"off\"\n";
    assertThat(yaml).contains(schedule);
    Files.writeString(
        s.contractFile, yaml.replace(schedule, schedule + "      sample-columns: [order_id]\n"));

    ReconciliationReport report = reconcile(s);

    Map<RuleKind, RuleResult> r = byKind(report);
    assertThat(r.get(RuleKind.VALUE_MISMATCHES).status()).isEqualTo(RuleStatus.FAIL);
    assertThat(r.get(RuleKind.VALUE_MISMATCHES).sampleKeys())
        .containsExactly("O-2|hash:6b86b273ff34");
    assertThat(io.tidemark.model.json.Json.write(report)).doesNotContain("O-2|1");
  }

  @Test
  void aDroppedLineFailsMissingKeysNamingTheWholeKey() throws Exception {
    List<Line> curated = new ArrayList<>(OrdersScenario.EXPECTED);
    curated.remove(1);
    Map<RuleKind, RuleResult> r = byKind(reconcile(OrdersScenario.create(dir, NOW, curated)));
    assertThat(r.get(RuleKind.MISSING_KEYS).status()).isEqualTo(RuleStatus.FAIL);
    assertThat(r.get(RuleKind.MISSING_KEYS).sampleKeys()).containsExactly("O-1|2");
    assertThat(r.get(RuleKind.AGGREGATE_MATCH).sampleKeys())
        .contains("amount sum: raw 135.60, curated 110.50 (absolute difference 25.1)")
        .noneMatch(x -> x.contains("null_count"));
    assertThat(r.get(RuleKind.UNEXPECTED_KEYS).status())
        .as("the deleted O-3|1 is expected absent")
        .isEqualTo(RuleStatus.PASS);
  }

  @Test
  void aStrayFileFailsUnprocessedFilesAndIsNamedByCountMatch() throws Exception {
    OrdersScenario s = OrdersScenario.create(dir, NOW, OrdersScenario.EXPECTED);
    Files.writeString(s.raw.resolve("orders-export.csv"), "order_id,line_nr\nO-9,1\n");
    Map<RuleKind, RuleResult> r = byKind(reconcile(s));
    RuleResult unprocessed = r.get(RuleKind.UNPROCESSED_FILES);
    assertThat(unprocessed.status()).isEqualTo(RuleStatus.FAIL);
    assertThat(unprocessed.reason()).contains("orders-export.csv");
    assertThat(r.get(RuleKind.COUNT_MATCH).reason()).contains("orders-export.csv");
  }

  @Test
  void anOperationTheMappingDoesNotNameIsNotAnUpsert() throws Exception {
    OrdersScenario s = OrdersScenario.create(dir, NOW, OrdersScenario.EXPECTED);
    // "X" is no value of the contract's mapping: the job quarantines such a row, so it is no
    // version of O-5|1, and curated lacking it is right.
    s.rawFile(
        "20260309-130000000.parquet",
        "SELECT * FROM (VALUES ('X', 'O-5', 1, 1.00, DATE '2026-03-09', true, 8))"
            + " t(\"Op\", order_id, line_nr, amount, order_date, paid, change_seq)");
    Map<RuleKind, RuleResult> r = byKind(reconcile(s));
    assertThat(r.get(RuleKind.MISSING_KEYS).status()).isEqualTo(RuleStatus.PASS);
  }

  /**
   * A CDC file whose amount is a narrower decimal (the contract accepts it, as the job does) is
   * read as the declared decimal(12,2): 25.1 is 25.10, the curated value, exactly.
   */
  @Test
  void aNarrowerDecimalIsReadAsTheDeclaredDecimal() throws Exception {
    List<Line> curated = new ArrayList<>(OrdersScenario.EXPECTED);
    curated.set(3, new Line("O-4", 1, "0.00", "2026-03-09", false, 7));
    OrdersScenario s = OrdersScenario.create(dir, NOW, curated);
    Files.delete(s.raw.resolve("20260309-120000000.parquet"));
    s.rawFile(
        "20260309-120000000.parquet",
        "SELECT * FROM (VALUES ('U', 'O-1', 2, 25.1, DATE '2026-03-01', true, 5),"
            + " ('D', 'O-3', 1, 5.0, DATE '2026-03-03', true, 6),"
            + " ('I', 'O-4', 1, 0.0, DATE '2026-03-09', false, 7))"
            + " t(\"Op\", order_id, line_nr, amount, order_date, paid, change_seq)",
        "DECIMAL(10,1)");
    ReconciliationReport r =
        Reconciler.builder(s.stateRoot)
            .dataset(s.contract(), s.catalog())
            .clock(Clock.fixed(NOW, ZoneOffset.UTC))
            .build()
            .run("orders", ReconciliationMode.FULL, null, null, "test");
    Map<RuleKind, RuleResult> byKind = byKind(r);
    assertThat(byKind.get(RuleKind.VALUE_MISMATCHES).status())
        .as("%s", byKind.get(RuleKind.VALUE_MISMATCHES))
        .isEqualTo(RuleStatus.PASS);
    assertThat(byKind.get(RuleKind.COUNT_MATCH).status()).isEqualTo(RuleStatus.PASS);
  }
}
