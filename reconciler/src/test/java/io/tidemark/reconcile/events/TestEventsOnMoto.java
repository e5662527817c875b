package io.tidemark.reconcile.events;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.restassured.http.ContentType;
import io.restassured.path.json.JsonPath;
import io.tidemark.model.events.ReconciliationFinished;
import io.tidemark.reconcile.config.TidemarkConfig;
import io.tidemark.reconcile.fixtures.MotoServer;
import io.tidemark.reconcile.fixtures.QuarkusFixtures;
import io.tidemark.reconcile.rest.ApiKeyFilter;
import jakarta.inject.Inject;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.eventbridge.EventBridgeClient;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.QueueAttributeName;

/**
 * A finished reconciliation puts its event on EventBridge (moto_server's), where a rule of the kind
 * the stack generates, failed or broken verdicts only, delivers it to an SQS queue the test reads:
 * the event names the dataset, the verdict, the failing rules and the report.
 */
@QuarkusTest
@TestProfile(TestEventsOnMoto.OnMoto.class)
@Tag("aws")
class TestEventsOnMoto {
  /** Events on, to moto. */
  public static class OnMoto implements QuarkusTestProfile {
    @Override
    public Map<String, String> getConfigOverrides() {
      return Map.of(
          "tidemark.events.enabled", "true",
          "tidemark.events.deployment", "crm",
          "tidemark.events.region", "us-east-1",
          "tidemark.events.access-key-id", "test",
          "tidemark.events.secret-access-key", "test");
    }

    @Override
    public List<TestResourceEntry> testResources() {
      return List.of(new TestResourceEntry(MotoServer.class));
    }
  }

  private static final ObjectMapper JSON = new ObjectMapper();

  @Inject TidemarkConfig config;

  private JsonPath reconcile(String dataset) {
    return given()
        .header(ApiKeyFilter.HEADER, QuarkusFixtures.API_KEY)
        .contentType(ContentType.JSON)
        .body("{\"dataset\":\"" + dataset + "\",\"mode\":\"full\",\"wait\":\"PT2M\"}")
        .post("/api/reconciliations")
        .then()
        .statusCode(200)
        .extract()
        .jsonPath();
  }

  /**
   * The queue's messages: waits (up to ten seconds) until it has given {@code atLeast}, then takes
   * whatever else is there without waiting.
   */
  private static List<JsonNode> receive(SqsClient sqs, String queue, int atLeast) throws Exception {
    List<JsonNode> out = new ArrayList<>();
    for (int i = 0; i < 10 && out.size() < atLeast; i++) {
      for (Message m :
          sqs.receiveMessage(r -> r.queueUrl(queue).maxNumberOfMessages(10).waitTimeSeconds(1))
              .messages()) {
        out.add(JSON.readTree(m.body()));
      }
    }
    List<Message> more;
    do {
      more =
          sqs.receiveMessage(r -> r.queueUrl(queue).maxNumberOfMessages(10).waitTimeSeconds(0))
              .messages();
      for (Message m : more) {
        out.add(JSON.readTree(m.body()));
      }
    } while (!more.isEmpty());
    return out;
  }

  @Test
  void aFailedVerdictReachesTheQueueARuleRoutesItToAndAPassedOneDoesNot() throws Exception {
    URI endpoint = config.events().endpoint().orElseThrow();
    var credentials = StaticCredentialsProvider.create(AwsBasicCredentials.create("test", "test"));
    try (EventBridgeClient events =
            EventBridgeClient.builder()
                .endpointOverride(endpoint)
                .region(Region.US_EAST_1)
                .credentialsProvider(credentials)
                .httpClient(UrlConnectionHttpClient.create())
                .build();
        SqsClient sqs =
            SqsClient.builder()
                .endpointOverride(endpoint)
                .region(Region.US_EAST_1)
                .credentialsProvider(credentials)
                .httpClient(UrlConnectionHttpClient.create())
                .build()) {
      String queue = sqs.createQueue(q -> q.queueName("tidemark-verdicts")).queueUrl();
      String queueArn =
          sqs.getQueueAttributes(
                  a -> a.queueUrl(queue).attributeNames(QueueAttributeName.QUEUE_ARN))
              .attributes()
              .get(QueueAttributeName.QUEUE_ARN);
      events.putRule(
          r ->
              r.name("tidemark-failed-reconciliations")
                  .eventPattern(
                      "{\"source\":[\""
                          + ReconciliationFinished.SOURCE
                          + "\"],\"detail-type\":[\""
                          + ReconciliationFinished.DETAIL_TYPE
                          + "\"],\"detail\":{\"status\":[\"FAILED\",\"ERROR\"]}}"));
      events.putTargets(
          t ->
              t.rule("tidemark-failed-reconciliations")
                  .targets(x -> x.id("verdicts").arn(queueArn)));
      // Every event of the reconciler, to a second queue: both verdicts were put.
      String all = sqs.createQueue(q -> q.queueName("tidemark-all")).queueUrl();
      String allArn =
          sqs.getQueueAttributes(a -> a.queueUrl(all).attributeNames(QueueAttributeName.QUEUE_ARN))
              .attributes()
              .get(QueueAttributeName.QUEUE_ARN);
      events.putRule(
          r ->
              r.name("tidemark-all")
                  .eventPattern("{\"source\":[\"" + ReconciliationFinished.SOURCE + "\"]}"));
      events.putTargets(t -> t.rule("tidemark-all").targets(x -> x.id("all").arn(allArn)));

      JsonPath passed = reconcile("customers");
      JsonPath failed = reconcile("damaged");
      assertThat(passed.getString("status")).isEqualTo("PASSED");
      assertThat(failed.getString("status")).isEqualTo("FAILED");

      // Both verdicts in the queue of every event means both were put; EventBridge (moto) routes
      // an event to its rules' targets as it is put, so the rule's queue is then complete.
      List<JsonNode> everyEvent = receive(sqs, all, 2);
      assertThat(everyEvent.stream().map(e -> e.path("detail").path("status").asText()))
          .as("every verdict was put, once")
          .containsExactlyInAnyOrder("PASSED", "FAILED");
      List<JsonNode> received = receive(sqs, queue, 0);
      assertThat(received).as("only the failed verdict matches the rule").hasSize(1);
      JsonNode event = received.get(0);
      assertThat(event.path("source").asText()).isEqualTo("tidemark");
      assertThat(event.path("detail-type").asText()).isEqualTo("Tidemark Reconciliation Finished");
      JsonNode detail = event.path("detail");
      assertThat(detail.path("deployment").asText()).isEqualTo("crm");
      assertThat(detail.path("dataset").asText()).isEqualTo("damaged");
      assertThat(detail.path("pipeline").asText()).isEqualTo("default");
      assertThat(detail.path("reconciliationId").asText()).isEqualTo(failed.getString("id"));
      assertThat(detail.path("mode").asText()).isEqualTo("FULL");
      assertThat(detail.path("status").asText()).isEqualTo("FAILED");
      assertThat(detail.path("failingRules").toString())
          .isEqualTo("[\"missing_keys\",\"foreign_commits\"]");
      assertThat(detail.path("curatedSnapshot").asLong())
          .isEqualTo(failed.getLong("curatedSnapshot.id"));
      assertThat(detail.path("report").asText())
          .isEqualTo("/api/reconciliations/" + failed.getString("id"));
    }
  }
}
