/**
 * The alarms of {@code alerts/}, evaluated in the service as CloudWatch would evaluate them, so a
 * local run shows the same ALARM and OK states.
 */
package io.tidemark.reconcile.alarms;
