package io.tidemark.reconcile.events;

import io.tidemark.model.events.ReconciliationFinished;
import io.tidemark.model.json.Json;
import io.tidemark.model.report.ReconciliationReport;
import io.tidemark.reconcile.config.TidemarkConfig;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import org.jboss.logging.Logger;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.eventbridge.EventBridgeClient;
import software.amazon.awssdk.services.eventbridge.EventBridgeClientBuilder;
import software.amazon.awssdk.services.eventbridge.model.PutEventsRequestEntry;
import software.amazon.awssdk.services.eventbridge.model.PutEventsResponse;
import software.amazon.awssdk.services.eventbridge.model.PutEventsResultEntry;

/**
 * Puts a {@link ReconciliationFinished} event on an EventBridge bus when a reconciliation finishes,
 * so that rules can route a failed verdict to a topic, a queue or a workflow. A put that fails is
 * logged and dropped: the report, the metrics and the alarms stand without it.
 */
@ApplicationScoped
public class EventPublisher {
  private static final Logger LOG = Logger.getLogger(EventPublisher.class);

  private final EventBridgeClient client;
  private final String bus;
  private final String deployment;

  public EventPublisher(TidemarkConfig config) {
    TidemarkConfig.Events events = config.events();
    this.bus = events.bus();
    this.deployment = events.deployment().orElse(null);
    this.client = events.enabled() ? client(events) : null;
    if (client != null) {
      LOG.infof(
          "Putting an event on EventBridge bus %s for every finished reconciliation%s",
          bus, events.endpoint().map(e -> " at " + e).orElse(""));
    }
  }

  /** Whether events are put at all. */
  public boolean enabled() {
    return client != null;
  }

  /** Puts the event of a finished reconciliation; never throws. */
  public void finished(ReconciliationReport report) {
    if (client == null || !report.status().finished()) {
      return;
    }
    try {
      PutEventsResponse answer =
          client.putEvents(
              r ->
                  r.entries(
                      PutEventsRequestEntry.builder()
                          .eventBusName(bus)
                          .source(ReconciliationFinished.SOURCE)
                          .detailType(ReconciliationFinished.DETAIL_TYPE)
                          .time(report.finishedAt())
                          .detail(Json.write(ReconciliationFinished.of(report, deployment)))
                          .build()));
      if (answer.failedEntryCount() != null && answer.failedEntryCount() > 0) {
        PutEventsResultEntry e = answer.entries().get(0);
        LOG.warnf(
            "EventBridge refused the event of reconciliation %s of %s: %s %s",
            report.id(), report.dataset(), e.errorCode(), e.errorMessage());
      }
    } catch (RuntimeException e) {
      LOG.warnf(
          "Cannot put the event of reconciliation %s of %s on EventBridge bus %s: %s",
          report.id(), report.dataset(), bus, e.getMessage());
    }
  }

  private static EventBridgeClient client(TidemarkConfig.Events events) {
    EventBridgeClientBuilder b =
        EventBridgeClient.builder()
            .httpClientBuilder(UrlConnectionHttpClient.builder())
            // The put runs on the reconciliation's thread, after its report is stored.
            .overrideConfiguration(c -> c.apiCallTimeout(java.time.Duration.ofSeconds(10)));
    events.endpoint().ifPresent(b::endpointOverride);
    events.region().map(Region::of).ifPresent(b::region);
    if (events.accessKeyId().isPresent() && events.secretAccessKey().isPresent()) {
      b.credentialsProvider(
          StaticCredentialsProvider.create(
              AwsBasicCredentials.create(
                  events.accessKeyId().get(), events.secretAccessKey().get())));
    }
    return b.build();
  }

  @PreDestroy
  void close() {
    if (client != null) {
      client.close();
    }
  }
}
