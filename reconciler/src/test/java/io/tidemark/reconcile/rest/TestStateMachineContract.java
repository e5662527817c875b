package io.tidemark.reconcile.rest;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.restassured.response.Response;
import io.tidemark.reconcile.fixtures.QuarkusFixtures;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Iterator;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The Step Functions example ({@code deploy/step-functions/ingest-then-reconcile.asl.json}) speaks
 * to this service as the service answers: its two HTTP tasks' requests, made here as the state
 * machine states them (method, path, body, the API key its connection adds), get answers whose
 * fields its result selectors read, and its verdict branches on them as a user would want. (Nothing
 * here runs HTTP tasks: moto's state-language interpreter does not know them. The stack module's
 * TestOrchestrationExamples checks the definition against cfn-lint's schema.)
 */
@QuarkusTest
@QuarkusTestResource(QuarkusFixtures.class)
class TestStateMachineContract {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Pattern FORMAT = Pattern.compile("States\\.Format\\('([^']*)'");

  /** The longest an HTTP task waits for an answer. */
  private static final Duration HTTP_TASK_LIMIT = Duration.ofSeconds(60);

  private static JsonNode states() throws Exception {
    return JSON.readTree(
            Path.of("../deploy/step-functions/ingest-then-reconcile.asl.json").toFile())
        .path("States");
  }

  /** The path of an HTTP task's ApiEndpoint: its format after the base URL, {} filled in. */
  private static String path(JsonNode task, String id) {
    Matcher m = FORMAT.matcher(task.path("Parameters").path("ApiEndpoint.$").asText());
    assertThat(m.find()).as("ApiEndpoint.$ is States.Format('{}/…', $.reconcilerUrl, …)").isTrue();
    String format = m.group(1);
    assertThat(format).startsWith("{}/");
    return format.substring(2).replace("{}", id == null ? "" : id);
  }

  /** The body as the state machine sends it for {@code dataset}. */
  private static ObjectNode body(JsonNode task, String dataset) {
    ObjectNode body = JSON.createObjectNode();
    Iterator<Map.Entry<String, JsonNode>> fields =
        task.path("Parameters").path("RequestBody").fields();
    while (fields.hasNext()) {
      Map.Entry<String, JsonNode> f = fields.next();
      if (f.getKey().equals("dataset.$")) {
        assertThat(f.getValue().asText()).isEqualTo("$.dataset");
        body.put("dataset", dataset);
      } else {
        assertThat(f.getKey()).as("a literal field").doesNotEndWith(".$");
        body.set(f.getKey(), f.getValue());
      }
    }
    return body;
  }

  /** What the task's ResultSelector keeps of an answer: {@code $.ResponseBody.x} for each key. */
  private static Map<String, String> selected(JsonNode task, Response answer) {
    Map<String, String> out = new java.util.LinkedHashMap<>();
    task.path("ResultSelector")
        .fields()
        .forEachRemaining(
            f -> {
              String path = f.getValue().asText();
              assertThat(path).startsWith("$.ResponseBody.");
              String value =
                  answer.jsonPath().getString(path.substring("$.ResponseBody.".length()));
              assertThat(value).as("%s in %s", path, answer.asString()).isNotNull();
              out.put(f.getKey().replace(".$", ""), value);
            });
    return out;
  }

  /** The state the Verdict choice goes to for a status. */
  private static String verdict(JsonNode states, String status) {
    JsonNode choice = states.path("Verdict");
    for (JsonNode c : choice.path("Choices")) {
      if (c.path("StringEquals").asText().equals(status)) {
        return c.path("Next").asText();
      }
    }
    return choice.path("Default").asText();
  }

  private static Response send(JsonNode task, String path, ObjectNode body) {
    var request = given().header(ApiKeyFilter.HEADER, QuarkusFixtures.API_KEY);
    if (body != null) {
      request = request.contentType(ContentType.JSON).body(body.toString());
    }
    return request.request(task.path("Parameters").path("Method").asText(), path);
  }

  @Test
  void aPassingDatasetReachesVerifiedAndADamagedOneFailsNamingWhy() throws Exception {
    JsonNode states = states();
    JsonNode start = states.path("StartReconciliation");
    JsonNode poll = states.path("PollReconciliation");
    assertThat(Duration.parse(body(start, "customers").path("wait").asText()))
        .as("the start's wait stays under the HTTP task's limit")
        .isLessThan(HTTP_TASK_LIMIT);

    for (Map.Entry<String, String> d :
        Map.of("customers", "Verified", "damaged", "ReconciliationFailed").entrySet()) {
      Response started = send(start, path(start, null), body(start, d.getKey()));
      assertThat(started.statusCode()).as(started.asString()).isIn(200, 202);
      Map<String, String> result = selected(start, started);
      String id = result.get("id");

      // Polled as the loop polls it, until the verdict is in.
      for (int i = 0;
          i < 120 && verdict(states, result.get("status")).equals("WaitForVerdict");
          i++) {
        Thread.sleep(500);
        Response polled = send(poll, path(poll, id), null);
        assertThat(polled.statusCode()).as(polled.asString()).isEqualTo(200);
        result = selected(poll, polled);
      }
      assertThat(result.get("id")).isEqualTo(id);
      assertThat(verdict(states, result.get("status")))
          .as("%s ended %s", d.getKey(), result.get("status"))
          .isEqualTo(d.getValue());

      // The poll gives the same answer once the verdict is in.
      Response again = send(poll, path(poll, id), null);
      assertThat(selected(poll, again)).isEqualTo(result);
    }
  }

  @Test
  void aRunStillGoingIsPolledAndARefusalIsCaught() throws Exception {
    JsonNode states = states();
    assertThat(verdict(states, "RUNNING")).isEqualTo("WaitForVerdict");
    assertThat(states.path("WaitForVerdict").path("Next").asText()).isEqualTo("PollReconciliation");
    // An unknown dataset is a 404: an HTTP task fails on it, and the catch names the refusal.
    JsonNode start = states.path("StartReconciliation");
    Response refused = send(start, path(start, null), body(start, "no_such_dataset"));
    assertThat(refused.statusCode()).isEqualTo(404);
    assertThat(start.path("Catch").get(0).path("ErrorEquals").toString())
        .isEqualTo("[\"States.ALL\"]");
    assertThat(start.path("Catch").get(0).path("Next").asText()).isEqualTo("ReconcilerRefused");
  }
}
