package io.tidemark.model.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.model.config.RuleKind;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The catalogue covers what both halves report, with names CloudWatch accepts. */
class TestMetricCatalogue {
  @Test
  void namesAreUniqueAndValidForCloudWatch() {
    List<String> names = Arrays.stream(Metric.values()).map(Metric::metricName).toList();
    assertThat(names).doesNotHaveDuplicates().allMatch(n -> n.matches("[A-Z][A-Za-z]{1,254}"));
    assertThat(Arrays.stream(Metric.values())).allMatch(m -> !m.description().isBlank());
  }

  @Test
  void ingestMetricsCoverEveryRunCount() {
    assertThat(Metric.emittedBy(Emitter.INGEST_JOB))
        .extracting(Metric::metricName)
        .contains(
            "FilesDiscovered",
            "FilesNew",
            "FilesSkipped",
            "RecordsRead",
            "RecordsChanged",
            "RecordsInserted",
            "RecordsUpdated",
            "RecordsDeleted",
            "RecordsInvalid",
            "RecordsSuperseded",
            "RecordsLate",
            "RecordsWritten",
            "WatermarkBefore",
            "WatermarkAfter",
            "WatermarkLag",
            "RunDuration",
            "RunSucceeded",
            "RunFailed",
            "PartitionFoldersIgnored",
            "FilesMissedByLookback");
  }

  @Test
  void ingestMetricsCarryTheModeSoModesNeverBlend_reconcilerMetricsDoNot() {
    assertThat(Dimension.MODE.cloudWatchName()).isEqualTo("Mode");
    assertThat(Dimension.byCloudWatchName("Mode")).contains(Dimension.MODE);
    assertThat(Metric.emittedBy(Emitter.INGEST_JOB))
        .allMatch(
            m ->
                m.dimensions()
                    .equals(List.of(Dimension.PIPELINE, Dimension.DATASET, Dimension.MODE)));
    assertThat(Metric.emittedBy(Emitter.RECONCILER))
        .isNotEmpty()
        .allMatch(m -> !m.dimensions().contains(Dimension.MODE));
    assertThat(Metric.FILES_MISSED_BY_LOOKBACK.unit()).isEqualTo(MetricUnit.COUNT);
  }

  @Test
  void reconcilerMetricsCarryTheRuleOnlyWhereItApplies() {
    assertThat(Metric.RULE_STATUS.dimensions())
        .containsExactly(Dimension.PIPELINE, Dimension.DATASET, Dimension.RULE);
    assertThat(Metric.RULE_OBSERVED_VALUE.dimensions()).contains(Dimension.RULE);
    assertThat(Metric.BYTES_SCANNED.dimensions()).doesNotContain(Dimension.RULE);
    assertThat(Metric.BYTES_SCANNED.unit()).isEqualTo(MetricUnit.BYTES);
    for (RuleKind kind : RuleKind.values()) {
      kind.metric().ifPresent(m -> assertThat(m.emitter()).isEqualTo(Emitter.RECONCILER));
    }
    assertThat(Metric.byName("FreshnessLag")).contains(Metric.FRESHNESS_LAG);
    assertThat(Metric.byName("freshnessLag")).isEmpty();
  }
}
