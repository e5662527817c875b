package io.tidemark.reconcile.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tidemark.model.json.InvalidDocumentException;
import io.tidemark.model.metrics.Datum;
import io.tidemark.model.metrics.Metric;
import io.tidemark.model.report.Acknowledgement;
import io.tidemark.model.report.ReconciliationMode;
import io.tidemark.model.report.ReconciliationReport;
import io.tidemark.model.report.ReconciliationStatus;
import io.tidemark.reconcile.alarms.AlarmState;
import io.tidemark.reconcile.alarms.AlarmStatus;
import io.tidemark.reconcile.fixtures.CuratedTable;
import io.tidemark.reconcile.fixtures.CustomersScenario;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An acknowledged failure stops alerting (RuleAlerting 0, the rule's alarm back to OK) while it
 * names nothing new, though the rule still fails in every report; a larger failure alerts again; a
 * pass clears it. Each step is a new reconciler over the same state root, as a restart or the next
 * day's run is.
 */
class TestAcknowledgements {
  private static final String RULE = "missing_keys";

  @TempDir Path dir;
  private CustomersScenario s;
  private Instant now;

  @BeforeEach
  void clean() {
    now = Instant.now().plus(Duration.ofMinutes(5)).truncatedTo(ChronoUnit.SECONDS);
    s = CustomersScenario.clean(dir, now);
  }

  @AfterEach
  void close() {
    s.close();
  }

  /** A reconciler started at {@code at}, its history rebuilt from the stored reports. */
  private Reconciler at(Instant at) {
    Reconciler r =
        Reconciler.builder(s.stateRoot)
            .dataset(s.contract(), s.catalog())
            .clock(Clock.fixed(at, ZoneOffset.UTC))
            .build();
    r.recover();
    return r;
  }

  private ReconciliationReport full(Reconciler r) {
    return r.run("customers", ReconciliationMode.FULL, null, null, "t");
  }

  private static AlarmState alarm(Reconciler r) {
    return r.alarms().stream()
        .filter(a -> a.alarmName().endsWith("-customers-rule-missing-keys-failing"))
        .map(AlarmStatus::state)
        .findFirst()
        .orElseThrow();
  }

  private static double alerting(List<Datum> datapoints) {
    return datapoints.stream()
        .filter(
            d ->
                d.metric() == Metric.RULE_ALERTING
                    && RULE.equals(d.dimensions().get(io.tidemark.model.metrics.Dimension.RULE)))
        .mapToDouble(Datum::value)
        .findFirst()
        .orElseThrow();
  }

  /** The curated rows of these keys, to put back later. */
  private List<CuratedTable.Row> rows(List<String> keys) throws Exception {
    List<CuratedTable.Row> out = new ArrayList<>();
    try (CloseableIterable<Record> records = IcebergGenerics.read(s.curated.table()).build()) {
      for (Record rec : records) {
        if (keys.contains((String) rec.getField("customer_id"))) {
          out.add(
              new CuratedTable.Row(
                  (String) rec.getField("customer_id"),
                  (String) rec.getField("customer_name"),
                  (String) rec.getField("email"),
                  ((OffsetDateTime) rec.getField("updated_at")).toInstant()));
        }
      }
    }
    return out;
  }

  @Test
  void anAcknowledgedFailureIsQuietUntilItGrowsAndAPassClearsIt() throws Exception {
    String k19 = CustomersScenario.key(19);
    String k18 = CustomersScenario.key(18);
    List<CuratedTable.Row> lost = rows(List.of(k18, k19));
    s.curated.delete(List.of(k19));

    Reconciler day1 = at(now);
    ReconciliationReport failed = full(day1);
    assertThat(failed.status()).isEqualTo(ReconciliationStatus.FAILED);
    assertThat(alarm(day1)).isEqualTo(AlarmState.ALARM);

    Reconciler.AcknowledgementChange ack =
        day1.acknowledge("customers", RULE, "ana", "TICKET-12: restoring k19 from the backup");
    Acknowledgement a = ack.acknowledgement();
    assertThat(a.reconciliationId()).isEqualTo(failed.id());
    assertThat(a.keys()).containsExactly(k19);
    assertThat(a.observed()).isEqualTo(1.0);
    assertThat(alerting(ack.datapoints())).isZero();
    // Stored in the failed run's report, where a restarted service finds it.
    assertThat(day1.reports().find(failed.id()).orElseThrow().acknowledgement(RULE)).contains(a);
    assertThat(at(now.plusSeconds(10)).acknowledgements("customers")).containsExactly(a);

    // The next day, the same damage: the rule still fails, but it does not alert.
    Reconciler day2 = at(now.plus(Duration.ofHours(1)));
    ReconciliationReport same = full(day2);
    assertThat(same.status()).isEqualTo(ReconciliationStatus.FAILED);
    assertThat(same.acknowledgement(RULE)).contains(a);
    assertThat(alarm(day2)).isEqualTo(AlarmState.OK);
    List<Datum> status = day2.history().series(Metric.RULE_STATUS, ruleDimensions());
    assertThat(status.get(status.size() - 1).value())
        .as("RuleStatus stays the outcome")
        .isEqualTo(1.0);

    // The damage grows: another key is missing, and the rule alerts again.
    s.curated.delete(List.of(k18));
    Reconciler day3 = at(now.plus(Duration.ofHours(2)));
    ReconciliationReport grown = full(day3);
    assertThat(grown.acknowledgements()).isEmpty();
    assertThat(alarm(day3)).isEqualTo(AlarmState.ALARM);

    // Acknowledged again, then repaired: the pass clears it.
    day3.acknowledge("customers", RULE, "ana", "");
    s.curated.append(lost);
    Reconciler day4 = at(now.plus(Duration.ofHours(3)));
    ReconciliationReport repaired = full(day4);
    assertThat(repaired.results().stream().filter(r -> r.ruleId().equals(RULE)).findFirst())
        .hasValueSatisfying(
            r -> assertThat(r.status()).isEqualTo(io.tidemark.model.report.RuleStatus.PASS));
    assertThat(repaired.acknowledgements()).isEmpty();
    assertThat(day4.acknowledgements("customers")).isEmpty();
  }

  /**
   * A night the engine cannot read anything (every rule ERROR) alerts, and the acknowledgement
   * waits: the next night that checks finds it again.
   */
  @Test
  void aNightThatCouldNotCheckKeepsTheAcknowledgementForTheNextVerdict() {
    s.curated.delete(List.of(CustomersScenario.key(19)));
    Reconciler day1 = at(now);
    ReconciliationReport failed = full(day1);
    Acknowledgement a = day1.acknowledge("customers", RULE, "ana", "").acknowledgement();

    Reconciler broken =
        Reconciler.builder(s.stateRoot)
            .dataset(s.contract(), s.catalog())
            .engine(
                new io.tidemark.reconcile.engine.ReconciliationEngine() {
                  @Override
                  public String name() {
                    return "duckdb";
                  }

                  @Override
                  public io.tidemark.reconcile.engine.Observations observe(
                      io.tidemark.reconcile.engine.EngineRequest request) {
                    throw new io.tidemark.reconcile.kernel.EngineException(
                        "Cannot read the raw layer: permission denied");
                  }
                })
            .clock(Clock.fixed(now.plus(Duration.ofHours(1)), ZoneOffset.UTC))
            .build();
    broken.recover();
    ReconciliationReport error = full(broken);
    assertThat(error.status()).isEqualTo(ReconciliationStatus.ERROR);
    assertThat(alarm(broken)).as("an error alerts").isEqualTo(AlarmState.ALARM);

    Reconciler day3 = at(now.plus(Duration.ofHours(2)));
    ReconciliationReport again = full(day3);
    assertThat(again.status()).isEqualTo(ReconciliationStatus.FAILED);
    assertThat(again.acknowledgement(RULE)).contains(a);
    assertThat(alarm(day3)).isEqualTo(AlarmState.OK);

    // What a person saw must still be the latest: failed is not any more.
    assertThatThrownBy(() -> day3.acknowledge("customers", RULE, "bo", "", failed.id()))
        .isInstanceOf(NotFailingException.class)
        .hasMessageContaining("the latest is " + again.id());
  }

  private static java.util.Map<io.tidemark.model.metrics.Dimension, String> ruleDimensions() {
    return java.util.Map.of(
        io.tidemark.model.metrics.Dimension.PIPELINE,
        "default",
        io.tidemark.model.metrics.Dimension.DATASET,
        "customers",
        io.tidemark.model.metrics.Dimension.RULE,
        RULE);
  }

  @Test
  void onlyAFailureCanBeAcknowledgedBySomeoneAndAWithdrawalAlertsAgain() {
    Reconciler r = at(now);
    assertThatThrownBy(() -> r.acknowledge("customers", RULE, "ana", ""))
        .isInstanceOf(NotFailingException.class)
        .hasMessage(
            "Cannot acknowledge rule missing_keys of customers: the dataset has no finished"
                + " reconciliation yet");
    ReconciliationReport passed = full(r);
    assertThatThrownBy(() -> r.acknowledge("customers", RULE, "ana", ""))
        .isInstanceOf(NotFailingException.class)
        .hasMessage(
            "Cannot acknowledge rule missing_keys of customers: it is PASS in the latest"
                + " reconciliation, "
                + passed.id());
    assertThatThrownBy(() -> r.acknowledge("customers", "missing_kyes", "ana", ""))
        .isInstanceOf(InvalidRequestException.class)
        .hasMessageContaining("is no rule of reconciliation " + passed.id())
        .hasMessageContaining("missing_keys");
    assertThatThrownBy(() -> r.acknowledge("nope", RULE, "ana", ""))
        .isInstanceOf(UnknownDatasetException.class);

    s.curated.delete(List.of(CustomersScenario.key(19)));
    Reconciler later = at(now.plus(Duration.ofHours(1)));
    full(later);
    assertThatThrownBy(() -> later.acknowledge("customers", RULE, " ", ""))
        .isInstanceOf(InvalidDocumentException.class)
        .hasMessageContaining("must say who acknowledges");
    later.acknowledge("customers", RULE, "ana", "");
    Reconciler.AcknowledgementChange withdrawn = later.withdraw("customers", RULE);
    assertThat(alerting(withdrawn.datapoints())).isEqualTo(1.0);
    assertThat(later.acknowledgements("customers")).isEmpty();
    assertThatThrownBy(() -> later.withdraw("customers", RULE))
        .isInstanceOf(NotFailingException.class)
        .hasMessageStartingWith("Cannot withdraw the acknowledgement of rule missing_keys");
  }
}
