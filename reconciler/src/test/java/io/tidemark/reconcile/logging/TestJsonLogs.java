package io.tidemark.reconcile.logging;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.restassured.http.ContentType;
import io.tidemark.reconcile.fixtures.QuarkusFixtures;
import io.tidemark.reconcile.rest.ApiKeyFilter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Asked for JSON logs, the service writes one JSON object per line, and every line a reconciliation
 * logs names it, its dataset and its mode, so a log search finds a run's lines whatever thread
 * wrote them. The JSON formatter is the console's and the file's alike; the test reads the file.
 */
@QuarkusTest
@TestProfile(TestJsonLogs.Json.class)
class TestJsonLogs {
  static final Path LOG = Path.of("target", "json-logs", "reconciler.log");

  /** JSON lines, to a file the test reads. */
  public static class Json implements QuarkusTestProfile {
    @Override
    public Map<String, String> getConfigOverrides() {
      try {
        Files.deleteIfExists(LOG);
      } catch (java.io.IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
      return Map.of(
          "quarkus.log.file.enabled", "true",
          "quarkus.log.file.path", LOG.toString(),
          "quarkus.log.file.json.enabled", "true");
    }
  }

  @Test
  void everyLineIsJsonAndARunsLinesNameItsReconciliationDatasetAndMode() throws Exception {
    String id =
        given()
            .header(ApiKeyFilter.HEADER, QuarkusFixtures.API_KEY)
            .contentType(ContentType.JSON)
            .body("{\"dataset\":\"damaged\",\"mode\":\"full\",\"wait\":\"PT2M\"}")
            .post("/api/reconciliations")
            .then()
            .statusCode(200)
            .extract()
            .path("id");

    ObjectMapper json = new ObjectMapper();
    List<JsonNode> lines = new ArrayList<>();
    for (String line : Files.readAllLines(LOG)) {
      lines.add(json.readTree(line));
    }
    List<JsonNode> run =
        lines.stream().filter(l -> l.path("message").asText().contains(id)).toList();
    assertThat(run)
        .extracting(l -> l.path("message").asText())
        .anyMatch(m -> m.startsWith("Reconciliation " + id + " of damaged started (FULL mode"))
        .anyMatch(m -> m.startsWith("Reconciliation " + id + " of damaged FAILED: "));
    for (JsonNode l : run) {
      assertThat(l.path("mdc").path("reconciliationId").asText()).as(l.toString()).isEqualTo(id);
      assertThat(l.path("mdc").path("dataset").asText()).isEqualTo("damaged");
      assertThat(l.path("mdc").path("mode").asText()).isEqualTo("FULL");
    }
    // The alarm evaluation after the run logs on its thread without naming the run: still its.
    assertThat(lines)
        .filteredOn(l -> l.path("loggerName").asText().endsWith("AlarmBoard"))
        .filteredOn(l -> l.path("message").asText().contains("damaged"))
        .isNotEmpty()
        .allMatch(l -> l.path("mdc").path("reconciliationId").asText().equals(id));

    // An audit (verified publish) runs on an HTTP worker's thread: its lines name the dataset, the
    // mode and the ingest run that asked.
    long snapshot =
        given()
            .header(ApiKeyFilter.HEADER, QuarkusFixtures.API_KEY)
            .get("/api/reconciliations/" + id)
            .then()
            .extract()
            .jsonPath()
            .getLong("curatedSnapshot.id");
    String now = java.time.Instant.now().toString();
    String audit =
        given()
            .header(ApiKeyFilter.HEADER, QuarkusFixtures.API_KEY)
            .contentType(ContentType.JSON)
            .body(
                "{\"runId\":\"run-7\",\"batchId\":\"b7\",\"branch\":\"tidemark_run_7\","
                    + "\"snapshotId\":"
                    + snapshot
                    + ",\"rawArrivedBy\":\""
                    + now
                    + "\",\"now\":\""
                    + now
                    + "\"}")
            .post("/api/datasets/damaged/audits")
            .then()
            .statusCode(200)
            .extract()
            .path("id");
    List<JsonNode> audited = new ArrayList<>();
    for (String line : Files.readAllLines(LOG)) {
      JsonNode l = json.readTree(line);
      if (l.path("message").asText().contains(audit)) {
        audited.add(l);
      }
    }
    assertThat(audited).isNotEmpty();
    for (JsonNode l : audited) {
      assertThat(l.path("mdc").path("runId").asText()).as(l.toString()).isEqualTo("run-7");
      assertThat(l.path("mdc").path("dataset").asText()).isEqualTo("damaged");
      assertThat(l.path("mdc").path("mode").asText()).isEqualTo("FULL");
    }
  }
}
