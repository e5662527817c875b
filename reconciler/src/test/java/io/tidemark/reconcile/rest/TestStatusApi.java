package io.tidemark.reconcile.rest;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.not;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import io.tidemark.reconcile.fixtures.CustomersScenario;
import io.tidemark.reconcile.fixtures.QuarkusFixtures;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The GET endpoints the status page reads beyond the reconciliation API: ingest run history,
 * quarantine counts by reason, the datapoints behind each alarm, and the page itself.
 */
@QuarkusTest
@QuarkusTestResource(QuarkusFixtures.class)
class TestStatusApi {
  @Test
  void ingestRunsShowStatusWatermarkLagCountsAndDurationButNoFilePaths() {
    String body =
        given()
            .get("/api/datasets/customers/runs")
            .then()
            .statusCode(200)
            .body("size()", equalTo(1))
            .body("[0].runId", equalTo(CustomersScenario.RUN_ID))
            .body("[0].status", equalTo("SUCCEEDED"))
            .body("[0].mode", equalTo("INCREMENTAL"))
            .body("[0].filesMissedByLookback", equalTo(null))
            .body("[0].successful", equalTo(true))
            .body("[0].durationMillis", equalTo(60_000))
            // The fixture's run ended 2 h before now with the watermark at 3 h before now.
            .body("[0].watermarkLagSeconds", equalTo(3600))
            .body("[0].inputFiles", equalTo(4))
            .body("[0].counts.recordsChanged", equalTo(27))
            .body("[0].counts.recordsInvalid", equalTo(3))
            .body("[0].counts.recordsWritten", equalTo(22))
            .extract()
            .asString();
    assertThat(body).as("the run's raw file paths stay in its report").doesNotContain("file:");
  }

  /**
   * Before this change the fixture's truncated run report made this answer a 500 "Internal error":
   * the whole run history was off the API and the page.
   */
  @Test
  void aTruncatedRunReportIsSkippedAndNamedInTheAnswerAndAMetric() {
    String warning =
        given()
            .get("/api/datasets/customers/runs")
            .then()
            .statusCode(200)
            .body("size()", equalTo(1))
            .body("[0].runId", equalTo(CustomersScenario.RUN_ID))
            .extract()
            .header("Warning");
    String file =
        QuarkusFixtures.stateRoot.resolve(QuarkusFixtures.TRUNCATED_RUN_REPORT).toString();
    assertThat(warning)
        .startsWith("199 tidemark \"Cannot read run report " + file + ": ")
        .endsWith("; skipped\"");
    given()
        .get("/api/unreadable-reports")
        .then()
        .statusCode(200)
        .body("find { it.kind == 'run' }.location", equalTo(file))
        .body("find { it.kind == 'run' }.reason", containsString("end-of-input"));
    given()
        .get("/q/metrics")
        .then()
        .statusCode(200)
        .body(containsString("tidemark_unreadable_reports{kind=\"run\"} 1.0"));
  }

  /** Before this change the broken report was only logged: no answer said one was left out. */
  @Test
  void anUnreadableReconciliationReportIsSkippedAndNamedInTheAnswerAndAMetric() {
    String file =
        QuarkusFixtures.stateRoot.resolve(QuarkusFixtures.BROKEN_RECONCILIATION_REPORT).toString();
    String warning =
        given()
            .get("/api/reconciliations?limit=1000")
            .then()
            .statusCode(200)
            .body("id", org.hamcrest.Matchers.hasItem(QuarkusFixtures.ABANDONED_ID))
            .extract()
            .header("Warning");
    assertThat(warning)
        .startsWith("199 tidemark \"Cannot read reconciliation report " + file + ": ");
    given()
        .get("/api/unreadable-reports")
        .then()
        .statusCode(200)
        .body("find { it.kind == 'reconciliation' }.location", equalTo(file));
    given()
        .get("/q/metrics")
        .then()
        .statusCode(200)
        .body(containsString("tidemark_unreadable_reports{kind=\"reconciliation\"} 1.0"));
  }

