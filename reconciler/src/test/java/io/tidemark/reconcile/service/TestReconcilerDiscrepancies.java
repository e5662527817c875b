package io.tidemark.reconcile.service;

import static io.tidemark.reconcile.fixtures.CustomersScenario.NOW;
import static io.tidemark.reconcile.fixtures.CustomersScenario.at;
import static io.tidemark.reconcile.fixtures.CustomersScenario.email;
import static io.tidemark.reconcile.fixtures.CustomersScenario.key;
import static io.tidemark.reconcile.fixtures.CustomersScenario.name;
import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.model.config.RuleKind;
import io.tidemark.model.config.RuleSpec;
import io.tidemark.model.config.ToleranceMode;
import io.tidemark.model.report.IngestCounts;
import io.tidemark.model.report.ReconciliationMode;
import io.tidemark.model.report.ReconciliationReport;
import io.tidemark.model.report.ReconciliationStatus;
import io.tidemark.model.report.RuleResult;
import io.tidemark.model.report.RuleStatus;
import io.tidemark.model.testing.raw.RawFileWriter;
import io.tidemark.reconcile.alarms.AlarmState;
import io.tidemark.reconcile.alarms.AlarmStatus;
import io.tidemark.reconcile.fixtures.CuratedTable;
import io.tidemark.reconcile.fixtures.CustomersScenario;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One fixture per kind of discrepancy, each the clean customers fixture damaged in one way: the
 * matching rule fails with exactly the offending keys, every other rule passes, and the matching
 * rule's alarm goes to ALARM.
 *
 * <p>Any missing, unexpected or duplicated key also moves the row count, so these fixtures give
 * count_match a ratio tolerance of 0.2 (one or two keys of 19 stay inside it); the count fixture
 * removes four keys, beyond that tolerance, and lets missing_keys tolerate four.
 */
class TestReconcilerDiscrepancies {
  @TempDir Path dir;
  private CustomersScenario scenario;

  @BeforeEach
  void clean() {
    scenario = CustomersScenario.clean(dir);
  }

  @AfterEach
  void close() {
    scenario.close();
  }

  private static List<RuleSpec> rules(double missingThreshold) {
    List<RuleSpec> rules = new ArrayList<>();
    for (RuleKind k : RuleKind.values()) {
      if (!k.byDefault()) {
        continue; // aggregate_match: TestDmsOrders declares it on numbers
      }
      rules.add(
          switch (k) {
            case COUNT_MATCH -> new RuleSpec(null, k, 0.2, ToleranceMode.RATIO, null, null);
            case MISSING_KEYS -> new RuleSpec(null, k, missingThreshold, null, null, null);
            default -> RuleSpec.of(k);
          });
    }
    return rules;
  }

  private Reconciler reconciler(List<RuleSpec> rules, Clock clock) {
    return Reconciler.builder(scenario.stateRoot)
        .dataset(scenario.contract(rules), scenario.catalog())
        .clock(clock)
        .build();
  }

  private ReconciliationReport runFull(List<RuleSpec> rules) {
    return reconciler(rules, Clock.fixed(NOW, ZoneOffset.UTC))
        .run("customers", ReconciliationMode.FULL, null, null, "test");
  }

  private static Map<RuleKind, RuleResult> byKind(ReconciliationReport report) {
    return report.results().stream().collect(Collectors.toMap(RuleResult::kind, r -> r));
  }

  /** The one failing rule, with its sample; every other rule passes. */
  private static void assertOnlyFails(
      ReconciliationReport report, RuleKind failing, List<String> sample) {
    Map<RuleKind, RuleResult> results = byKind(report);
    assertThat(results).hasSize(RuleSpec.defaults().size());
    assertThat(report.status()).isEqualTo(ReconciliationStatus.FAILED);
    assertThat(results.get(failing).status())
        .as("%s: %s", failing, results.get(failing).reason())
        .isEqualTo(RuleStatus.FAIL);
    assertThat(results.get(failing).sampleKeys()).containsExactlyElementsOf(sample);
    results.forEach(
        (kind, r) -> {
          if (kind != failing) {
            assertThat(r.status()).as("%s: %s", kind, r.reason()).isEqualTo(RuleStatus.PASS);
          }
        });
  }

