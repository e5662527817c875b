package io.tidemark.reconcile.report;

import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.model.report.ReconciliationMode;
import io.tidemark.model.report.ReconciliationReport;
import io.tidemark.model.report.ReconciliationStatus;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TestLocalReportStore {
  @TempDir Path state;

  private static ReconciliationReport running(
      String id, String dataset, Instant start, Instant to) {
    return new ReconciliationReport(
        ReconciliationReport.SCHEMA_VERSION,
        id,
        "default",
        dataset,
        ReconciliationMode.WINDOW,
        null,
        to,
        "duckdb",
        "test",
        ReconciliationStatus.RUNNING,
        start,
        null,
        List.of(),
        0,
        0.0,
        null,
        null,
        null);
  }

  @Test
  void reportsAreFilesDatedByStartAndSurviveARestart() throws Exception {
    Instant t = Instant.parse("2026-03-10T02:00:00Z");
    LocalReportStore store = new LocalReportStore(state);
    ReconciliationReport r = running("r1", "customers", t, t);
    store.save(r);
    store.save(r.withOutcome(ReconciliationStatus.PASSED, t.plusSeconds(5), List.of(), 7, null));
    store.save(running("r2", "orders", t.plusSeconds(60), t.plusSeconds(60)));

    Path file = state.resolve("_reconciliation/dt=2026-03-10/r1.json");
    assertThat(file).isRegularFile();
    try (var listing = Files.list(file.getParent())) {
      assertThat(listing.map(p -> p.getFileName().toString()))
          .containsExactlyInAnyOrder("r1.json", "r2.json");
    }

    LocalReportStore reopened = new LocalReportStore(state);
    assertThat(reopened.find("r1").orElseThrow().status()).isEqualTo(ReconciliationStatus.PASSED);
    assertThat(reopened.list(Optional.empty(), 10))
        .extracting(ReconciliationReport::id)
        .containsExactly("r2", "r1");
    assertThat(reopened.list(Optional.of("customers"), 10))
        .extracting(ReconciliationReport::id)
        .containsExactly("r1");
    assertThat(reopened.list(Optional.empty(), 1)).hasSize(1);
    assertThat(reopened.lastPassedWindowEnd("customers")).contains(t);
    assertThat(reopened.lastPassedWindowEnd("orders")).isEmpty();
  }

  @Test
  void aRunningReportFoundAtStartIsRewrittenAbandoned() {
    Instant t = Instant.parse("2026-03-10T02:00:00Z");
    new LocalReportStore(state).save(running("r1", "customers", t, t));

    LocalReportStore afterCrash = new LocalReportStore(state);
    List<ReconciliationReport> abandoned = afterCrash.abandonRunning(t.plusSeconds(3600));

    assertThat(abandoned).extracting(ReconciliationReport::id).containsExactly("r1");
    ReconciliationReport onDisk = new LocalReportStore(state).find("r1").orElseThrow();
    assertThat(onDisk.status()).isEqualTo(ReconciliationStatus.ABANDONED);
    assertThat(onDisk.finishedAt()).isEqualTo(t.plusSeconds(3600));
    assertThat(onDisk.error()).contains("stopped while this run was RUNNING");
    assertThat(afterCrash.abandonRunning(t.plusSeconds(7200))).isEmpty();
    assertThat(afterCrash.lastPassedWindowEnd("customers"))
        .as("an abandoned run is no window start")
        .isEmpty();
  }

  @Test
  void anUnreadableReportDoesNotHideTheOthers() throws Exception {
    Instant t = Instant.parse("2026-03-10T02:00:00Z");
    new LocalReportStore(state).save(running("r1", "customers", t, t));
    Files.writeString(state.resolve("_reconciliation/dt=2026-03-10/broken.json"), "{not json");

    LocalReportStore store = new LocalReportStore(state);
    assertThat(store.find("r1")).isPresent();
    Path broken = state.resolve("_reconciliation/dt=2026-03-10/broken.json");
    assertThat(store.unreadable())
        .singleElement()
        .satisfies(
            u -> {
              assertThat(u.kind()).isEqualTo("reconciliation");
              assertThat(u.location()).isEqualTo(broken.toString());
              assertThat(u.message())
                  .startsWith("Cannot read reconciliation report " + broken + ": ")
                  .endsWith("; skipped");
            });
  }
}
