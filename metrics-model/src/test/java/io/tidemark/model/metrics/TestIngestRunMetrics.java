package io.tidemark.model.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.model.report.IngestMode;
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
    // 13 counts, the two watermarks and the lag, duration, succeeded, failed, ignored folders.
    assertThat(datums).hasSize(20);
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
  void aSweepPublishesTheFilesTheLookbackMissed_zeroToo() {
    for (int missed : new int[] {0, 4}) {
      List<Datum> datums = IngestRunMetrics.datums(Reports.inMode(T0, IngestMode.SWEEP, missed));
      assertThat(datums).hasSize(21);
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