  @Test
  void cleanFixturePassesEveryRuleAndRaisesNoAlarm() {
    Reconciler r = reconciler(RuleSpec.defaults(), Clock.fixed(NOW, ZoneOffset.UTC));
    ReconciliationReport report = r.run("customers", ReconciliationMode.FULL, null, null, "test");

    assertThat(report.status()).isEqualTo(ReconciliationStatus.PASSED);
    assertThat(report.results())
        .hasSize(RuleSpec.defaults().size())
        .allSatisfy(
            x -> {
              assertThat(x.status()).as("%s: %s", x.kind(), x.reason()).isEqualTo(RuleStatus.PASS);
              assertThat(x.sampleKeys()).isEmpty();
            });
    assertThat(byKind(report).get(RuleKind.COUNT_MATCH).observed()).isZero();
    assertThat(byKind(report).get(RuleKind.FRESHNESS).observed())
        .isEqualTo(Duration.ofHours(3).toSeconds());
    assertThat(report.bytesScanned()).isPositive();

    List<AlarmStatus> alarms = r.alarms();
    assertThat(alarms).hasSize(RuleKind.values().length + 15);
    assertThat(alarms).noneMatch(a -> a.state() == AlarmState.ALARM);
    // One alarm per rule kind, from the catalogue: those of the rules the dataset has are OK;
    // those of aggregate_match, custom_sql and referential_integrity, which it does not declare,
    // never get a datapoint.
    assertThat(alarms)
        .filteredOn(a -> a.rule() != null && RuleKind.fromId(a.rule()).byDefault())
        .hasSize(RuleSpec.defaults().size())
        .allSatisfy(a -> assertThat(a.state()).isEqualTo(AlarmState.OK));
    assertThat(alarms)
        .filteredOn(a -> a.rule() != null && !RuleKind.fromId(a.rule()).byDefault())
        .extracting(AlarmStatus::rule)
        .containsExactlyInAnyOrder("aggregate_match", "custom_sql", "referential_integrity");
    assertThat(alarms)
        .filteredOn(a -> a.rule() != null && !RuleKind.fromId(a.rule()).byDefault())
        .allSatisfy(a -> assertThat(a.state()).isEqualTo(AlarmState.INSUFFICIENT_DATA));
    assertThat(alarms)
        .filteredOn(a -> a.logicalId().equals("ChangedRecordsAnomaly"))
        .singleElement()
        .satisfies(
            a -> {
              assertThat(a.state()).isEqualTo(AlarmState.INSUFFICIENT_DATA);
              assertThat(a.reason()).contains("not evaluated locally");
            });
    assertThat(alarms)
        .filteredOn(a -> a.rule() == null && !a.logicalId().equals("ChangedRecordsAnomaly"))
        .allSatisfy(a -> assertThat(a.state()).as(a.logicalId()).isEqualTo(AlarmState.OK));
  }

  @Test
  void missingKeyFailsMissingKeysAndItsAlarm() {
    scenario.curated.delete(List.of(key(10)));
    Reconciler r = reconciler(rules(0), Clock.fixed(NOW, ZoneOffset.UTC));
    ReconciliationReport report = r.run("customers", ReconciliationMode.FULL, null, null, "test");

    assertOnlyFails(report, RuleKind.MISSING_KEYS, List.of(key(10)));
    assertThat(byKind(report).get(RuleKind.MISSING_KEYS).observed()).isEqualTo(1);
    assertThat(r.alarms())
        .filteredOn(a -> a.state() == AlarmState.ALARM)
        .singleElement()
        .satisfies(
            a -> {
              assertThat(a.alarmName())
                  .isEqualTo("tidemark-default-customers-rule-missing-keys-failing");
              assertThat(a.rule()).isEqualTo("missing_keys");
              assertThat(a.reason()).contains("1 of 1 periods breached Maximum >= 1.0");
            });
  }

  @Test
  void unexpectedKeysIncludeOneDeletedInRaw() {
    scenario.curated.append(
        List.of(
            new CuratedTable.Row(key(3), name(3, 1), email(3, 1), at(30)),
            new CuratedTable.Row("k99", "phantom", "k99@example.com", at(6))));

    assertOnlyFails(runFull(rules(0)), RuleKind.UNEXPECTED_KEYS, List.of(key(3), "k99"));
  }

