package io.tidemark.ingest;

import static io.tidemark.ingest.RawFixtures.u;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.tidemark.ingest.config.IngestSettings;
import io.tidemark.ingest.metrics.RunEvents;
import io.tidemark.ingest.run.IngestJob;
import io.tidemark.ingest.run.IngestOutcome;
import io.tidemark.model.events.IngestRunFinished;
import io.tidemark.model.report.IngestStatus;
import io.tidemark.model.testing.AwsEmulator;
import io.tidemark.model.testing.AwsService;
import io.tidemark.model.testing.AwsSuite;
import io.tidemark.model.testing.AwsTest;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Tags;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.services.eventbridge.EventBridgeClient;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.QueueAttributeName;

/**
 * Every ingest run puts its event on EventBridge (an emulator's, on loopback), where a rule
 * delivers it to an SQS queue the test reads: the status, counts and report location of a run that
 * succeeded, and the error code of one that was rejected.
 */
@AwsSuite(services = AwsService.EVENTBRIDGE)
@Tags({@Tag("aws"), @Tag("spark")})
class TestRunEvents extends SparkTestSupport {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dir;

  @AwsTest
  void eachRunPutsItsEventWithItsStatusCountsAndReport(AwsEmulator aws) throws Exception {
    try (EventBridgeClient events =
            aws.configure(EventBridgeClient.builder())
                .httpClient(UrlConnectionHttpClient.create())
                .build();
        SqsClient sqs =
            aws.configure(SqsClient.builder())
                .httpClient(UrlConnectionHttpClient.create())
                .build()) {
      String queue = sqs.createQueue(q -> q.queueName("tidemark-ingest-runs")).queueUrl();
      String queueArn =
          sqs.getQueueAttributes(
                  a -> a.queueUrl(queue).attributeNames(QueueAttributeName.QUEUE_ARN))
              .attributes()
              .get(QueueAttributeName.QUEUE_ARN);
      events.putRule(
          r ->
              r.name("tidemark-ingest-runs")
                  .eventPattern(
                      "{\"source\":[\""
                          + IngestRunFinished.SOURCE
                          + "\"],\"detail-type\":[\""
                          + IngestRunFinished.DETAIL_TYPE
                          + "\"],\"detail\":{\"deployment\":[\"crm\"]}}"));
      events.putTargets(
          t -> t.rule("tidemark-ingest-runs").targets(x -> x.id("runs").arn(queueArn)));

      IngestSettings s =
          settings(dir)
              .withEvents(
                  RunEvents.Settings.defaults()
                      .withEndpoint(aws.endpoint())
                      .withRegion(aws.region())
                      .withDeployment("crm")
                      .withStaticCredentials(aws.accessKey(), aws.secretKey()));
      Path raw = Path.of(s.dataset().raw().location());
      RawFixtures.write(
          raw,
          "2024-03-01",
          "a.parquet",
          List.of(u("A", "Ada", "2024-03-01T10:00:00Z"), u("B", "Bo", "2024-03-01T10:00:00Z")));
      IngestOutcome succeeded = new IngestJob(spark, s).run();
      assertThat(succeeded.report().status()).isEqualTo(IngestStatus.SUCCEEDED);

      // Two of three records invalid: the batch is rejected, and that is an event too.
      RawFixtures.write(
          raw,
          "2024-03-02",
          "a.parquet",
          List.of(
              u("C", "Cy", "2024-03-02T10:00:00Z"),
              new RawFixtures.Rec(null, "x", null, Instant.parse("2024-03-02T10:00:00Z"), "U"),
              new RawFixtures.Rec("D", "y", null, Instant.parse("2024-03-02T10:00:00Z"), "?")));
      IngestOutcome rejected = new IngestJob(spark, s).run();
      assertThat(rejected.report().status()).isEqualTo(IngestStatus.REJECTED);

      List<JsonNode> received = new ArrayList<>();
      for (int i = 0; i < 5 && received.size() < 2; i++) {
        for (Message m :
            sqs.receiveMessage(r -> r.queueUrl(queue).maxNumberOfMessages(10).waitTimeSeconds(1))
                .messages()) {
          received.add(JSON.readTree(m.body()));
        }
      }
      assertThat(received).as("one event per run").hasSize(2);
      // Both runs end at the test clock's instant: tell the events apart by run id.
      JsonNode first = byRun(received, succeeded.report().runId());
      assertThat(first.path("source").asText()).isEqualTo("tidemark");
      assertThat(first.path("detail-type").asText()).isEqualTo("Tidemark Ingest Run Finished");
      JsonNode ok = first.path("detail");
      assertThat(ok.path("deployment").asText()).isEqualTo("crm");
      assertThat(ok.path("dataset").asText()).isEqualTo("customers");
      assertThat(ok.path("runId").asText()).isEqualTo(succeeded.report().runId());
      assertThat(ok.path("mode").asText()).isEqualTo("INCREMENTAL");
      assertThat(ok.path("status").asText()).isEqualTo("SUCCEEDED");
      assertThat(ok.path("counts").path("recordsInserted").asLong()).isEqualTo(2);
      assertThat(ok.path("inputFiles").asInt()).isEqualTo(1);
      assertThat(ok.path("snapshotId").asLong()).isEqualTo(succeeded.report().snapshotId());
      assertThat(ok.path("report").asText()).isEqualTo(succeeded.reportLocation());
      assertThat(ok.hasNonNull("errorCode")).isFalse();

      JsonNode no = byRun(received, rejected.report().runId()).path("detail");
      assertThat(no.path("runId").asText()).isEqualTo(rejected.report().runId());
      assertThat(no.path("status").asText()).isEqualTo("REJECTED");
      assertThat(no.path("errorCode").asText()).isEqualTo("BATCH_REJECTED");
      assertThat(no.path("error").asText()).contains("invalid ratio");
      assertThat(no.hasNonNull("snapshotId")).isFalse();
      assertThat(no.path("report").asText()).isEqualTo(rejected.reportLocation());
    }
  }

  private static JsonNode byRun(List<JsonNode> events, String runId) {
    return events.stream()
        .filter(e -> e.path("detail").path("runId").asText().equals(runId))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no event of run " + runId + " in " + events));
  }

  @AwsTest
  void aBusThatDoesNotExistLeavesTheRunsOutcomeAsItIs(AwsEmulator aws) {
    IngestSettings s =
        settings(dir)
            .withEvents(
                RunEvents.Settings.defaults()
                    .withEndpoint(aws.endpoint())
                    .withRegion(aws.region())
                    .withBus("no-such-bus")
                    .withStaticCredentials(aws.accessKey(), aws.secretKey()));
    RawFixtures.write(
        Path.of(s.dataset().raw().location()),
        "2024-03-01",
        "a.parquet",
        List.of(u("A", "Ada", "2024-03-01T10:00:00Z")));
    IngestOutcome outcome = new IngestJob(spark, s).run();
    assertThat(outcome.report().status()).isEqualTo(IngestStatus.SUCCEEDED);
    assertThat(outcome.exitCode()).isZero();
    assertThat(RunEvents.put(s.events(), outcome.report(), outcome.reportLocation()))
        .as("the bus refuses the event, and says so")
        .isFalse();
  }
}
