package io.tidemark.ingest.metrics;

import io.tidemark.model.events.IngestRunFinished;
import io.tidemark.model.json.Checks;
import io.tidemark.model.json.Json;
import io.tidemark.model.report.IngestRunReport;
import java.net.URI;
import java.time.Duration;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.eventbridge.EventBridgeClient;
import software.amazon.awssdk.services.eventbridge.EventBridgeClientBuilder;
import software.amazon.awssdk.services.eventbridge.model.PutEventsRequestEntry;
import software.amazon.awssdk.services.eventbridge.model.PutEventsResponse;

/**
 * Puts an {@link IngestRunFinished} event on an EventBridge bus when a run ends, so that a rule can
 * start the reconciliation, page on a failure or route the run to a workflow. Like the metrics, a
 * put that fails is logged and dropped: the run's outcome and report stand without it.
 */
public final class RunEvents {
  private static final Logger LOG = LoggerFactory.getLogger(RunEvents.class);

  /**
   * Where events go.
   *
   * @param bus the event bus's name or ARN, default {@value #BUS_DEFAULT}
   * @param endpoint an endpoint override (e.g. a local emulator), empty for AWS
   * @param region the AWS region, empty for the SDK's default (e.g. {@code AWS_REGION})
   * @param deployment the deployment named in every event, empty for none
   * @param staticCredentials an access key id and secret, empty for the SDK's default chain
   */
  public record Settings(
      String bus,
      Optional<URI> endpoint,
      Optional<String> region,
      Optional<String> deployment,
      Optional<AwsBasicCredentials> staticCredentials) {
    public static final String BUS_DEFAULT = "default";

    public Settings {
      bus = bus == null || bus.isBlank() ? BUS_DEFAULT : bus;
      endpoint = endpoint == null ? Optional.empty() : endpoint;
      region = region == null ? Optional.empty() : region;
      deployment = deployment == null ? Optional.empty() : deployment;
      deployment.ifPresent(d -> Checks.name("deployment", d));
      staticCredentials = staticCredentials == null ? Optional.empty() : staticCredentials;
    }

    /** The default bus on AWS, no deployment named. */
    public static Settings defaults() {
      return new Settings(null, null, null, null, null);
    }

    public Settings withEndpoint(URI uri) {
      return new Settings(bus, Optional.of(uri), region, deployment, staticCredentials);
    }

    public Settings withRegion(String r) {
      return new Settings(bus, endpoint, Optional.ofNullable(r), deployment, staticCredentials);
    }

    public Settings withBus(String b) {
      return new Settings(b, endpoint, region, deployment, staticCredentials);
    }

    public Settings withDeployment(String d) {
      return new Settings(bus, endpoint, region, Optional.ofNullable(d), staticCredentials);
    }

    public Settings withStaticCredentials(String accessKeyId, String secretAccessKey) {
      return new Settings(
          bus,
          endpoint,
          region,
          deployment,
          Optional.of(AwsBasicCredentials.create(accessKeyId, secretAccessKey)));
    }
  }

  private RunEvents() {}

  /**
   * Puts the event of a run whose report is at {@code reportLocation} (null: not written). Returns
   * whether EventBridge took it; false when events are off. Never throws.
   */
  public static boolean put(
      Optional<Settings> settings, IngestRunReport report, String reportLocation) {
    if (settings.isEmpty()) {
      return false;
    }
    Settings s = settings.get();
    try (EventBridgeClient client = client(s)) {
      PutEventsResponse answer =
          client.putEvents(
              r ->
                  r.entries(
                      PutEventsRequestEntry.builder()
                          .eventBusName(s.bus())
                          .source(IngestRunFinished.SOURCE)
                          .detailType(IngestRunFinished.DETAIL_TYPE)
                          .time(report.finishedAt())
                          .detail(
                              Json.write(
                                  IngestRunFinished.of(
                                      report, s.deployment().orElse(null), reportLocation)))
                          .build()));
      if (answer.failedEntryCount() != null && answer.failedEntryCount() > 0) {
        var e = answer.entries().get(0);
        LOG.warn(
            "EventBridge refused the event of run {}: {} {}",
            report.runId(),
            e.errorCode(),
            e.errorMessage());
        return false;
      }
      LOG.info("Run {}: event put on EventBridge bus {}", report.runId(), s.bus());
      return true;
    } catch (RuntimeException e) {
      LOG.warn(
          "Cannot put the event of run {} on EventBridge bus {}: {}",
          report.runId(),
          s.bus(),
          e.toString());
      return false;
    }
  }

  private static EventBridgeClient client(Settings s) {
    Duration timeout = Duration.ofSeconds(10);
    EventBridgeClientBuilder b =
        EventBridgeClient.builder()
            .httpClientBuilder(
                UrlConnectionHttpClient.builder().connectionTimeout(timeout).socketTimeout(timeout))
            .overrideConfiguration(c -> c.apiCallTimeout(timeout));
    s.endpoint().ifPresent(b::endpointOverride);
    s.region().map(Region::of).ifPresent(b::region);
    s.staticCredentials().map(StaticCredentialsProvider::create).ifPresent(b::credentialsProvider);
    return b.build();
  }
}
