package io.tidemark.reconcile.alarms;

import io.tidemark.model.alarms.AlarmDefinition;
import io.tidemark.model.metrics.Datum;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.OptionalDouble;

/**
 * Evaluates one static-threshold alarm definition the way CloudWatch does, against datapoints:
 *
 * <ol>
 *   <li>The evaluation range is the {@code EvaluationPeriods} most recent periods, sliding windows
 *       ending at the evaluation time: period {@code i} covers {@code (now - (i+1)·P, now - i·P]}.
 *       Each period's datapoints reduce to the alarm's statistic (Maximum, Minimum, Sum, Average,
 *       SampleCount); a period without datapoints is missing.
 *   <li>With no missing period, the alarm is ALARM when at least {@code DatapointsToAlarm} periods
 *       breach the threshold under the comparison operator, OK otherwise.
 *   <li>With some periods missing, {@code breaching} and {@code notBreaching} fill them as
 *       breaching or not; {@code missing} and {@code ignore} evaluate the present periods only:
 *       ALARM when at least {@code min(DatapointsToAlarm, present)} of them breach (CloudWatch's "a
 *       lone breaching datapoint alarms").
 *   <li>With every period missing: {@code breaching} is ALARM, {@code notBreaching} OK, {@code
 *       ignore} keeps the current state, {@code missing} is INSUFFICIENT_DATA.
 * </ol>
 *
 * Anomaly-detection alarms need CloudWatch's model trained on the metric's history, so they
 * evaluate to INSUFFICIENT_DATA here with a reason that says so.
 */
public final class AlarmEvaluator {
  private AlarmEvaluator() {}

  public static AlarmEvaluation evaluate(
      AlarmDefinition def, List<Datum> datapoints, AlarmState current, Instant now) {
    if (def.anomalyDetection()) {
      return new AlarmEvaluation(
          AlarmState.INSUFFICIENT_DATA,
          "Anomaly-detection alarm: its band is a model CloudWatch trains on the metric's history;"
              + " it is not evaluated locally");
    }
    double threshold = def.threshold().orElseThrow();
    List<Double> values;
    try {
      values = periodValues(def, datapoints, now);
    } catch (IllegalArgumentException e) {
      return new AlarmEvaluation(AlarmState.INSUFFICIENT_DATA, e.getMessage());
    }
    long present = values.stream().filter(v -> v != null).count();
    String condition =
        def.statistic()
            + " "
            + symbol(def)
            + " "
            + threshold
            + " over "
            + def.periodSeconds()
            + " s";
    if (present == 0) {
      return allMissing(def, condition, current);
    }
    long breaches =
        values.stream().filter(v -> v != null && def.comparison().breaches(v, threshold)).count();
    return counted(def, values, present, breaches, condition);
  }

  /**
   * The statistic of each of the {@code EvaluationPeriods} most recent periods, the latest first;
   * null for a period without datapoints.
   *
   * @throws IllegalArgumentException for a statistic that is not evaluated locally
   */
  private static List<Double> periodValues(
      AlarmDefinition def, List<Datum> datapoints, Instant now) {
    long periodMillis = def.periodSeconds() * 1000L;
    List<Double> values = new ArrayList<>();
    for (int i = 0; i < def.evaluationPeriods(); i++) {
      Instant end = now.minusMillis(i * periodMillis);
      Instant start = end.minusMillis(periodMillis);
      List<Double> in =
          datapoints.stream()
              .filter(d -> d.timestamp().isAfter(start) && !d.timestamp().isAfter(end))
              .map(Datum::value)
              .toList();
      OptionalDouble stat = statistic(def.statistic(), in);
      values.add(stat.isPresent() ? stat.getAsDouble() : null);
    }
    return values;
  }