  @Test
  void duplicateKey() {
    scenario.curated.append(List.of(new CuratedTable.Row(key(8), name(8, 1), email(8, 1), at(30))));

    assertOnlyFails(runFull(rules(0)), RuleKind.DUPLICATE_KEYS, List.of(key(8)));
  }

  @Test
  void staleVersion() {
    scenario.curated.upsert(List.of(new CuratedTable.Row(key(1), name(1, 1), email(1, 1), at(30))));

    assertOnlyFails(runFull(rules(0)), RuleKind.STALE_VERSIONS, List.of(key(1)));
  }

  @Test
  void curatedNewerThanEveryRawVersion() {
    // A writer that shifted a timestamp by two hours: curated holds a version raw never had.
    scenario.curated.upsert(
        List.of(new CuratedTable.Row(key(19), name(19, 1), email(19, 1), at(3).plusSeconds(7200))));

    assertOnlyFails(runFull(rules(0)), RuleKind.STALE_VERSIONS, List.of(key(19)));
  }

  @Test
  void valueMismatch() {
    scenario.curated.upsert(
        List.of(new CuratedTable.Row(key(9), name(9, 1), "changed@example.com", at(30))));

    assertOnlyFails(runFull(rules(0)), RuleKind.VALUE_MISMATCHES, List.of(key(9)));
  }

  /**
   * A failing value rule shows, without any SQL by hand, which column differs on how many keys, and
   * for its sample key raw's winning version beside curated's row and the commit that wrote it.
   */
  @Test
  void aValueMismatchShowsBothSidesColumnByColumnAndTheCommitThatWroteIt() {
    scenario
        .curated
        .withSummary("engine-name", "someone-else")
        .upsert(List.of(new CuratedTable.Row(key(9), name(9, 1), "changed@example.com", at(30))));
    long foreign = scenario.curated.table().currentSnapshot().snapshotId();

    ReconciliationReport report = runFull(rules(0));

    io.tidemark.model.report.ValueDiff diff = byKind(report).get(RuleKind.VALUE_MISMATCHES).diff();
    assertThat(diff).isNotNull();
    assertThat(diff.keys()).isEqualTo(1);
    assertThat(diff.differingKeys())
        .containsExactly(Map.entry("customer_name", 0L), Map.entry("email", 1L));
    assertThat(diff.samples())
        .singleElement()
        .satisfies(
            k -> {
              assertThat(k.key()).isEqualTo(key(9));
              assertThat(k.differingColumns()).containsExactly("email");
              assertThat(k.raw().file()).endsWith(".parquet");
              assertThat(k.raw().position()).isNotNull();
              assertThat(k.raw().changeMarker()).isEqualTo(at(30).toString());
              assertThat(k.raw().delete()).isFalse();
              assertThat(k.raw().values())
                  .containsExactly(
                      Map.entry("customer_name", name(9, 1)), Map.entry("email", email(9, 1)));
              assertThat(k.curated().values())
                  .containsExactly(
                      Map.entry("customer_name", name(9, 1)),
                      Map.entry("email", "changed@example.com"));
              assertThat(k.curated().changeMarker()).isEqualTo(at(30).toString());
              assertThat(k.curated().dataFile()).endsWith(".parquet");
              // Blame: the foreign commit, not a Tidemark run.
              assertThat(k.curated().snapshotId()).isEqualTo(foreign);
              assertThat(k.curated().runId()).isNull();
              assertThat(k.curated().operation()).isEqualTo("overwrite");
              assertThat(k.curated().engine()).startsWith("someone-else");
            });
  }

