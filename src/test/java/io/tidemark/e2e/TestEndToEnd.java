package io.tidemark.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tidemark.ingest.kernel.FailurePoint;
import io.tidemark.ingest.kernel.FailurePoints;
import io.tidemark.ingest.run.IngestJob;
import io.tidemark.model.config.RuleSpec;
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
import io.tidemark.model.testing.raw.OrdersScenario;
import io.tidemark.reconcile.alarms.AlarmState;
import io.tidemark.reconcile.alarms.AlarmStatus;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * Raw files → ingest → reconcile → damage → reconcile → alarm, on the embedded default: the flow
 * the demo shows, with assertions, for two datasets declared in one contract file and served by one
 * reconciler: the demo's {@code customers} (Hive date folders, a timestamp marker) and an {@code
 * orders} table in AWS DMS's layout (a full load, then CDC files in date folders; a composite key,
 * a decimal, a date, a boolean, a sequence marker, DMS's {@code Op} values). The expected curated
 * states are computed from the raw rows in plain Java ({@link ExpectedState}, {@link
 * OrdersScenario#expected}), never with the job's code.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Tag("spark")
class TestEndToEnd {
  private static final int CUSTOMERS = 3_000;
  private static final Duration FUTURE_TOLERANCE = Duration.ofHours(1);

  @TempDir static Path work;
  private static SparkSession spark;
  private static Pipeline pipeline;

  private final List<Delivery> deliveries =
      new CustomerScenario(CUSTOMERS, 42, LocalDate.now(ZoneOffset.UTC)).deliveries();

  private static final String ORDERS = "orders";
  private static final String ORDERS_RAW = "raw/sales/orders";
  private static final OrdersScenario orders =
      new OrdersScenario(400, 3, 7, LocalDate.now(ZoneOffset.UTC).minusDays(5));
  private static final List<OrdersScenario.OrderFile> ordersLanded = new ArrayList<>();

  @BeforeAll
  static void start() {
    spark = Pipeline.localSpark(work);
    pipeline = new Pipeline(work, spark, OrdersScenario.CONTRACT.replace("RAW", ORDERS_RAW));
  }

  @AfterAll
  static void stop() {
    if (pipeline != null) {
      pipeline.close();
    }
    if (spark != null) {
      spark.stop();
    }
  }

  private Map<String, ExpectedState.Row> expected() {
    return ExpectedState.of(pipeline.landed(), java.time.Instant.now(), FUTURE_TOLERANCE);
  }

  @Test
  @Order(1)
  void dayByDayTheCuratedTableEqualsTheExpectedStateThroughACrashAndItsRetry() {
    for (Delivery day : deliveries) {
      pipeline.land(day);
      IngestRunReport report;
      if (day.day() == 4) {
        long snapshots = pipeline.snapshotCount();
        long batches = pipeline.batchCommitCount();
        Map<String, ExpectedState.Row> before = pipeline.curated();
        long quarantined = pipeline.quarantinedCount();

        assertThatThrownBy(() -> pipeline.ingest(SimulatedCrash.at(FailurePoint.BEFORE_COMMIT)))
            .isInstanceOf(SimulatedCrash.class);
        assertThat(pipeline.snapshotCount())
            .as("nothing committed by the crashed run")
            .isEqualTo(snapshots);
        assertThat(pipeline.curated()).isEqualTo(before);

        report = pipeline.ingest(FailurePoints.none()).report();
        assertThat(report.status()).isEqualTo(IngestStatus.SUCCEEDED);
        assertThat(pipeline.batchCommitCount())
            .as("the retry commits its batch once")
            .isEqualTo(batches + 1);
        assertThat(pipeline.quarantinedCount())
            .as("the retry quarantines the day's invalid rows once")
            .isEqualTo(quarantined + report.counts().recordsInvalid());
      } else if (day.day() == 5) {
        assertThatThrownBy(() -> pipeline.ingest(SimulatedCrash.at(FailurePoint.AFTER_COMMIT)))
            .isInstanceOf(SimulatedCrash.class);
        long snapshots = pipeline.snapshotCount();
        Map<String, ExpectedState.Row> committed = pipeline.curated();

        report = pipeline.ingest(FailurePoints.none()).report();
        assertThat(report.status())
            .as("the retry of a committed batch")
            .isIn(IngestStatus.ALREADY_COMMITTED, IngestStatus.NOTHING_TO_DO);
        assertThat(pipeline.snapshotCount()).as("the retry writes nothing").isEqualTo(snapshots);
        assertThat(pipeline.curated()).isEqualTo(committed);
      } else {
        report = pipeline.ingest(FailurePoints.none()).report();
        assertThat(report.status()).as("day %d", day.day()).isEqualTo(IngestStatus.SUCCEEDED);
      }
      assertThat(report.counts().accountingErrors()).as("day %d accounting", day.day()).isEmpty();
      Map<String, ExpectedState.Row> expected = expected();
      Map<String, ExpectedState.Row> curated = pipeline.curated();
      assertThat(curated.size()).as("day %d rows", day.day()).isEqualTo(expected.size());
      assertThat(curated).as("day %d curated state", day.day()).isEqualTo(expected);
      if (day.day() == CustomerScenario.DAY_OF_LATE_FILE) {
        assertThat(report.counts().recordsLate()).as("late versions counted").isEqualTo(200);
      }
      if (day.day() == CustomerScenario.DAY_OF_REDELIVERY) {
        assertThat(report.counts().recordsUnchanged())
            .as("a re-delivered file changes nothing")
            .isGreaterThan(0);
      }
    }
  }

  @Test
  @Order(2)
  void ordersFromDmsLandExactlyAsExpectedWithExactDecimalsAndARetryAddsNothing() {
    for (List<OrdersScenario.OrderFile> day : orders.days()) {
      OrdersScenario.write(work.resolve(ORDERS_RAW), day);
      ordersLanded.addAll(day);
      IngestRunReport report = new IngestJob(spark, pipeline.ingestSettings(ORDERS)).run().report();
      assertThat(report.status())
          .as("orders, %s", day.get(0).relativePath())
          .isEqualTo(IngestStatus.SUCCEEDED);
      assertThat(report.counts().recordsInvalid()).as("no row quarantined").isZero();
      assertThat(report.counts().accountingErrors()).isEmpty();
      assertThat(curatedOrders()).isEqualTo(OrdersScenario.expected(ordersLanded));
    }
    assertThat(ordersLanded.stream().filter(f -> !f.fullLoad()).flatMap(f -> f.rows().stream()))
        .as("the CDC files hold deletes, which the curated table applied")
        .anyMatch(r -> "D".equals(r.op()));

    IngestRunReport again = new IngestJob(spark, pipeline.ingestSettings(ORDERS)).run().report();
    assertThat(again.status()).isEqualTo(IngestStatus.NOTHING_TO_DO);
    assertThat(curatedOrders()).isEqualTo(OrdersScenario.expected(ordersLanded));
  }

  /**
   * The curated orders by key, as rows of the scenario's own record (exact decimals). Key columns
   * are held as text in the curated table (keys compare as text in every engine), so {@code
   * line_nr} reads back as its digits.
   */
  private static Map<String, OrdersScenario.Order> curatedOrders() {
    Map<String, OrdersScenario.Order> rows = new TreeMap<>();
    for (Row r :
        spark
            .sql(
                "SELECT order_id, line_nr, amount, order_date, paid, change_seq FROM "
                    + pipeline.catalog().name()
                    + ".curated.orders")
            .collectAsList()) {
      OrdersScenario.Order o =
          new OrdersScenario.Order(
              null,
              r.getString(0),
              Integer.parseInt(r.getString(1)),
              r.getDecimal(2),
              r.getDate(3).toLocalDate(),
              r.getBoolean(4),
              r.getLong(5));
      if (rows.put(o.key(), o) != null) {
        throw new AssertionError("key " + o.key() + " is in the curated orders twice");
      }
    }
    return rows;
  }

  @Test
  @Order(3)
  void aCorrectPipelinePassesEveryRuleOfBothDatasetsAndRaisesNoAlarm() {
    for (String dataset : List.of(Pipeline.DATASET, ORDERS)) {
      ReconciliationReport report =
          pipeline.reconciler().run(dataset, ReconciliationMode.FULL, null, null, "test");

      assertThat(report.results())
          .as(dataset)
          .extracting(RuleResult::ruleId, RuleResult::status)
          .containsExactlyInAnyOrderElementsOf(
              pipeline.contract(dataset).reconcile().rules().stream()
                  .map(k -> org.assertj.core.groups.Tuple.tuple(k.id(), RuleStatus.PASS))
                  .toList());
      // Every default rule, and orders' aggregate_match and custom rule besides.
      assertThat(report.results())
          .as(dataset)
          .hasSize(RuleSpec.defaults().size() + (dataset.equals(ORDERS) ? 2 : 0));
      assertThat(report.status()).as(dataset).isEqualTo(ReconciliationStatus.PASSED);
    }
    assertThat(pipeline.reconciler().alarms())
        .filteredOn(a -> a.state() == AlarmState.ALARM)
        .extracting(AlarmStatus::alarmName)
        .isEmpty();
  }

  @Test
  @Order(4)
  void damageOutOfBandTurnsExactlyTheMatchingRulesRedWithTheDamagedKeys() {
    Map<String, ExpectedState.Row> expected = expected();
    List<String> keys = new ArrayList<>(expected.keySet());
    List<String> dropped = List.of(keys.get(10), keys.get(500), keys.get(1500));
    String altered = keys.get(42);
    // A key raw deleted: its last upsert comes back.
    ExpectedState.Row resurrected = deletedKeyLastVersion(expected);

    pipeline.damage(dropped, altered, resurrected);
    ReconciliationReport report =
        pipeline.reconciler().run("customers", ReconciliationMode.FULL, null, null, "test");

    Map<String, RuleResult> byRule =
        report.results().stream().collect(Collectors.toMap(RuleResult::ruleId, r -> r));
    assertThat(report.status()).isEqualTo(ReconciliationStatus.FAILED);
    assertThat(byRule.get("missing_keys").status()).isEqualTo(RuleStatus.FAIL);
    assertThat(byRule.get("missing_keys").sampleKeys())
        .containsExactlyInAnyOrderElementsOf(dropped);
    assertThat(byRule.get("value_mismatches").status()).isEqualTo(RuleStatus.FAIL);
    assertThat(byRule.get("value_mismatches").sampleKeys()).containsExactly(altered);
    assertThat(byRule.get("unexpected_keys").status()).isEqualTo(RuleStatus.FAIL);
    assertThat(byRule.get("unexpected_keys").sampleKeys())
        .containsExactly(resurrected.customerId());
    assertThat(byRule.get("count_match").status()).isEqualTo(RuleStatus.FAIL);
    assertThat(byRule.get("count_match").observed()).isEqualTo(2.0);
    for (String untouched :
        List.of(
            "duplicate_keys",
            "stale_versions",
            "freshness",
            "run_accounting",
            "unprocessed_files")) {
      assertThat(byRule.get(untouched).status()).as(untouched).isEqualTo(RuleStatus.PASS);
    }

    Map<String, AlarmState> ruleAlarms =
        pipeline.reconciler().alarms().stream()
            .filter(a -> a.rule() != null && a.dataset().equals(Pipeline.DATASET))
            .collect(Collectors.toMap(AlarmStatus::rule, AlarmStatus::state));
    assertThat(ruleAlarms)
        .containsEntry("missing_keys", AlarmState.ALARM)
        .containsEntry("value_mismatches", AlarmState.ALARM)
        .containsEntry("unexpected_keys", AlarmState.ALARM)
        .containsEntry("count_match", AlarmState.ALARM)
        .containsEntry("duplicate_keys", AlarmState.OK)
        .containsEntry("stale_versions", AlarmState.OK);
  }

  @Test
  @Order(5)
  void damageToOrdersFailsTheRightRulesNamingTheCompositeKeys() {
    List<String> keys = new ArrayList<>(OrdersScenario.expected(ordersLanded).keySet());
    String droppedKey = keys.get(7);
    String alteredKey = keys.get(77);
    String[] dropped = droppedKey.split("\\|");
    String[] altered = alteredKey.split("\\|");
    String table = pipeline.catalog().name() + ".curated.orders";
    spark.sql(
        "DELETE FROM "
            + table
            + " WHERE order_id = '"
            + dropped[0]
            + "' AND line_nr = "
            + dropped[1]);
    // One cent: a float would hide it in a large amount; the decimal comparison does not.
    spark.sql(
        "UPDATE "
            + table
            + " SET amount = amount + 0.01 WHERE order_id = '"
            + altered[0]
            + "' AND line_nr = "
            + altered[1]);

    ReconciliationReport report =
        pipeline.reconciler().run(ORDERS, ReconciliationMode.FULL, null, null, "test");
    Map<String, RuleResult> byRule =
        report.results().stream().collect(Collectors.toMap(RuleResult::ruleId, r -> r));
    assertThat(report.status()).isEqualTo(ReconciliationStatus.FAILED);
    assertThat(byRule.get("missing_keys").status()).isEqualTo(RuleStatus.FAIL);
    assertThat(byRule.get("missing_keys").sampleKeys()).containsExactly(droppedKey);
    assertThat(byRule.get("value_mismatches").status()).isEqualTo(RuleStatus.FAIL);
    assertThat(byRule.get("value_mismatches").sampleKeys()).containsExactly(alteredKey);
    assertThat(byRule.get("count_match").status()).isEqualTo(RuleStatus.FAIL);
    for (String untouched :
        List.of("unexpected_keys", "duplicate_keys", "stale_versions", "unprocessed_files")) {
      assertThat(byRule.get(untouched).status()).as(untouched).isEqualTo(RuleStatus.PASS);
    }
    assertThat(pipeline.reconciler().alarms())
        .filteredOn(a -> ORDERS.equals(a.dataset()) && a.state() == AlarmState.ALARM)
        .extracting(AlarmStatus::rule)
        .contains("missing_keys", "value_mismatches", "count_match");
  }

  private ExpectedState.Row deletedKeyLastVersion(Map<String, ExpectedState.Row> expected) {
    return DemoMain.lastUpsertOfADeletedKey(pipeline, expected);
  }
}
