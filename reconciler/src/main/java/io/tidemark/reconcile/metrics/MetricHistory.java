package io.tidemark.reconcile.metrics;

import io.tidemark.model.cloudwatch.Datum;
import io.tidemark.model.metrics.Dimension;
import io.tidemark.model.metrics.Metric;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
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

  public void record(List<Datum> datums) {
    for (Datum d : datums) {
      series.compute(
          new SeriesKey(d.metric(), d.dimensions()),
          (k, list) -> {
            List<Datum> next = list == null ? new ArrayList<>() : new ArrayList<>(list);
            next.add(d);
            Instant cutoff = d.timestamp().minus(retention);
            next.removeIf(x -> x.timestamp().isBefore(cutoff));
            next.sort(Comparator.comparing(Datum::timestamp));
            return List.copyOf(next);
          });
    }
  }

  /** The datapoints of one series in time order. */
  public List<Datum> series(Metric metric, Map<Dimension, String> dimensions) {
    return series.getOrDefault(new SeriesKey(metric, dimensions), List.of());
  }
}