  @Test
  void aStaleVersionShowsRawsNewerVersionBesideCuratedsAndOneSidedKeysShowOneSide() {
    scenario
        .curated
        .asIngestRun("run-7", "batch-7")
        .upsert(List.of(new CuratedTable.Row(key(1), name(1, 1), email(1, 1), at(30))));
    scenario.curated.delete(List.of(key(10)));

    ReconciliationReport report = runFull(rules(0));

    io.tidemark.model.report.ValueDiff stale = byKind(report).get(RuleKind.STALE_VERSIONS).diff();
    assertThat(stale.keys()).isEqualTo(1);
    assertThat(stale.samples())
        .singleElement()
        .satisfies(
            k -> {
              assertThat(k.raw().changeMarker()).isNotEqualTo(k.curated().changeMarker());
              assertThat(k.curated().changeMarker()).isEqualTo(at(30).toString());
              assertThat(k.curated().runId()).isEqualTo("run-7");
              assertThat(k.differingColumns()).isEqualTo(diffOf(k));
              assertThat(stale.differingKeys().values()).allMatch(n -> n <= 1);
            });
    io.tidemark.model.report.ValueDiff missing = byKind(report).get(RuleKind.MISSING_KEYS).diff();
    assertThat(missing.differingKeys()).isEmpty();
    assertThat(missing.samples())
        .singleElement()
        .satisfies(
            k -> {
              assertThat(k.key()).isEqualTo(key(10));
              assertThat(k.raw()).isNotNull();
              assertThat(k.curated()).isNull();
              assertThat(k.differingColumns()).isEmpty();
            });
  }

  private static List<String> diffOf(io.tidemark.model.report.ValueDiff.KeyDiff k) {
    return k.raw().values().keySet().stream()
        .filter(
            c -> !java.util.Objects.equals(k.raw().values().get(c), k.curated().values().get(c)))
        .toList();
  }

  /**
   * Sensitive columns never show in clear: both sides hashed alike, so a difference still shows.
   */
  @Test
  void sensitiveColumnsShowHashedOnBothSides() {
    scenario.curated.upsert(
        List.of(new CuratedTable.Row(key(9), name(9, 1), "changed@example.com", at(30))));
    io.tidemark.model.contract.DatasetContract c = scenario.contract(rules(0));
    io.tidemark.model.contract.DatasetContract.Reconcile r = c.reconcile();
    io.tidemark.model.contract.DatasetContract hidden =
        c.toBuilder()
            .reconcile(
                new io.tidemark.model.contract.DatasetContract.Reconcile(
                    r.schedule(),
                    r.scheduleMode(),
                    r.futureTolerance(),
                    r.unprocessedFileGrace(),
                    r.sampleColumns(),
                    r.rules(),
                    r.verifiedTag(),
                    List.of("email")))
            .build();
    ReconciliationReport report =
        Reconciler.builder(scenario.stateRoot)
            .dataset(hidden, scenario.catalog())
            .clock(Clock.fixed(NOW, ZoneOffset.UTC))
            .build()
            .run("customers", ReconciliationMode.FULL, null, null, "test");

    io.tidemark.model.report.ValueDiff.KeyDiff k =
        byKind(report).get(RuleKind.VALUE_MISMATCHES).diff().samples().get(0);
    assertThat(k.raw().values().get("email")).startsWith("hash:").doesNotContain("example");
    assertThat(k.curated().values().get("email"))
        .startsWith("hash:")
        .isNotEqualTo(k.raw().values().get("email"));
    assertThat(k.raw().values().get("customer_name")).isEqualTo(name(9, 1));
    assertThat(k.differingColumns()).containsExactly("email");
    assertThat(io.tidemark.model.json.Json.write(report)).doesNotContain("changed@example.com");
  }

  /**
   * A dataset that compares no column: before this change value_mismatches passed over a damaged
   * email, as a comparison of nothing finds no difference.
   */
  @Test
  void aValueRuleWithNoComparedColumnsIsAnErrorNotAPass() {
    scenario.curated.upsert(
        List.of(new CuratedTable.Row(key(9), name(9, 1), "changed@example.com", at(30))));
    io.tidemark.model.contract.DatasetContract nothingCompared =
        io.tidemark.reconcile.fixtures.Contracts.withRules(
            io.tidemark.reconcile.fixtures.Contracts.customersBuilder(
                    scenario.dataset, scenario.raw.root().toString(), CustomersScenario.TABLE)
                .comparedColumns()
                .build(),
            rules(0));
    Reconciler r =
        Reconciler.builder(scenario.stateRoot)
            .dataset(nothingCompared, scenario.catalog())
            .clock(Clock.fixed(NOW, ZoneOffset.UTC))
            .build();
    ReconciliationReport report = r.run("customers", ReconciliationMode.FULL, null, null, "test");

    RuleResult values = byKind(report).get(RuleKind.VALUE_MISMATCHES);
    assertThat(values.status()).isEqualTo(RuleStatus.ERROR);
    assertThat(values.reason())
        .isEqualTo(
            "Cannot check value mismatches: no column is compared (the dataset's"
                + " compared-columns is empty), so no damaged value could be found");
    assertThat(report.status()).isEqualTo(ReconciliationStatus.FAILED);
    assertThat(r.alarms())
        .filteredOn(a -> "value_mismatches".equals(a.rule()))
        .singleElement()
        .satisfies(a -> assertThat(a.state()).isEqualTo(AlarmState.ALARM));
  }

