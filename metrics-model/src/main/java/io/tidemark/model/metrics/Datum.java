package io.tidemark.model.metrics;

import io.tidemark.model.report.IngestMode;
import java.time.Instant;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * One value of one catalogue metric, with its dimension values. The publisher validates it against
 * the catalogue and CloudWatch's limits before sending; an invalid datum is reported, not thrown.
 */
public record Datum(
    Metric metric, Map<Dimension, String> dimensions, double value, Instant timestamp) {
  public Datum {
    Objects.requireNonNull(metric, "metric is null");
    Objects.requireNonNull(timestamp, "timestamp is null");
    dimensions =
        dimensions == null
            ? Map.of()
            : java.util.Collections.unmodifiableMap(new TreeMap<>(dimensions));
  }

  /** A datum for a metric dimensioned by pipeline and dataset (the reconciler's). */
  public static Datum of(Metric metric, String pipeline, String dataset, double value, Instant at) {
    return new Datum(
        metric, Map.of(Dimension.PIPELINE, pipeline, Dimension.DATASET, dataset), value, at);
  }

  /** A datum for an ingest run's metric: pipeline, dataset and the run's mode. */
  public static Datum ofRun(
      Metric metric, String pipeline, String dataset, IngestMode mode, double value, Instant at) {
    return new Datum(
        metric,
        Map.of(
            Dimension.PIPELINE, pipeline, Dimension.DATASET, dataset, Dimension.MODE, mode.name()),
        value,
        at);
  }

  /** A datum for a per-rule metric. */
  public static Datum ofRule(
      Metric metric, String pipeline, String dataset, String rule, double value, Instant at) {
    return new Datum(
        metric,
        Map.of(Dimension.PIPELINE, pipeline, Dimension.DATASET, dataset, Dimension.RULE, rule),
        value,
        at);
  }

  @Override
  public String toString() {
    return metric.metricName() + dimensions + "=" + value;
  }
}
