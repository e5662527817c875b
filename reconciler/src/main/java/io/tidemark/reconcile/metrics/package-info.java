/**
 * The reconciliation's metrics: datapoints from reports and observations, their recent history, and
 * the Micrometer/CloudWatch publisher.
 */
package io.tidemark.reconcile.metrics;