  @Test
  void countMismatch() {
    scenario.curated.delete(List.of(key(10), key(11), key(12), key(13)));
    ReconciliationReport report = runFull(rules(4));

    assertOnlyFails(report, RuleKind.COUNT_MATCH, List.of(key(10), key(11), key(12), key(13)));
    assertThat(byKind(report).get(RuleKind.COUNT_MATCH).observed())
        .isCloseTo(4.0 / 19, org.assertj.core.data.Offset.offset(1e-9));
    assertThat(byKind(report).get(RuleKind.COUNT_MATCH).reason())
        .contains("curated holds 15 rows where raw expects 19");
  }

  @Test
  void freshnessFailsWhenTheNewestCuratedChangeIsTooOld() {
    Clock later = Clock.fixed(NOW.plus(Duration.ofDays(2)), ZoneOffset.UTC);
    List<io.tidemark.model.metrics.Datum> published = new ArrayList<>();
    ReconciliationReport report =
        Reconciler.builder(scenario.stateRoot)
            .dataset(scenario.contract(rules(0)), scenario.catalog())
            .clock(later)
            .listener((r, datapoints) -> published.addAll(datapoints))
            .build()
            .run("customers", ReconciliationMode.FULL, null, null, "test");

    assertOnlyFails(report, RuleKind.FRESHNESS, List.of());
    assertThat(byKind(report).get(RuleKind.FRESHNESS).observed())
        .isEqualTo(Duration.ofHours(48 + 3).toSeconds());
    assertThat(byKind(report).get(RuleKind.FRESHNESS).reason())
        .contains("183600 s behind now and 0 s behind raw");
    // The FreshnessLag the service publishes is what the rule judged, not the 0 s behind raw.
    assertThat(published)
        .filteredOn(d -> d.metric() == io.tidemark.model.metrics.Metric.FRESHNESS_LAG)
        .extracting(io.tidemark.model.metrics.Datum::value)
        .containsExactly((double) Duration.ofHours(48 + 3).toSeconds());
  }

  @Test
  void freshnessOfAnEmptyTableNamesRawsNewestVersionAsAnInstant() {
    List<String> live = new java.util.ArrayList<>();
    for (int i = 1; i <= 20; i++) {
      if (i != 3) {
        live.add(key(i));
      }
    }
    scenario.curated.delete(live);
    List<RuleSpec> rules =
        List.of(new RuleSpec(null, RuleKind.FRESHNESS, 3600.0, null, null, null));

    RuleResult freshness = runFull(rules).results().get(0);

    assertThat(freshness.status()).isEqualTo(RuleStatus.FAIL);
    assertThat(freshness.reason())
        .isEqualTo(
            "the curated table is empty while raw holds versions up to "
                + at(3)
                + " (behind by 108000 s, since the oldest); 20 keys wait in raw");
  }

  @Test
  void freshnessSamplesTheKeysWaitingInRaw() {
    scenario.raw.write(
        CustomersScenario.day(at(1)),
        "part-003.parquet",
        List.of(
            io.tidemark.reconcile.fixtures.RawRow.upsert("k21", "new", "k21@example.com", at(1))));
    List<RuleSpec> rules =
        List.of(new RuleSpec(null, RuleKind.FRESHNESS, 3600.0, null, null, null));
    ReconciliationReport report = runFull(rules);

    RuleResult freshness = report.results().get(0);
    assertThat(freshness.status()).isEqualTo(RuleStatus.FAIL);
    assertThat(freshness.observed()).isEqualTo(3 * 3600);
    assertThat(freshness.sampleKeys()).containsExactly("k21");
    assertThat(freshness.reason()).contains("10800 s behind now and 7200 s behind raw");
  }

