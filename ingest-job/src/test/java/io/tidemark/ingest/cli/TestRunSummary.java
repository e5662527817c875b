package io.tidemark.ingest.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.ingest.run.IngestOutcome;
import io.tidemark.model.report.DiscoveryMode;
import io.tidemark.model.report.IngestCounts;
import io.tidemark.model.report.IngestMode;
import io.tidemark.model.report.IngestRunReport;
import io.tidemark.model.report.IngestStatus;
import io.tidemark.model.report.TableMaintenance;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What the command prints when a run ends. */
class TestRunSummary {
  private static String printed(List<String> undeclared) {
    return printed(report(undeclared).build());
  }

  private static IngestRunReport.Builder report(List<String> undeclared) {
    Instant at = Instant.parse("2026-12-06T02:54:45Z");
    return IngestRunReport.builder()
        .runId("20261206T025445Z-6acad97b")
        .batchId("d4f2c1259440f211b61f3673eef65168")
        .pipeline("default")
        .dataset("orders")
        .mode(IngestMode.INCREMENTAL)
        .discoveryMode(DiscoveryMode.FILES)
        .status(IngestStatus.SUCCEEDED)
        .startedAt(at)
        .finishedAt(at.plusSeconds(9))
        .lookback(Duration.ofHours(1))
        .inputFiles(List.of("raw/sales/orders/20261206-025442000.parquet"))
        .counts(IngestCounts.ZERO)
        .undeclaredColumns(undeclared);
  }

  private static String printed(IngestRunReport r) {
    StringWriter out = new StringWriter();
    RunSummary.print(
        new IngestOutcome(r, "state/_runs/r.json", 0, List.of()),
        new PrintWriter(out),
        new PrintWriter(new StringWriter()));
    return out.toString();
  }

  /**
   * A run that read columns the contract does not declare succeeds, and its summary says which:
   * their data reached no table, which a line of counts alone would not tell.
   */
  @Test
  void aRunThatReadUndeclaredColumnsNamesThemUnderItsCounts() {
    assertThat(printed(List.of("coupon")).lines().toList())
        .hasSize(2)
        .element(1)
        .isEqualTo(
            "  column(s) the contract does not declare, which reach no table: coupon (declare them"
                + " in the contract, or have the producer stop sending them)");
    assertThat(printed(List.of()).lines().toList()).hasSize(1);
  }

  /**
   * A maintenance run reads no batch and moves no watermark: its summary says what it did to each
   * table, not a line of zero counts and nulls.
   */
  @Test
  void aMaintenanceRunPrintsWhatItDidToEachTable() {
    IngestRunReport r =
        report(List.of())
            .batchId(null)
            .inputFiles(List.of())
            .mode(IngestMode.MAINTAIN)
            .maintenance(
                List.of(
                    new TableMaintenance(
                        "tidemark.curated.orders", 25, 1, 18, 0, 17, 2, 0, 1, 0, 4),
                    new TableMaintenance(
                        "tidemark.curated.orders_quarantine", 0, 0, 0, 0, 3, 0, 0, 1, 0, 1)))
            .build();
    assertThat(printed(r).lines().toList())
        .containsExactly(
            "SUCCEEDED run 20261206T025445Z-6acad97b maintain: 2 table(s); report"
                + " state/_runs/r.json",
            "  tidemark.curated.orders: 25 data file(s) rewritten into 1, 18 delete file(s)"
                + " removed and 0 written, 17 snapshot(s) expired, 2 orphan file(s) removed; now 1"
                + " data file(s), 0 delete file(s), 4 snapshot(s)",
            "  tidemark.curated.orders_quarantine: 0 data file(s) rewritten into 0, 0 delete"
                + " file(s) removed and 0 written, 3 snapshot(s) expired, 0 orphan file(s) removed;"
                + " now 1 data file(s), 0 delete file(s), 1 snapshot(s)");
  }
}