  @Test
  void ingestRunsAreNewestFirstAndLimited() {
    given()
        .get("/api/datasets/damaged/runs?limit=1")
        .then()
        .statusCode(200)
        .body("size()", equalTo(1))
        .body("[0].runId", equalTo(CustomersScenario.RUN_ID + "-damaged"));
  }

  @Test
  void ingestRunsRefuseABadLimitAnUnknownDatasetAndAnUnknownParameter() {
    given()
        .get("/api/datasets/customers/runs?limit=0")
        .then()
        .statusCode(400)
        .body("code", equalTo("INVALID_FIELD"))
        .body("field", equalTo("limit"))
        .body("message", containsString("Cannot list ingest runs"));
    given()
        .get("/api/datasets/nosuch/runs")
        .then()
        .statusCode(404)
        .body("code", equalTo("DATASET_NOT_FOUND"));
    given()
        .get("/api/datasets/customers/runs?limt=3")
        .then()
        .statusCode(400)
        .body("field", equalTo("limt"));
  }

  @Test
  void quarantineCountsRowsByReasonCode() {
    given()
        .get("/api/datasets/damaged/quarantine")
        .then()
        .statusCode(200)
        .body("table", equalTo("curated.customers_quarantine"))
        .body("exists", equalTo(true))
        .body("total", equalTo(5))
        .body(
            "byReason",
            equalTo(Map.of("NULL_KEY", 3, "MISSING_CHANGE_MARKER", 1, "UNKNOWN_OPERATION", 1)));
  }

  @Test
  void aDatasetWithoutAQuarantineTableHasNothingQuarantined() {
    given()
        .get("/api/datasets/customers/quarantine")
        .then()
        .statusCode(200)
        .body("exists", equalTo(false))
        .body("total", equalTo(0))
        .body("byReason", equalTo(Map.of()));
    given().get("/api/datasets/nosuch/quarantine").then().statusCode(404);
  }

  @Test
  void anAlarmShowsTheDatapointsThatDecidedIt() {
    String id = TestReconciliationApi.start("{\"dataset\":\"damaged\",\"mode\":\"full\"}");
    TestReconciliationApi.awaitFinished(id);
    JsonPath alarms = given().get("/api/alarms?dataset=damaged").then().extract().jsonPath();
    Map<String, Object> missing = alarms.getMap("find { it.rule == 'missing_keys' }");
    assertThat(missing.get("state")).isEqualTo("ALARM");
    assertThat(missing.get("condition")).isEqualTo("Maximum >= 1.0 over 300 s, 1 of 1 periods");
    List<Map<String, Object>> points =
        alarms.getList("find { it.rule == 'missing_keys' }.datapoints");
    assertThat(points).isNotEmpty();
    assertThat(((Number) points.get(points.size() - 1).get("value")).doubleValue())
        .as("the failing run's RuleStatus")
        .isEqualTo(1.0);
    Map<String, Object> unique = alarms.getMap("find { it.rule == 'duplicate_keys' }");
    assertThat(unique.get("state")).isEqualTo("OK");
    assertThat(alarms.getList("find { it.rule == 'duplicate_keys' }.datapoints.value"))
        .isNotEmpty()
        .allMatch(v -> ((Number) v).doubleValue() == 0.0);
  }

  @Test
  void theStatusPageIsServedWithItsScriptAndStylesFromTheService() {
    given()
        .get("/")
        .then()
        .statusCode(200)
        .contentType(containsString("text/html"))
        .header("Content-Security-Policy", containsString("script-src 'self'"))
        .header("Content-Security-Policy", containsString("connect-src 'self'"))
        .header("X-Content-Type-Options", equalTo("nosniff"))
        .body(containsString("<script src=\"status.js\""))
        .body(not(containsString("http://")))
        .body(not(containsString("https://")));
    given()
        .get("/status.js")
        .then()
        .statusCode(200)
        .body(containsString("textContent"))
        .body(not(containsString("innerHTML")));
    given().get("/status.css").then().statusCode(200);
  }
}
