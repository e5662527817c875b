package io.tidemark.reconcile.alarms;

/** CloudWatch's alarm states. */
public enum AlarmState {
  OK,
  ALARM,
  INSUFFICIENT_DATA
}
