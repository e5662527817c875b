package io.tidemark.reconcile.lineage;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.restassured.http.ContentType;
import io.restassured.path.json.JsonPath;
import io.tidemark.reconcile.fixtures.LineageReceiver;
import io.tidemark.reconcile.fixtures.QuarkusFixtures;
import io.tidemark.reconcile.rest.ApiKeyFilter;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Each finished reconciliation reaches an OpenLineage receiver (a local HTTP server) as a run
 * event: the reconciliation job of its dataset reads raw and the curated table, whose input carries
 * one data quality assertion per rule, and the run id leads back to the report.
 */
@QuarkusTest
@TestProfile(TestLineage.WithReceiver.class)
class TestLineage {
  /** Lineage on, to the local receiver. */
  public static class WithReceiver implements QuarkusTestProfile {
    @Override
    public List<TestResourceEntry> testResources() {
      return List.of(new TestResourceEntry(LineageReceiver.class));
    }
  }

  private static final ObjectMapper JSON = new ObjectMapper();

  private static JsonPath reconcile(String dataset) {
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

  /** The event of a reconciliation, once received. */
  private static JsonNode eventOf(String reconciliationId) throws Exception {
    String runId = ReconciliationLineage.runId(reconciliationId).toString();
    Instant deadline = Instant.now().plus(Duration.ofSeconds(30));
    while (Instant.now().isBefore(deadline)) {
      for (LineageReceiver.Received r : LineageReceiver.RECEIVED) {
        JsonNode e = JSON.readTree(r.body());
        if (e.path("run").path("runId").asText().equals(runId)) {
          assertThat(r.path()).isEqualTo("/api/v1/lineage");
          assertThat(r.authorization()).isEqualTo("Bearer " + LineageReceiver.API_KEY);
          return e;
        }
      }
      Thread.sleep(100);
    }
    throw new AssertionError("no lineage event of " + reconciliationId + " received");
  }

  @Test
  void aReconciliationIsARunWhoseCuratedInputCarriesOneAssertionPerRule() throws Exception {
    JsonPath failed = reconcile("damaged");
    assertThat(failed.getString("status")).isEqualTo("FAILED");

    JsonNode e = eventOf(failed.getString("id"));
    assertThat(e.path("eventType").asText()).isEqualTo("COMPLETE");
    assertThat(e.path("producer").asText()).isEqualTo(ReconciliationLineage.PRODUCER.toString());
    assertThat(e.path("schemaURL").asText()).startsWith("https://openlineage.io/spec/");
    assertThat(e.path("eventTime").asText()).isNotEmpty();
    assertThat(e.path("job").path("namespace").asText()).isEqualTo("crm");
    assertThat(e.path("job").path("name").asText()).isEqualTo("reconcile.default.damaged");
    assertThat(e.path("job").path("facets").path("jobType").path("jobType").asText())
        .isEqualTo("RECONCILIATION");
    JsonNode tidemark = e.path("run").path("facets").path("tidemark");
    assertThat(tidemark.path("reconciliationId").asText()).isEqualTo(failed.getString("id"));
    assertThat(tidemark.path("status").asText()).isEqualTo("FAILED");
    assertThat(tidemark.path("curatedSnapshot").asLong())
        .isEqualTo(failed.getLong("curatedSnapshot.id"));

    JsonNode inputs = e.path("inputs");
    assertThat(inputs).hasSize(2);
    assertThat(inputs.get(0).path("namespace").asText()).isEqualTo("file");
    assertThat(inputs.get(0).path("name").asText()).endsWith("/raw/customers");
    JsonNode curated = inputs.get(1);
    assertThat(curated.path("name").asText()).isEqualTo("curated.customers");
    Map<String, Boolean> assertions = new LinkedHashMap<>();
    curated
        .path("inputFacets")
        .path("dataQualityAssertions")
        .path("assertions")
        .forEach(a -> assertions.put(a.path("assertion").asText(), a.path("success").asBoolean()));
    List<String> rules = new ArrayList<>();
    failed.getList("results.ruleId", String.class).forEach(rules::add);
    assertThat(assertions.keySet()).containsExactlyElementsOf(rules);
    assertThat(assertions)
        .containsEntry("missing_keys", false)
        .containsEntry("foreign_commits", false)
        .containsEntry("count_match", true)
        .containsEntry("duplicate_keys", true);

    JsonPath passed = reconcile("customers");
    JsonNode ok = eventOf(passed.getString("id"));
    ok.path("inputs")
        .get(1)
        .path("inputFacets")
        .path("dataQualityAssertions")
        .path("assertions")
        .forEach(a -> assertThat(a.path("success").asBoolean()).as(a.toString()).isTrue());
  }
}
