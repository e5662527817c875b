package io.tidemark.reconcile.service;

import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.model.config.RuleKind;
import io.tidemark.model.config.RuleSpec;
import io.tidemark.model.report.ReconciliationMode;
import io.tidemark.model.report.RuleResult;
import io.tidemark.model.report.RuleStatus;
import io.tidemark.reconcile.fixtures.SequenceScenario;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * freshness for a sequence change marker, which carries no time: how long the oldest raw file
 * holding a sequence newer than curated's newest has been waiting, by its arrival.
 */
class TestSequenceFreshness {
  private static final Instant NOW = Instant.now().truncatedTo(ChronoUnit.SECONDS);

  @TempDir Path dir;

  private RuleResult freshness(SequenceScenario s, ReconciliationMode mode) {
    return Reconciler.builder(dir.resolve("state"))
        .dataset(
            s.spec(),
            s.catalog(),
            List.of(new RuleSpec(null, RuleKind.FRESHNESS, 3600.0, null, null, null)))
        .clock(Clock.fixed(NOW, ZoneOffset.UTC))
        .build()
        .run(
            "accounts",
            mode,
            mode == ReconciliationMode.WINDOW ? NOW.minus(java.time.Duration.ofHours(1)) : null,
            null,
            "test")
        .results()
        .get(0);
  }

  @Test
  void aFileCuratedHasNotCaughtUpWithIsLateByItsArrival() {
    SequenceScenario s = SequenceScenario.caughtUp(dir, NOW);
    s.landPending();

    for (ReconciliationMode mode : ReconciliationMode.values()) {
      RuleResult r = freshness(s, mode);

      assertThat(r.status()).as(mode + ": " + r.reason()).isEqualTo(RuleStatus.FAIL);
      assertThat(r.observed()).as(mode.name()).isEqualTo(7200.0);
      assertThat(r.sampleKeys()).as(mode.name()).containsExactly("a1");
      assertThat(r.reason())
          .as(mode.name())
          .isEqualTo(
              "the oldest raw file holding a sequence newer than the newest curated one (3)"
                  + " arrived 7200 s ago (threshold 3600.0 s; sequence markers carry no time, so"
                  + " freshness measures file arrival); the newest curated sequence is 1 behind"
                  + " raw; 1 keys wait in raw");
    }
  }

  @Test
  void aCaughtUpTableIsFreshHoweverOldItsFiles() {
    SequenceScenario s = SequenceScenario.caughtUp(dir, NOW);

    RuleResult r = freshness(s, ReconciliationMode.FULL);

    assertThat(r.status()).as(r.reason()).isEqualTo(RuleStatus.PASS);
    assertThat(r.observed()).isZero();
  }
}
