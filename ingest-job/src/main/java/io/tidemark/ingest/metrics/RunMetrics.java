package io.tidemark.ingest.metrics;

import io.tidemark.model.metrics.IngestRunMetrics;
import io.tidemark.model.report.IngestRunReport;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Publishes a run's metrics to CloudWatch when configured. Never fails the run. */
public final class RunMetrics {
  private static final Logger LOG = LoggerFactory.getLogger(RunMetrics.class);

  private RunMetrics() {}

  /** What was delivered; empty when metrics are off. */
  public static Optional<PublishResult> publish(
      Optional<CloudWatchPublisher.Settings> settings, IngestRunReport report) {
    if (settings.isEmpty()) {
      LOG.debug("CloudWatch metrics are off");
      return Optional.empty();
    }
    try (CloudWatchPublisher publisher = CloudWatchPublisher.create(settings.get())) {
      PublishResult r = publisher.publish(IngestRunMetrics.datums(report));
      if (!r.complete()) {
        LOG.warn(
            "CloudWatch: {} metric datum(s) of run {} not delivered: {}",
            r.undelivered().size(),
            report.runId(),
            r.undelivered().get(0).reason());
      }
      return Optional.of(r);
    } catch (RuntimeException e) {
      LOG.warn("CloudWatch: cannot publish metrics of run {}: {}", report.runId(), e.toString());
      return Optional.empty();
    }
  }
}
