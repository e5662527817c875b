package io.tidemark.reconcile.service;

import static io.tidemark.reconcile.fixtures.CustomersScenario.NOW;
import static io.tidemark.reconcile.fixtures.CustomersScenario.at;
import static io.tidemark.reconcile.fixtures.CustomersScenario.key;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tidemark.model.config.RuleKind;
import io.tidemark.model.config.RuleSpec;
import io.tidemark.model.report.ReconciliationMode;
import io.tidemark.model.report.ReconciliationReport;
import io.tidemark.model.report.ReconciliationStatus;
import io.tidemark.model.report.RuleResult;
import io.tidemark.model.report.RuleStatus;
import io.tidemark.reconcile.alarms.AlarmState;
import io.tidemark.reconcile.alarms.AlarmStatus;
import io.tidemark.reconcile.fixtures.CustomersScenario;
import io.tidemark.reconcile.fixtures.RawRow;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Window mode checks what changed in the window; by default, since the last PASSED run. */
class TestWindowMode {
  @TempDir Path dir;

  private static List<String> sample(ReconciliationReport r, RuleKind kind) {
    return r.results().stream()
        .filter(x -> x.kind() == kind)
        .findFirst()
        .map(RuleResult::sampleKeys)
        .orElseThrow();
  }

  private static Reconciler reconciler(CustomersScenario s, Instant now) {
    List<RuleSpec> rules =
        List.of(
            RuleSpec.of(RuleKind.MISSING_KEYS),
            RuleSpec.of(RuleKind.STALE_VERSIONS),
            RuleSpec.of(RuleKind.UNEXPECTED_KEYS));
    return Reconciler.builder(s.stateRoot)
        .dataset(s.contract(rules), s.catalog())
        .clock(Clock.fixed(now, ZoneOffset.UTC))
        .build();
  }

  @Test
  void aWindowChecksOnlyKeysChangedInItAndTheDefaultWindowStartsAtTheLastPassedRun() {
    try (CustomersScenario s = CustomersScenario.clean(dir)) {
      ReconciliationReport full =
          reconciler(s, NOW).run("customers", ReconciliationMode.FULL, null, null, "test");
      assertThat(full.status()).isEqualTo(ReconciliationStatus.PASSED);

      // k10 (last changed -30 h) and k01 (changed -5 h) vanish from curated.
      s.curated.delete(List.of(key(10), key(1)));
      ReconciliationReport recent =
          reconciler(s, NOW).run("customers", ReconciliationMode.WINDOW, at(6), null, "test");
      assertThat(recent.windowFrom()).isEqualTo(at(6));
      assertThat(sample(recent, RuleKind.MISSING_KEYS)).containsExactly(key(1));

      // After the passed run ending at NOW, k02 changes in raw and is not ingested.
      Instant later = NOW.plus(Duration.ofHours(1));
      s.raw.write(
          CustomersScenario.day(later),
          "part-009.parquet",
          List.of(
              RawRow.upsert(
                  key(2), "newer", "k02.v3@example.com", NOW.plus(Duration.ofMinutes(30)))));
      ReconciliationReport next =
          reconciler(s, later).run("customers", ReconciliationMode.WINDOW, null, null, "test");
      assertThat(next.windowFrom()).as("the last PASSED run's window end").isEqualTo(NOW);
      assertThat(next.windowTo()).isEqualTo(later);
      assertThat(sample(next, RuleKind.STALE_VERSIONS)).containsExactly(key(2));
      assertThat(sample(next, RuleKind.MISSING_KEYS)).as("outside the window").isEmpty();

      ReconciliationReport everything =
          reconciler(s, later).run("customers", ReconciliationMode.FULL, null, null, "test");
      assertThat(sample(everything, RuleKind.MISSING_KEYS)).containsExactly(key(1), key(10));
      assertThat(sample(everything, RuleKind.STALE_VERSIONS)).containsExactly(key(2));

      // A window that ends before the newer version leaves that key to a later window.
      ReconciliationReport capped =
          reconciler(s, later).run("customers", ReconciliationMode.FULL, null, NOW, "test");
      assertThat(sample(capped, RuleKind.STALE_VERSIONS)).isEmpty();
    }
  }