  @Test
  void aFutureDatedRawRowIsInvalidAndDoesNotHideItsKey() {
    // A bogus far-future version of k10 (the ingest job quarantines it) must not hold k10 in
    // flight: the rules still check k10, and its loss from curated is found.
    scenario.raw.write(
        CustomersScenario.day(at(1)),
        "part-003.parquet",
        List.of(
            io.tidemark.reconcile.fixtures.RawRow.upsert(
                key(10),
                "from the future",
                "k10@example.com",
                Instant.parse("2099-01-01T00:00:00Z"))));
    scenario.curated.delete(List.of(key(10)));

    assertOnlyFails(runFull(rules(0)), RuleKind.MISSING_KEYS, List.of(key(10)));
  }

  @Test
  void aMarkerWithinTheFutureToleranceStillHoldsItsKeyInFlight() {
    // Later than the window end (now) but within now + PT1H: a version still on its way, so the
    // key waits for a later window instead of reading as missing.
    scenario.raw.write(
        CustomersScenario.day(at(1)),
        "part-003.parquet",
        List.of(
            io.tidemark.reconcile.fixtures.RawRow.upsert(
                key(10), "in flight", "k10@example.com", NOW.plus(Duration.ofMinutes(30)))));
    scenario.curated.delete(List.of(key(10)));

    ReconciliationReport report = runFull(rules(0));
    assertThat(report.status()).isEqualTo(ReconciliationStatus.PASSED);
  }

  @Test
  void unreadableAndContractBreakingRawFilesAreExcludedAndNamed() throws Exception {
    Path partition = scenario.raw.root().resolve("ingest_date=" + CustomersScenario.day(at(1)));
    Files.createDirectories(partition);
    Path broken = partition.resolve("broken.parquet");
    byte[] noise = new byte[2048];
    new java.util.Random(7).nextBytes(noise);
    Files.write(broken, noise);
    Path noEmail = partition.resolve("no-email.parquet");
    RawFileWriter.writeQueryOnce(
        noEmail,
        "SELECT 'k77' AS customer_id, 'no email' AS customer_name,"
            + " TIMESTAMP '2026-03-10 11:00:00' AS updated_at, 'U' AS op");

    ReconciliationReport report = runFull(RuleSpec.defaults());

    assertThat(report.status()).as("%s", report.error()).isEqualTo(ReconciliationStatus.PASSED);
    assertThat(report.results())
        .allSatisfy(
            r ->
                assertThat(r.status())
                    .as("%s: %s", r.kind(), r.reason())
                    .isEqualTo(RuleStatus.PASS));
    assertThat(byKind(report).get(RuleKind.COUNT_MATCH).reason())
        .startsWith("2 raw file(s) excluded, as the ingest job quarantines them: ")
        .contains("file:" + broken + " (UNREADABLE_FILE: ")
        .contains("file:" + noEmail + " (MISSING_COLUMN: missing column(s) [email])");
    assertThat(byKind(report).get(RuleKind.MISSING_KEYS).reason()).isNull();
  }

  @Test
  void runAccountingNamesTheRunWhoseCountsDoNotAddUp() {
    IngestCounts broken = new IngestCounts(5, 4, 0, 0, 30, 28, 3, 2, 22, 20, 0, 1, 0, 1, 0);
    // Its commit is on the table (the same row again): only its counts are wrong.
    scenario
        .curated
        .asIngestRun("run-0002", "batch-run-0002")
        .upsert(List.of(new CuratedTable.Row(key(19), name(19, 1), email(19, 1), at(3))));
    scenario.writeRunReport("run-0002", at(1), broken);
    ReconciliationReport report = runFull(rules(0));

    assertOnlyFails(report, RuleKind.RUN_ACCOUNTING, List.of("run-0002"));
    RuleResult r = byKind(report).get(RuleKind.RUN_ACCOUNTING);
    assertThat(r.observed()).isEqualTo(2);
    assertThat(r.reason())
        .contains("1 of 2 runs")
        .contains("run-0002: filesDiscovered 5 != filesNew 4 + filesSkipped 0")
        .contains("run-0002: recordsChanged 28 != recordsWritten 22");
  }
}
