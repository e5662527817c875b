/**
 * The run's metrics to CloudWatch: a PutMetricData client for callers without Micrometer, and the
 * one call that publishes a run report's datapoints and never fails the run. It knows the
 * contract's metric catalogue and the AWS SDK, nothing of the job, so that the settings can name
 * its configuration.
 */
package io.tidemark.ingest.metrics;
