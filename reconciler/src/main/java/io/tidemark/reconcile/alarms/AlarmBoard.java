package io.tidemark.reconcile.alarms;

import io.tidemark.model.alarms.AlarmDefinition;
import io.tidemark.model.metrics.Datum;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The alarms of every dataset and their current states. Each evaluation starts from the previous
 * state (CloudWatch's {@code ignore} keeps it); every transition is logged. Alarms start in
 * INSUFFICIENT_DATA, as in CloudWatch.
 */
public final class AlarmBoard {
  private static final Logger LOG = LoggerFactory.getLogger(AlarmBoard.class);

  /** Where an alarm's datapoints come from. */
  @FunctionalInterface
  public interface DatapointSource {
    /** The datapoints of the alarm's series with timestamps in {@code (from, to]}. */
    List<Datum> datapoints(AlarmDefinition alarm, Instant from, Instant to);
  }

  private final Map<String, List<AlarmDefinition>> byDataset;
  private final Map<String, AlarmStatus> current = new HashMap<>();

  /**
   * @param byDataset each dataset's alarm definitions
   */
  public AlarmBoard(Map<String, List<AlarmDefinition>> byDataset) {
    Map<String, List<AlarmDefinition>> copy = new LinkedHashMap<>();
    byDataset.forEach((k, v) -> copy.put(k, List.copyOf(v)));
    this.byDataset = copy;
  }

  public List<AlarmDefinition> definitions(String dataset) {
    return byDataset.getOrDefault(dataset, List.of());
  }

  /** Evaluates every alarm of every dataset at {@code now}. */
  public synchronized List<AlarmStatus> evaluate(Instant now, DatapointSource source) {
    List<AlarmStatus> out = new ArrayList<>();
    for (var e : byDataset.entrySet()) {
      for (AlarmDefinition def : e.getValue()) {
        out.add(evaluate(e.getKey(), def, now, source));
      }
    }
    return out;
  }

  /** Evaluates the alarms of one dataset at {@code now}. */
  public synchronized List<AlarmStatus> evaluate(
      String dataset, Instant now, DatapointSource source) {
    List<AlarmStatus> out = new ArrayList<>();
    for (AlarmDefinition def : definitions(dataset)) {
      out.add(evaluate(dataset, def, now, source));
    }
    return out;
  }

  private AlarmStatus evaluate(
      String dataset, AlarmDefinition def, Instant now, DatapointSource source) {
    AlarmStatus before = current.get(def.alarmName());
    AlarmState previous = before == null ? AlarmState.INSUFFICIENT_DATA : before.state();
    Instant from = now.minusSeconds((long) def.periodSeconds() * def.evaluationPeriods());
    AlarmEvaluation eval;
    List<AlarmStatus.Point> points = List.of();
    try {
      List<Datum> read = source.datapoints(def, from, now);
      points =
          read.stream()
              .map(d -> new AlarmStatus.Point(d.timestamp(), d.value()))
              .sorted(java.util.Comparator.comparing(AlarmStatus.Point::timestamp))
              .toList();
      eval = AlarmEvaluator.evaluate(def, read, previous, now);
    } catch (RuntimeException e) {
      eval =
          new AlarmEvaluation(
              AlarmState.INSUFFICIENT_DATA,
              "Cannot read the alarm's datapoints: " + e.getMessage());
    }
    boolean changed = before == null ? eval.state() != previous : eval.state() != previous;
    Instant since = changed || before == null ? now : before.since();
    if (changed) {
      LOG.info(
          "Alarm {} ({}): {} -> {}: {}",
          def.alarmName(),
          dataset,
          previous,
          eval.state(),
          eval.reason());
    }
    AlarmStatus status =
        new AlarmStatus(
            def.alarmName(),
            def.logicalId(),
            dataset,
            def.metric().metricName(),
            def.rule().orElse(null),
            eval.state(),
            eval.reason(),
            since,
            now,
            AlarmEvaluator.condition(def),
            points);
    current.put(def.alarmName(), status);
    return status;
  }
}