  /** Every period is missing: the state {@code TreatMissingData} gives. */
  private static AlarmEvaluation allMissing(
      AlarmDefinition def, String condition, AlarmState current) {
    int n = def.evaluationPeriods();
    return switch (def.treatMissingData()) {
      case BREACHING ->
          new AlarmEvaluation(
              AlarmState.ALARM,
              "no datapoints in the last "
                  + n
                  + " periods; missing data is breaching ("
                  + condition
                  + ")");
      case NOT_BREACHING ->
          new AlarmEvaluation(
              AlarmState.OK,
              "no datapoints in the last " + n + " periods; missing data is not breaching");
      case IGNORE ->
          new AlarmEvaluation(
              current,
              "no datapoints in the last "
                  + n
                  + " periods; missing data is ignored, the state"
                  + " stays "
                  + current);
      case MISSING ->
          new AlarmEvaluation(
              AlarmState.INSUFFICIENT_DATA, "no datapoints in the last " + n + " periods");
    };
  }

  /** Some periods hold datapoints: ALARM when enough of them (and of the missing ones) breach. */
  private static AlarmEvaluation counted(
      AlarmDefinition def, List<Double> values, long present, long breaches, String condition) {
    int n = def.evaluationPeriods();
    int m = def.datapointsToAlarm();
    long needed;
    long counted;
    String how;
    switch (def.treatMissingData()) {
      case BREACHING -> {
        counted = breaches + (n - present);
        needed = m;
        how = present < n ? " (" + (n - present) + " missing counted as breaching)" : "";
      }
      case NOT_BREACHING -> {
        counted = breaches;
        needed = m;
        how = present < n ? " (" + (n - present) + " missing counted as not breaching)" : "";
      }
      default -> {
        counted = breaches;
        needed = Math.min(m, present);
        how = present < n ? " (" + (n - present) + " missing periods left out)" : "";
      }
    }
    Double latest = values.stream().filter(v -> v != null).findFirst().orElse(null);
    String reason =
        counted
            + " of "
            + n
            + " periods breached "
            + condition
            + how
            + "; "
            + needed
            + " needed to alarm; latest "
            + def.statistic()
            + " "
            + latest;
    return new AlarmEvaluation(counted >= needed ? AlarmState.ALARM : AlarmState.OK, reason);
  }

  /**
   * What breaches the alarm, in words: {@code Maximum >= 1.0 over 86400 s, 1 of 1 periods}; null
   * for an anomaly-detection alarm.
   */
  public static String condition(AlarmDefinition def) {
    if (def.anomalyDetection() || def.threshold().isEmpty()) {
      return null;
    }
    return def.statistic()
        + " "
        + symbol(def)
        + " "
        + def.threshold().get()
        + " over "
        + def.periodSeconds()
        + " s, "
        + def.datapointsToAlarm()
        + " of "
        + def.evaluationPeriods()
        + " periods";
  }

  static OptionalDouble statistic(String statistic, List<Double> values) {
    if (values.isEmpty()) {
      return OptionalDouble.empty();
    }
    return switch (statistic.toLowerCase(Locale.ROOT)) {
      case "maximum" -> values.stream().mapToDouble(Double::doubleValue).max();
      case "minimum" -> values.stream().mapToDouble(Double::doubleValue).min();
      case "sum" -> OptionalDouble.of(values.stream().mapToDouble(Double::doubleValue).sum());
      case "average" -> values.stream().mapToDouble(Double::doubleValue).average();
      case "samplecount" -> OptionalDouble.of(values.size());
      default ->
          throw new IllegalArgumentException(
              "Cannot evaluate statistic "
                  + statistic
                  + " locally (supported: Maximum, Minimum,"
                  + " Sum, Average, SampleCount)");
    };
  }

  private static String symbol(AlarmDefinition def) {
    return switch (def.comparison()) {
      case GreaterThanOrEqualToThreshold -> ">=";
      case GreaterThanThreshold -> ">";
      case LessThanThreshold -> "<";
      case LessThanOrEqualToThreshold -> "<=";
      default -> def.comparison().name();
    };
  }
}
