package io.tidemark.reconcile.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.model.metrics.Datum;
import io.tidemark.model.metrics.Metric;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** What the alarm history keeps: one retention period back from each series' newest point. */
class TestMetricHistory {
  static final Instant NEWEST = Instant.parse("2026-12-01T23:00:00Z");
  static final Metric METRIC = Metric.values()[0];

  static Datum at(Instant t, double value) {
    return Datum.of(METRIC, "default", "customers", value, t);
  }

  static List<Datum> hourlyForAYear() {
    List<Datum> out = new ArrayList<>();
    for (int h = 365 * 24 - 1; h >= 0; h--) {
      out.add(at(NEWEST.minus(Duration.ofHours(h)), h));
    }
    return out;
  }

  static List<Datum> newestFirst(List<Datum> in) {
    List<Datum> out = new ArrayList<>(in);
    java.util.Collections.reverse(out);
    return out;
  }

  @Test
  void aYearOfReportsReadNewestFirstKeepsOnlyTheRetentionInTimeOrder() {
    // The service rebuilds its history at start from every stored report, newest first.
    MetricHistory history = new MetricHistory(Duration.ofDays(15));
    for (Datum d : newestFirst(hourlyForAYear())) {
      history.record(List.of(d));
    }

    List<Datum> kept = history.series(METRIC, at(NEWEST, 0).dimensions());

    assertThat(kept).hasSize(15 * 24 + 1);
    assertThat(kept.get(0).timestamp()).isEqualTo(NEWEST.minus(Duration.ofDays(15)));
    assertThat(kept.get(kept.size() - 1).timestamp()).isEqualTo(NEWEST);
    assertThat(kept).isSortedAccordingTo(java.util.Comparator.comparing(Datum::timestamp));
  }

  @Test
  void theOrderOfRecordingChangesNothing() {
    MetricHistory newestFirst = new MetricHistory(Duration.ofDays(15));
    newestFirst(hourlyForAYear()).forEach(d -> newestFirst.record(List.of(d)));
    MetricHistory oldestFirst = new MetricHistory(Duration.ofDays(15));
    hourlyForAYear().forEach(d -> oldestFirst.record(List.of(d)));

    Map<io.tidemark.model.metrics.Dimension, String> dims = at(NEWEST, 0).dimensions();
    assertThat(newestFirst.series(METRIC, dims)).isEqualTo(oldestFirst.series(METRIC, dims));
  }

  @Test
  void aPointOlderThanTheRetentionIsNotKeptAndTwoPointsAtOneTimeBothAre() {
    MetricHistory history = new MetricHistory(Duration.ofDays(1));
    history.record(List.of(at(NEWEST, 1)));
    history.record(List.of(at(NEWEST.minus(Duration.ofDays(2)), 2)));
    history.record(List.of(at(NEWEST.minus(Duration.ofHours(1)), 3), at(NEWEST, 4)));

    assertThat(history.series(METRIC, at(NEWEST, 0).dimensions()))
        .extracting(Datum::value)
        .containsExactly(3.0, 1.0, 4.0);
  }
}
