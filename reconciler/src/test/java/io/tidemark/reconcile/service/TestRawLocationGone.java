package io.tidemark.reconcile.service;

import static io.tidemark.reconcile.fixtures.CustomersScenario.NOW;
import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.model.config.RuleSpec;
import io.tidemark.model.report.ReconciliationMode;
import io.tidemark.model.report.ReconciliationReport;
import io.tidemark.model.report.ReconciliationStatus;
import io.tidemark.reconcile.fixtures.CustomersScenario;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.ZoneOffset;
import java.util.Comparator;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A raw location that vanishes after start-up is an outage: the reconciliation is an ERROR naming
 * the location, not a FAILED run reporting every curated key as unexpected.
 */
class TestRawLocationGone {
  @TempDir Path dir;

  @Test
  void aVanishedRawLocationIsAnErrorNamingIt() throws Exception {
    try (CustomersScenario scenario = CustomersScenario.clean(dir)) {
      Path raw = scenario.raw.root();
      try (Stream<Path> all = Files.walk(raw)) {
        all.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
      assertThat(raw).doesNotExist();

      ReconciliationReport report =
          Reconciler.builder(scenario.stateRoot)
              .dataset(scenario.contract(RuleSpec.defaults()), scenario.catalog())
              .clock(Clock.fixed(NOW, ZoneOffset.UTC))
              .build()
              .run("customers", ReconciliationMode.FULL, null, null, "test");

      assertThat(report.status()).isEqualTo(ReconciliationStatus.ERROR);
      assertThat(report.error())
          .isEqualTo("Cannot list raw files: raw location " + raw + " does not exist");
      assertThat(report.results())
          .as("no rule reports keys against an empty raw layer")
          .noneMatch(r -> r.reason() != null && r.reason().contains("unexpected"));
    }
  }
}
