package io.tidemark.model.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.model.report.IngestMode;
import io.tidemark.model.report.IngestRunReport;
import io.tidemark.model.testing.Reports;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The datums of one run report: which metrics, and the dimensions that keep modes apart. */
class TestIngestRunMetrics {
  private static final Instant T0 = Instant.parse("2026-10-16T02:00:00Z");

  @Test
  void everyDatumCarriesPipelineDatasetAndTheRunsMode() {
    for (IngestMode mode : IngestMode.values()) {
      List<Datum> datums = IngestRunMetrics.datums(Reports.inMode(T0, mode, null));
      assertThat(datums)
          .as(mode.name())
          .isNotEmpty()
          .allSatisfy(
              d ->
                  assertThat(d.dimensions())
                      .isEqualTo(
                          Map.of(
                              Dimension.PIPELINE,
                              "crm",
                              Dimension.DATASET,
                              "customers",
                              Dimension.MODE,
                              mode.name())))
          .allSatisfy(
              d ->
                  assertThat(d.dimensions().keySet())
                      .isEqualTo(Set.copyOf(d.metric().dimensions())));
    }
  }

  @Test
  void anIncrementalRunPublishesEveryIngestMetricButTheSweepCount() {
    List<Datum> datums = IngestRunMetrics.datums(Reports.succeeded(T0));
    // 13 counts, the two watermarks and the lag, duration, succeeded, failed, ignored folders,
    // unplaced entries and undeclared columns.
    assertThat(datums).hasSize(22);
    assertThat(datums)
        .extracting(Datum::metric)
        .doesNotHaveDuplicates()
        .doesNotContain(Metric.FILES_MISSED_BY_LOOKBACK)
        .containsExactlyInAnyOrderElementsOf(
            Metric.emittedBy(Emitter.INGEST_JOB).stream()
                .filter(m -> m != Metric.FILES_MISSED_BY_LOOKBACK)
                .toList());
  }

  @Test
  void inputTheLayoutOrTheContractCannotPlaceIsCounted() {
    IngestRunReport r =
        Reports.succeeded(T0).toBuilder()
            .strayEntries(List.of("orders.csv (not a .parquet data file)", "x (a folder)"))
            .undeclaredColumns(List.of("discount (in 3 file(s))"))
            .build();
    assertThat(IngestRunMetrics.datums(r))
        .filteredOn(
            d -> d.metric() == Metric.UNPLACED_ENTRIES || d.metric() == Metric.UNDECLARED_COLUMNS)
        .extracting(d -> d.metric().name() + "=" + d.value())
        .containsExactlyInAnyOrder("UNPLACED_ENTRIES=2.0", "UNDECLARED_COLUMNS=1.0");
  }

  @Test
  void aSweepPublishesTheFilesTheLookbackMissed_zeroToo() {
    for (int missed : new int[] {0, 4}) {
      List<Datum> datums = IngestRunMetrics.datums(Reports.inMode(T0, IngestMode.SWEEP, missed));
      assertThat(datums).hasSize(23);
      assertThat(datums)
          .filteredOn(d -> d.metric() == Metric.FILES_MISSED_BY_LOOKBACK)
          .singleElement()
          .satisfies(
              d -> {
                assertThat(d.value()).isEqualTo(missed);
                assertThat(d.dimensions()).containsEntry(Dimension.MODE, "SWEEP");
                assertThat(d.timestamp()).isEqualTo(T0.plusSeconds(42));
              });
    }
  }
}
