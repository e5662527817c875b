package io.tidemark.ingest.metrics;

import io.tidemark.model.metrics.Datum;
import java.util.List;

/**
 * What a publish delivered. The publisher never throws for metrics it could not send: it says so
 * here.
 *
 * @param sent datums CloudWatch accepted
 * @param undelivered datums not delivered, each with the reason
 * @param requests PutMetricData calls made, retries included
 */
public record PublishResult(int sent, List<Undelivered> undelivered, int requests) {
  public PublishResult {
    undelivered = List.copyOf(undelivered);
  }

  /** A datum that did not reach CloudWatch, and why. */
  public record Undelivered(Datum datum, String reason) {}

  public boolean complete() {
    return undelivered.isEmpty();
  }
}
