package io.tidemark.model.alarms;

import io.tidemark.model.metrics.Dimension;
import io.tidemark.model.metrics.Metric;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * One CloudWatch alarm as {@code alerts/} defines it, with template parameters resolved. CloudWatch
 * evaluates these definitions in AWS; the reconciler evaluates the same ones locally.
 *
 * @param logicalId the template's resource id, e.g. {@code RuleMissingKeysFailing}
 * @param alarmName the alarm's name
 * @param description what the alarm means for a person
 * @param metric the catalogue metric the alarm watches
 * @param dimensions the dimension values it watches
 * @param statistic {@code Maximum}, {@code Sum}, {@code Average}, ...
 * @param periodSeconds the period of one datapoint
 * @param evaluationPeriods how many recent periods are evaluated
 * @param datapointsToAlarm how many of them must breach ("M out of N")
 * @param threshold the static threshold; empty for an anomaly-detection alarm
 * @param comparison the comparison operator
 * @param treatMissingData what a missing datapoint counts as
 * @param anomalyBandWidth for an anomaly-detection alarm, the band's width in standard deviations
 */
public record AlarmDefinition(
    String logicalId,
    String alarmName,
    String description,
    Metric metric,
    Map<Dimension, String> dimensions,
    String statistic,
    int periodSeconds,
    int evaluationPeriods,
    int datapointsToAlarm,
    Optional<Double> threshold,
    ComparisonOperator comparison,
    TreatMissingData treatMissingData,
    Optional<Double> anomalyBandWidth) {

  public AlarmDefinition {
    Objects.requireNonNull(logicalId, "logicalId is null");
    Objects.requireNonNull(alarmName, "alarmName is null");
    Objects.requireNonNull(metric, "metric is null");
    dimensions = Map.copyOf(dimensions);
    Objects.requireNonNull(statistic, "statistic is null");
    Objects.requireNonNull(comparison, "comparison is null");
    treatMissingData = treatMissingData == null ? TreatMissingData.MISSING : treatMissingData;
    threshold = threshold == null ? Optional.empty() : threshold;
    anomalyBandWidth = anomalyBandWidth == null ? Optional.empty() : anomalyBandWidth;
    if (periodSeconds <= 0 || evaluationPeriods <= 0) {
      throw new IllegalArgumentException(
          "Cannot define alarm " + alarmName + ": period and evaluation periods must be positive");
    }
    if (datapointsToAlarm <= 0 || datapointsToAlarm > evaluationPeriods) {
      throw new IllegalArgumentException(
          "Cannot define alarm "
              + alarmName
              + ": datapointsToAlarm "
              + datapointsToAlarm
              + " must be 1.."
              + evaluationPeriods);
    }
    if (comparison.isBand() != anomalyBandWidth.isPresent()
        || comparison.isBand() == threshold.isPresent()) {
      throw new IllegalArgumentException(
          "Cannot define alarm "
              + alarmName
              + ": a static alarm needs a threshold, an anomaly alarm a band and a band operator");
    }
  }

  /** Whether this is an anomaly-detection alarm (a band, not a static threshold). */
  public boolean anomalyDetection() {
    return anomalyBandWidth.isPresent();
  }

  /** The rule a per-rule alarm watches, if it is one. */
  public Optional<String> rule() {
    return Optional.ofNullable(dimensions.get(Dimension.RULE));
  }
}
