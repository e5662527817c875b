package io.tidemark.reconcile.metrics;

import io.tidemark.model.metrics.Datum;
import io.tidemark.model.metrics.Dimension;
import io.tidemark.model.metrics.Metric;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The datapoints the service produced, per series (metric + dimension values), kept for a retention
 * period: what the local alarm evaluation reads, like CloudWatch reads its own store.
 */
public final class MetricHistory {
  /** Longer than any alarm's evaluation range (the longest period is one day). */
  public static final Duration RETENTION_DEFAULT = Duration.ofDays(15);

  /** One series: a metric and its dimension values. */
  public record SeriesKey(Metric metric, Map<Dimension, String> dimensions) {
    public SeriesKey {
      Objects.requireNonNull(metric, "metric is null");
      dimensions = java.util.Collections.unmodifiableMap(new TreeMap<>(dimensions));
    }
  }

  private final Duration retention;
  private final Map<SeriesKey, List<Datum>> series = new ConcurrentHashMap<>();

  public MetricHistory() {
    this(RETENTION_DEFAULT);
  }

  public MetricHistory(Duration retention) {
    this.retention = retention;
  }

  /**
   * Adds datapoints, in any order: each series keeps its points in time order (a point after those
   * of the same time) from its newest point minus the retention on.
   */
  public void record(List<Datum> datums) {
    for (Datum d : datums) {
      series.compute(
          new SeriesKey(d.metric(), d.dimensions()),
          (k, list) -> withPoint(list == null ? List.of() : list, d));
    }
  }

  private List<Datum> withPoint(List<Datum> points, Datum d) {
    Instant newest =
        points.isEmpty()
            ? d.timestamp()
            : max(points.get(points.size() - 1).timestamp(), d.timestamp());
    Instant cutoff = newest.minus(retention);
    if (d.timestamp().isBefore(cutoff)) {
      return points;
    }
    int from = firstAtOrAfter(points, cutoff, false);
    int at = firstAtOrAfter(points, d.timestamp(), true);
    List<Datum> next = new ArrayList<>(points.size() - from + 1);
    next.addAll(points.subList(from, at));
    next.add(d);
    next.addAll(points.subList(at, points.size()));
    return Collections.unmodifiableList(next);
  }

  /** The index of the first point at or after {@code t} ({@code after}: strictly after). */
  private static int firstAtOrAfter(List<Datum> points, Instant t, boolean after) {
    int lo = 0;
    int hi = points.size();
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      int c = points.get(mid).timestamp().compareTo(t);
      if (c < 0 || (after && c == 0)) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }

  private static Instant max(Instant a, Instant b) {
    return a.isAfter(b) ? a : b;
  }

  /** The datapoints of one series in time order. */
  public List<Datum> series(Metric metric, Map<Dimension, String> dimensions) {
    return series.getOrDefault(new SeriesKey(metric, dimensions), List.of());
  }
}
