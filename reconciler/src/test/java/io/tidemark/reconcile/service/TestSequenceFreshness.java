package io.tidemark.reconcile.service;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.smallrye.config.PropertiesConfigSource;
import io.smallrye.config.SmallRyeConfigBuilder;
import io.tidemark.model.config.RuleKind;
import io.tidemark.model.config.RuleSpec;
import io.tidemark.model.metrics.Metric;
import io.tidemark.model.report.ReconciliationMode;
import io.tidemark.model.report.RuleResult;
import io.tidemark.model.report.RuleStatus;
import io.tidemark.reconcile.config.TidemarkConfig;
import io.tidemark.reconcile.fixtures.SequenceScenario;
import io.tidemark.reconcile.metrics.MeterPublisher;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
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
    return freshness(s, mode, new MeterPublisher(new SimpleMeterRegistry(), serviceConfig()));
  }

  /**
   * The freshness result of one run whose datapoints {@code meters} publishes, as the service's.
   */
  private RuleResult freshness(SequenceScenario s, ReconciliationMode mode, MeterPublisher meters) {
    return Reconciler.builder(dir.resolve("state"))
        .dataset(
            s.contract(List.of(new RuleSpec(null, RuleKind.FRESHNESS, 3600.0, null, null, null))),
            s.catalog())
        .clock(Clock.fixed(NOW, ZoneOffset.UTC))
        .listener((report, datapoints) -> meters.publish(datapoints))
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

  /** The service's configuration with nothing configured: CloudWatch off. */
  private static TidemarkConfig serviceConfig() {
    return new SmallRyeConfigBuilder()
        .withMapping(TidemarkConfig.class)
        .withConverter(
            java.time.Duration.class, 200, new io.quarkus.runtime.configuration.DurationConverter())
        .withSources(new PropertiesConfigSource(Map.of(), "test", 100))
        .build()
        .getConfigMapping(TidemarkConfig.class);
  }

  private static double gauge(SimpleMeterRegistry registry, Metric metric) {
    return registry
        .get(metric.metricName())
        .tag("Dataset", "accounts")
        .tag("Pipeline", "default")
        .gauge()
        .value();
  }

  @Test
  void thePublishedFreshnessLagIsTheSecondsTheRuleJudges() {
    SequenceScenario s = SequenceScenario.caughtUp(dir, NOW);
    s.landPending();
    SimpleMeterRegistry registry = new SimpleMeterRegistry();

    RuleResult r =
        freshness(s, ReconciliationMode.FULL, new MeterPublisher(registry, serviceConfig()));

    assertThat(r.observed()).isEqualTo(7200.0);
    // The dashboard's FreshnessLag and the rule's observed value (what the rule's alarm judges)
    // are the same seconds, not the sequence gap (1).
    assertThat(gauge(registry, Metric.FRESHNESS_LAG)).isEqualTo(7200.0);
    assertThat(
            registry
                .get(Metric.RULE_OBSERVED_VALUE.metricName())
                .tag("Dataset", "accounts")
                .tag("Rule", "freshness")
                .gauge()
                .value())
        .isEqualTo(7200.0);
  }

  @Test
  void aCaughtUpTableIsFreshHoweverOldItsFiles() {
    SequenceScenario s = SequenceScenario.caughtUp(dir, NOW);

    RuleResult r = freshness(s, ReconciliationMode.FULL);

    assertThat(r.status()).as(r.reason()).isEqualTo(RuleStatus.PASS);
    assertThat(r.observed()).isZero();
  }
}
