package io.tidemark.reconcile.alarms;

import java.time.Instant;
import java.util.List;

/**
 * An alarm's current state as the service evaluated it.
 *
 * @param alarmName the alarm's name, as CloudWatch knows it
 * @param logicalId the template's resource id
 * @param dataset the dataset it watches
 * @param metric the catalogue metric it watches
 * @param rule the rule it watches, or null
 * @param state OK, ALARM or INSUFFICIENT_DATA
 * @param reason why, in words
 * @param since when it entered this state
 * @param evaluatedAt when it was last evaluated
 * @param condition what breaches, e.g. {@code Maximum >= 1.0 over 86400 s, 1 of 1 periods}; null
 *     for an anomaly-detection alarm
 * @param datapoints the datapoints the evaluation read (its evaluation range), oldest first
 */
public record AlarmStatus(
    String alarmName,
    String logicalId,
    String dataset,
    String metric,
    String rule,
    AlarmState state,
    String reason,
    Instant since,
    Instant evaluatedAt,
    String condition,
    List<Point> datapoints) {

  public AlarmStatus {
    datapoints = datapoints == null ? List.of() : List.copyOf(datapoints);
  }

  /**
   * One datapoint an evaluation read.
   *
   * @param timestamp when it was measured
   * @param value its value
   */
  public record Point(Instant timestamp, double value) {}
}