  @Test
  void aWindowReadsALateFileFiledInAnOldPartitionWhenItArrivedInTheWindow() {
    try (CustomersScenario s = CustomersScenario.clean(dir)) {
      // Filed three days before the window's start date, arrived an hour ago, changes inside the
      // window, never ingested.
      java.time.LocalDate old = CustomersScenario.day(at(6)).minusDays(3);
      io.tidemark.reconcile.fixtures.RawLayer.landedAt(
          s.raw.write(
              old,
              "late.parquet",
              List.of(RawRow.upsert(key(21), "late", "k21.v1@example.com", at(2)))),
          at(1));

      ReconciliationReport window =
          reconciler(s, NOW).run("customers", ReconciliationMode.WINDOW, at(6), null, "test");

      RuleResult missing = result(window, RuleKind.MISSING_KEYS);
      assertThat(missing.status()).isEqualTo(RuleStatus.FAIL);
      assertThat(missing.sampleKeys()).containsExactly(key(21));
      assertThat(missing.reason())
          .isEqualTo("1 expected keys are missing from the curated table (threshold 0.0)");
    }
  }

  /** A clock the test moves: one reconciler keeps its alarm history across the runs. */
  private static final class SteppedClock extends Clock {
    private Instant now;

    SteppedClock(Instant now) {
      this.now = now;
    }

    void set(Instant i) {
      now = i;
    }

    @Override
    public java.time.ZoneId getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(java.time.ZoneId zone) {
      return this;
    }

    @Override
    public Instant instant() {
      return now;
    }
  }

  private static RuleResult result(ReconciliationReport r, RuleKind kind) {
    return r.results().stream().filter(x -> x.kind() == kind).findFirst().orElseThrow();
  }

  private static AlarmState missingKeysAlarm(Reconciler r) {
    return r.alarms().stream()
        .filter(a -> "missing_keys".equals(a.rule()))
        .map(AlarmStatus::state)
        .findFirst()
        .orElseThrow();
  }

