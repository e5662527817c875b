package io.tidemark.reconcile.alarms;

import java.time.Instant;

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
    Instant evaluatedAt) {}
