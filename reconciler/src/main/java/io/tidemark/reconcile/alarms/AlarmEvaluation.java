package io.tidemark.reconcile.alarms;

import java.util.Objects;

/**
 * The state an alarm evaluates to, and why in words.
 *
 * @param state OK, ALARM or INSUFFICIENT_DATA
 * @param reason e.g. {@code 1 of 1 datapoints breached (Maximum 1.0 >= 1.0)}
 */
public record AlarmEvaluation(AlarmState state, String reason) {
  public AlarmEvaluation {
    Objects.requireNonNull(state, "state is null");
    Objects.requireNonNull(reason, "reason is null");
  }
}
