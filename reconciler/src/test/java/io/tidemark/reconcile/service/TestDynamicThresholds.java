package io.tidemark.reconcile.service;

import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.model.config.DynamicThreshold;
import io.tidemark.model.config.RuleKind;
import io.tidemark.model.config.RuleSpec;
import io.tidemark.model.report.ReconciliationMode;
import io.tidemark.model.report.ReconciliationReport;
import io.tidemark.model.report.RuleResult;
import io.tidemark.model.report.RuleStatus;
import io.tidemark.reconcile.fixtures.CustomersScenario;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.stream.IntStream;
import org.assertj.core.data.Offset;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A rule that learns its threshold from its own history: while it has fewer past values than it
 * learns from, its static threshold applies and its result says it is learning; then the threshold
 * is the mean of the last values plus k standard deviations, said on the result, and a jump above
 * it fails. FULL and WINDOW runs learn apart.
 */
class TestDynamicThresholds {
  @TempDir Path dir;
  private CustomersScenario s;
  private Instant now;

  /** The next key to lose: keys 8 to 18 are live in the fixture, one version each. */
  private int deleted = 8;

  @BeforeEach
  void clean() {
    now = Instant.now().plus(Duration.ofMinutes(5)).truncatedTo(ChronoUnit.SECONDS);
    s = CustomersScenario.clean(dir, now);
  }

  @AfterEach
  void close() {
    s.close();
  }

  /** Loses {@code n} more curated rows: count_match then observes that many more. */
  private void lose(int n) {
    s.curated.delete(
        IntStream.range(deleted, deleted + n).mapToObj(CustomersScenario::key).toList());
    deleted += n;
  }

  private RuleResult countMatch(ReconciliationMode mode, int step) {
    Instant at = now.plus(Duration.ofMinutes(step));
    RuleSpec rule =
        new RuleSpec(
            null,
            RuleKind.COUNT_MATCH,
            100.0,
            null,
            null,
            null,
            new DynamicThreshold(3, 2.0, null));
    ReconciliationReport r =
        Reconciler.builder(s.stateRoot)
            .dataset(s.contract(List.of(rule)), s.catalog())
            .clock(Clock.fixed(at, ZoneOffset.UTC))
            .build()
            .run(
                "customers",
                mode,
                mode == ReconciliationMode.WINDOW ? now.minus(Duration.ofDays(30)) : null,
                mode == ReconciliationMode.WINDOW ? at : null,
                "t");
    return r.results().stream()
        .filter(x -> x.ruleId().equals("count_match"))
        .findFirst()
        .orElseThrow();
  }

  @Test
  void aRuleLearnsItsThresholdFromItsLastRunsOfTheSameModeAndFailsAJumpAboveIt() {
    lose(1);
    RuleResult first = countMatch(ReconciliationMode.FULL, 1);
    assertThat(first.status()).as("the static threshold 100 applies").isEqualTo(RuleStatus.PASS);
    assertThat(first.threshold()).isEqualTo(100.0);
    assertThat(first.reason())
        .isEqualTo(
            "learning its threshold: 0 of the 3 FULL runs it learns from so far; the static"
                + " threshold 100 applies until then");
    lose(2);
    assertThat(countMatch(ReconciliationMode.FULL, 2).reason()).contains("1 of the 3 FULL runs");
    lose(2);
    assertThat(countMatch(ReconciliationMode.FULL, 3).reason()).contains("2 of the 3 FULL runs");

    // A WINDOW run learns from WINDOW runs only: it has none yet.
    RuleResult window = countMatch(ReconciliationMode.WINDOW, 4);
    assertThat(window.reason()).startsWith("learning its threshold: 0 of the 3 WINDOW runs");

    // Learned from 1, 3 and 5: mean 3, standard deviation 1.633; 5 passes below 6.266.
    RuleResult learned = countMatch(ReconciliationMode.FULL, 5);
    assertThat(learned.observed()).isEqualTo(5.0);
    assertThat(learned.status()).isEqualTo(RuleStatus.PASS);
    assertThat(learned.threshold()).isCloseTo(3 + 2 * Math.sqrt(8.0 / 3), Offset.offset(1e-9));
    assertThat(learned.reason())
        .isEqualTo(
            "dynamic threshold 6.266: mean 3 + 2 × standard deviation 1.633 of the last 3 FULL"
                + " runs");

    // Learned from 3, 5 and 5: 8 lost rows is a jump above 6.219.
    lose(3);
    RuleResult jump = countMatch(ReconciliationMode.FULL, 6);
    assertThat(jump.observed()).isEqualTo(8.0);
    assertThat(jump.status()).isEqualTo(RuleStatus.FAIL);
    assertThat(jump.threshold()).isCloseTo(13.0 / 3 + 2 * Math.sqrt(8.0 / 9), Offset.offset(1e-9));
    assertThat(jump.reason())
        .startsWith(
            "dynamic threshold 6.2190: mean 4.3333 + 2 × standard deviation 0.9428 of the last 3"
                    .replace("6.2190", "6.219")
                + " FULL runs; curated holds");
  }
}