  @Test
  void aFullRunsFailureIsCarriedOverByWindowRunsUntilAFullRunPassesIt() {
    try (CustomersScenario s = CustomersScenario.clean(dir)) {
      SteppedClock clock = new SteppedClock(NOW);
      Reconciler r =
          Reconciler.builder(s.stateRoot)
              .dataset(
                  s.contract(
                      List.of(
                          RuleSpec.of(RuleKind.MISSING_KEYS),
                          RuleSpec.of(RuleKind.STALE_VERSIONS))),
                  s.catalog())
              .clock(clock)
              .build();
      assertThat(r.run("customers", ReconciliationMode.FULL, null, null, "t").status())
          .isEqualTo(ReconciliationStatus.PASSED);

      // k10 last changed 30 h ago: no window after NOW can see it go.
      s.curated.delete(List.of(key(10)));
      clock.set(NOW.plus(Duration.ofHours(1)));
      ReconciliationReport full = r.run("customers", ReconciliationMode.FULL, null, null, "t");
      assertThat(result(full, RuleKind.MISSING_KEYS).sampleKeys()).containsExactly(key(10));
      assertThat(missingKeysAlarm(r)).isEqualTo(AlarmState.ALARM);

      clock.set(NOW.plus(Duration.ofHours(2)));
      ReconciliationReport window = r.run("customers", ReconciliationMode.WINDOW, null, null, "t");
      assertThat(window.windowFrom()).isEqualTo(NOW);
      RuleResult carried = result(window, RuleKind.MISSING_KEYS);
      assertThat(carried.status()).isEqualTo(RuleStatus.FAIL);
      assertThat(carried.carriedOverFrom()).isEqualTo(full.id());
      assertThat(carried.sampleKeys()).containsExactly(key(10));
      assertThat(carried.reason())
          .startsWith(
              "carried over from FULL reconciliation "
                  + full.id()
                  + " (only a FULL run that passes clears it): ");
      assertThat(result(window, RuleKind.STALE_VERSIONS).status()).isEqualTo(RuleStatus.PASS);
      assertThat(window.status()).isEqualTo(ReconciliationStatus.FAILED);
      assertThat(missingKeysAlarm(r)).as("a window cannot clear it").isEqualTo(AlarmState.ALARM);

      // The window itself was clean: the next one starts where it ended, and still carries over.
      clock.set(NOW.plus(Duration.ofHours(3)));
      ReconciliationReport next = r.run("customers", ReconciliationMode.WINDOW, null, null, "t");
      assertThat(next.windowFrom()).isEqualTo(window.windowTo());
      assertThat(result(next, RuleKind.MISSING_KEYS).carriedOverFrom()).isEqualTo(full.id());

      // Repaired, and a FULL run passes: windows report the rule clear again.
      s.curated.append(
          List.of(
              new io.tidemark.reconcile.fixtures.CuratedTable.Row(
                  key(10), CustomersScenario.name(10, 1), CustomersScenario.email(10, 1), at(30))));
      clock.set(NOW.plus(Duration.ofHours(4)));
      assertThat(r.run("customers", ReconciliationMode.FULL, null, null, "t").status())
          .isEqualTo(ReconciliationStatus.PASSED);
      clock.set(NOW.plus(Duration.ofHours(5)));
      ReconciliationReport after = r.run("customers", ReconciliationMode.WINDOW, null, null, "t");
      assertThat(after.status()).isEqualTo(ReconciliationStatus.PASSED);
      assertThat(result(after, RuleKind.MISSING_KEYS).carriedOverFrom()).isNull();
      assertThat(missingKeysAlarm(r)).isEqualTo(AlarmState.OK);
    }
  }

  @Test
  void impossibleWindowsAreRefusedNamingTheField() {
    try (CustomersScenario s = CustomersScenario.clean(dir)) {
      Reconciler r = reconciler(s, NOW);
      assertThatThrownBy(
              () -> r.begin("customers", ReconciliationMode.WINDOW, NOW, NOW.minusSeconds(1), "t"))
          .isInstanceOf(InvalidRequestException.class)
          .hasMessageContaining("field 'from'");
      assertThatThrownBy(
              () -> r.begin("customers", ReconciliationMode.WINDOW, null, NOW.plusSeconds(60), "t"))
          .isInstanceOf(InvalidRequestException.class)
          .hasMessageContaining("field 'to'")
          .hasMessageContaining("in the future");
      assertThatThrownBy(() -> r.begin("customers", ReconciliationMode.FULL, at(5), null, "t"))
          .hasMessageContaining("field 'from'");
      assertThatThrownBy(() -> r.begin("orders", null, null, null, "t"))
          .isInstanceOf(UnknownDatasetException.class)
          .hasMessage("Cannot find dataset 'orders': it is not configured");
    }
  }

  @Test
  void oneRunPerDatasetAtATime() {
    try (CustomersScenario s = CustomersScenario.clean(dir)) {
      Reconciler r = reconciler(s, NOW);
      Reconciler.Started first = r.begin("customers", ReconciliationMode.FULL, null, null, "t");
      assertThatThrownBy(() -> r.begin("customers", ReconciliationMode.FULL, null, null, "t"))
          .isInstanceOf(AlreadyRunningException.class)
          .satisfies(
              e ->
                  assertThat(((AlreadyRunningException) e).runningId())
                      .isEqualTo(first.report().id()));
      assertThat(r.execute(first).status()).isEqualTo(ReconciliationStatus.PASSED);
      assertThat(r.running("customers")).isEmpty();
    }
  }
}
