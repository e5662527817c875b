package io.tidemark.reconcile.rest;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.anEmptyMap;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.endsWith;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItems;
import static org.hamcrest.Matchers.not;
import static org.hamcrest.Matchers.nullValue;

import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.scheduler.Scheduler;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.restassured.path.json.JsonPath;
import io.restassured.response.Response;
import io.tidemark.model.config.RuleKind;
import io.tidemark.model.config.RuleSpec;
import io.tidemark.reconcile.fixtures.GatedEngine;
import io.tidemark.reconcile.fixtures.QuarkusFixtures;
import io.tidemark.reconcile.service.ScheduledReconciliations;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/** The service over HTTP: happy paths, every error status, overlaps, restart recovery. */
@QuarkusTest
@QuarkusTestResource(QuarkusFixtures.class)
public class TestReconciliationApi {
  private static final String KEY = QuarkusFixtures.API_KEY;

  @Inject GatedEngine gate;
  @Inject ScheduledReconciliations schedule;
  @Inject Scheduler scheduler;
  @Inject MeterRegistry registry;

  public static String start(String body) {
    return given()
        .header(ApiKeyFilter.HEADER, KEY)
        .contentType(ContentType.JSON)
        .body(body)
        .when()
        .post("/api/reconciliations")
        .then()
        .statusCode(202)
        .extract()
        .path("id");
  }

  public static JsonPath awaitFinished(String id) {
    Awaitility.await()
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(200))
        .until(
            () ->
                !"RUNNING"
                    .equals(
                        given().get("/api/reconciliations/" + id).then().extract().path("status")));
    return given().get("/api/reconciliations/" + id).then().statusCode(200).extract().jsonPath();
  }

  @Test
  void fullReconciliationOfTheCleanDatasetPassesAndItsAlarmsAreOk() {
    Response accepted =
        given()
            .header(ApiKeyFilter.HEADER, KEY)
            .contentType(ContentType.JSON)
            .body("{\"dataset\":\"customers\",\"mode\":\"full\"}")
            .when()
            .post("/api/reconciliations");
    accepted
        .then()
        .statusCode(202)
        .body("status", equalTo("RUNNING"))
        .body("mode", equalTo("FULL"));
    String id = accepted.path("id");
    assertThat(accepted.header("Location")).endsWith("/api/reconciliations/" + id);

    JsonPath report = awaitFinished(id);
    assertThat(report.getString("status")).isEqualTo("PASSED");
    assertThat(report.getList("results.status"))
        .hasSize(RuleSpec.defaults().size())
        .containsOnly("PASS");
    assertThat(report.getString("results.find { it.ruleId == 'missing_keys' }.kind"))
        .isEqualTo("missing_keys");

    given()
        .get("/api/reconciliations?dataset=customers&limit=1")
        .then()
        .statusCode(200)
        .body("size()", equalTo(1))
        .body("[0].id", equalTo(id));

    List<Map<String, Object>> alarms =
        given().get("/api/alarms?dataset=customers").then().statusCode(200).extract().path("$");
    assertThat(alarms).hasSize(RuleKind.values().length + 15);
    assertThat(alarms)
        .filteredOn(
            a -> a.get("rule") != null && RuleKind.fromId((String) a.get("rule")).byDefault())
        .extracting(a -> a.get("state"))
        .hasSize(RuleSpec.defaults().size())
        .containsOnly("OK");
    assertThat(alarms).extracting(a -> a.get("state")).doesNotContain("ALARM");

    // The run proved the snapshot it read: the dataset's verdict says so, and the tag is on it.
    long checked = report.getLong("curatedSnapshot.id");
    JsonPath verdict =
        given().get("/api/datasets/customers/verdict").then().statusCode(200).extract().jsonPath();
    assertThat(verdict.getBoolean("verified")).as(verdict.getString("reason")).isTrue();
    assertThat(verdict.getLong("currentSnapshot.id")).isEqualTo(checked);
    assertThat(verdict.getLong("verifiedSnapshot.id")).isEqualTo(checked);
    assertThat(verdict.getString("verifiedBy")).isEqualTo(id);
    assertThat(verdict.getString("tag")).isEqualTo("tidemark_verified");
    assertThat(verdict.getLong("taggedSnapshot")).isEqualTo(checked);

    // The next window starts where this passed run's window ended.
    String next = start("{\"dataset\":\"customers\"}");
    JsonPath windowed = awaitFinished(next);
    assertThat(windowed.getString("mode")).isEqualTo("WINDOW");
    assertThat(windowed.getString("windowFrom")).isEqualTo(report.getString("windowTo"));
    assertThat(windowed.getString("status")).isEqualTo("PASSED");

    String metrics = given().get("/q/metrics").then().statusCode(200).extract().asString();
    assertThat(metrics)
        .containsPattern(
            "RuleStatus\\{Dataset=\"customers\",Pipeline=\"default\",Rule=\"missing_keys\"[^}]*\\} 0\\.0")
        .containsPattern("MissingKeys\\{Dataset=\"customers\",Pipeline=\"default\"[^}]*\\} 0\\.0")
        .containsPattern("SchemaDrift\\{Dataset=\"customers\",Pipeline=\"default\"[^}]*\\} 0\\.0")
        .containsPattern(
            "ForeignCommits\\{Dataset=\"customers\",Pipeline=\"default\"[^}]*\\} 0\\.0")
        .contains("ReconciliationDuration{");
  }

  /** The earliest window start the API takes is one the engine can run: every rule passes. */
  @Test
  void aWindowFromTheEpochIsReconciled() {
    String id = start("{\"dataset\":\"customers\",\"from\":\"1970-01-01T00:00:00Z\"}");
    JsonPath report = awaitFinished(id);
    assertThat(report.getString("windowFrom")).isEqualTo("1970-01-01T00:00:00Z");
    assertThat(report.getString("error")).isNull();
    assertThat(report.getString("status")).isEqualTo("PASSED");
    assertThat(report.getList("results.status"))
        .hasSize(RuleSpec.defaults().size())
        .containsOnly("PASS");
  }

  @Test
  void aMissingKeyFailsItsRuleAndRaisesItsAlarm() {
    String id = start("{\"dataset\":\"damaged\",\"mode\":\"full\"}");
    JsonPath report = awaitFinished(id);

    assertThat(report.getString("status")).isEqualTo("FAILED");
    // The row was deleted by a commit no Tidemark run made: foreign_commits names it too.
    assertThat(report.getList("results.findAll { it.status == 'FAIL' }.ruleId"))
        .containsExactly("missing_keys", "foreign_commits");
    assertThat(report.getList("results.find { it.ruleId == 'missing_keys' }.sampleKeys"))
        .containsExactly("k10");

    given()
        .get("/api/alarms?dataset=damaged")
        .then()
        .statusCode(200)
        .body(
            "find { it.rule == 'missing_keys' }.alarmName",
            equalTo("tidemark-default-damaged-rule-missing-keys-failing"))
        .body("find { it.rule == 'missing_keys' }.state", equalTo("ALARM"))
        .body(
            "find { it.rule == 'missing_keys' }.reason", containsString("1 of 1 periods breached"))
        .body("find { it.rule == 'foreign_commits' }.state", equalTo("ALARM"))
        .body(
            "findAll { it.rule != null && it.rule != 'missing_keys'"
                + " && it.rule != 'foreign_commits' }.state",
            not(hasItems("ALARM")));
  }

  /** The failing rule's difference is served on its own; a rule without one says why not. */
  @Test
  void aFailingKeyRuleServesItsDifferenceAndOtherRulesSayWhyTheyHaveNone() {
    String id = start("{\"dataset\":\"damaged\",\"mode\":\"full\"}");
    awaitFinished(id);

    given()
        .get("/api/reconciliations/" + id + "/rules/missing_keys/diff")
        .then()
        .statusCode(200)
        .body("differingKeys", anEmptyMap())
        .body("samples.key", contains("k10"))
        .body("samples[0].raw.file", endsWith(".parquet"))
        .body("samples[0].raw.values.keySet()", hasItems("customer_name", "email"))
        .body("samples[0].curated", nullValue());
    given()
        .get("/api/reconciliations/" + id + "/rules/value_mismatches/diff")
        .then()
        .statusCode(404)
        .body("code", equalTo("NOT_FOUND"))
        .body("message", containsString("shows no difference: it is PASS"));
    given()
        .get("/api/reconciliations/" + id + "/rules/no_such_rule/diff")
        .then()
        .statusCode(404)
        .body("message", containsString("has no rule 'no_such_rule'"));
  }

  @Test
  void aSecondRunWhileOneRunsIsRefusedAndAScheduledOneSkipped() {
    gate.close();
    try {
      String first = start("{\"dataset\":\"gated\"}");

      given()
          .header(ApiKeyFilter.HEADER, KEY)
          .contentType(ContentType.JSON)
          .body("{\"dataset\":\"gated\",\"mode\":\"full\"}")
          .when()
          .post("/api/reconciliations")
          .then()
          .statusCode(409)
          .body("code", equalTo("ALREADY_RUNNING"))
          .body("runningId", equalTo(first));
      given()
          .get("/api/datasets")
          .then()
          .body("find { it.name == 'gated' }.runningId", equalTo(first));

      double before = skipped();
      assertThat(schedule.trigger("gated")).isEqualTo(ScheduledReconciliations.Outcome.SKIPPED);
      assertThat(skipped()).isEqualTo(before + 1);
      assertThat(
              given()
                  .get("/api/reconciliations?dataset=gated")
                  .then()
                  .extract()
                  .jsonPath()
                  .getList("id"))
          .as("a skipped run leaves no report: it is not queued")
          .containsOnlyOnce(first);
    } finally {
      gate.open();
    }
    String id =
        given().get("/api/reconciliations?dataset=gated&limit=1").then().extract().path("[0].id");
    JsonPath requested = awaitFinished(id);
    assertThat(requested.getString("status")).isEqualTo("PASSED");
    assertThat(requested.getString("mode")).as("a request's default mode").isEqualTo("WINDOW");
    assertThat(schedule.trigger("gated")).isEqualTo(ScheduledReconciliations.Outcome.STARTED);
    String scheduled =
        given().get("/api/reconciliations?dataset=gated&limit=1").then().extract().path("[0].id");
    JsonPath nightly = awaitFinished(scheduled);
    assertThat(nightly.getString("trigger")).isEqualTo("schedule");
    assertThat(nightly.getString("mode")).as("the default schedule-mode").isEqualTo("FULL");
  }

  @Test
  void aStartThatWaitsAnswersWithTheVerdict() {
    io.restassured.response.Response answer =
        given()
            .header(ApiKeyFilter.HEADER, KEY)
            .contentType(ContentType.JSON)
            .body("{\"dataset\":\"damaged\",\"mode\":\"full\",\"wait\":\"PT2M\"}")
            .when()
            .post("/api/reconciliations");

    assertThat(answer.statusCode()).as("finished within the wait").isEqualTo(200);
    JsonPath report = answer.jsonPath();
    assertThat(report.getString("status")).isEqualTo("FAILED");
    assertThat(report.getList("results.findAll { it.status == 'FAIL' }.ruleId"))
        .containsExactly("missing_keys", "foreign_commits");
    assertThat(answer.header("Location"))
        .endsWith("/api/reconciliations/" + report.getString("id"));
    assertThat(answer.header(ReconciliationResource.WAIT_HEADER)).isNull();

    JsonPath verdict =
        given().get("/api/datasets/damaged/verdict").then().statusCode(200).extract().jsonPath();
    assertThat(verdict.getBoolean("verified")).isFalse();
    assertThat(verdict.getString("latestFull")).isEqualTo(report.getString("id"));
    assertThat(verdict.getString("reason"))
        .startsWith(
            "The latest FULL reconciliation, "
                + report.getString("id")
                + ", FAILED rule(s) missing_keys, foreign_commits");
  }

  @Test
  void aWaitThatRunsOutIsAnsweredAsSuchAndTheRunGoesOn() {
    gate.close();
    String id;
    try {
      io.restassured.response.Response answer =
          given()
              .header(ApiKeyFilter.HEADER, KEY)
              .contentType(ContentType.JSON)
              .body("{\"dataset\":\"gated\",\"mode\":\"full\",\"wait\":\"PT1S\"}")
              .when()
              .post("/api/reconciliations");

      assertThat(answer.statusCode()).isEqualTo(202);
      assertThat(answer.header(ReconciliationResource.WAIT_HEADER))
          .isEqualTo("timed out after PT1S");
      assertThat(answer.jsonPath().getString("status")).isEqualTo("RUNNING");
      id = answer.jsonPath().getString("id");
    } finally {
      gate.open();
    }
    assertThat(awaitFinished(id).getString("status")).isEqualTo("PASSED");
  }

  @Test
  void aWaitThatIsNotADurationUpToFifteenMinutesIsRefusedBeforeAnythingStarts() {
    for (String wait : List.of("soon", "PT0S", "-PT1M", "PT16M")) {
      given()
          .header(ApiKeyFilter.HEADER, KEY)
          .contentType(ContentType.JSON)
          .body("{\"dataset\":\"customers\",\"wait\":\"" + wait + "\"}")
          .when()
          .post("/api/reconciliations")
          .then()
          .statusCode(400)
          .body("field", equalTo("wait"))
          .body("message", containsString(wait));
    }
    assertThat(
            given()
                    .get("/api/datasets")
                    .then()
                    .extract()
                    .path("find { it.name == 'customers' }.runningId")
                == null)
        .as("nothing started")
        .isTrue();
  }

  @Test
  void aScheduledRunUsesItsDatasetsScheduleMode() {
    assertThat(schedule.trigger("windowed")).isEqualTo(ScheduledReconciliations.Outcome.STARTED);
    String id =
        given()
            .get("/api/reconciliations?dataset=windowed&limit=1")
            .then()
            .extract()
            .path("[0].id");
    JsonPath report = awaitFinished(id);
    assertThat(report.getString("trigger")).isEqualTo("schedule");
    assertThat(report.getString("mode")).isEqualTo("WINDOW");
  }

  private double skipped() {
    return registry
        .get(ScheduledReconciliations.SKIPPED_METER)
        .tag("dataset", "gated")
        .counter()
        .count();
  }

  @Test
  void eachDatasetHasItsCronJobAndAnOffScheduleHasNone() {
    assertThat(scheduler.getScheduledJob(ScheduledReconciliations.jobId("customers"))).isNotNull();
    assertThat(scheduler.getScheduledJob(ScheduledReconciliations.jobId("damaged"))).isNotNull();
    assertThat(scheduler.getScheduledJob(ScheduledReconciliations.jobId("gated"))).isNull();
  }

  @Test
  void aRunCutOffByTheLastShutdownIsShownAbandoned() {
    given()
        .get("/api/reconciliations/" + QuarkusFixtures.ABANDONED_ID)
        .then()
        .statusCode(200)
        .body("status", equalTo("ABANDONED"))
        .body("error", containsString("stopped while this run was RUNNING"));
  }

  @Test
  void datasetsAreListedWithTheirRulesAndSchedule() {
    given()
        .get("/api/datasets")
        .then()
        .statusCode(200)
        .body(
            "name",
            equalTo(List.of("customers", "damaged", "gated", "hostile", "orders", "windowed")))
        .body("find { it.name == 'customers' }.cron", equalTo("0 0 2 * * ?"))
        .body("find { it.name == 'customers' }.engine", equalTo("duckdb"))
        .body("find { it.name == 'customers' }.rules.size()", equalTo(RuleSpec.defaults().size()))
        .body("find { it.name == 'customers' }.keyColumns", equalTo(List.of("customer_id")))
        .body(
            "find { it.name == 'damaged' }.rules.find { it.id == 'count_match' }.tolerance",
            equalTo("RATIO"));
  }

  @Test
  void theApiIsDocumentedInOpenApi() {
    given()
        .accept("application/json")
        .get("/q/openapi")
        .then()
        .statusCode(200)
        .body(
            "paths.keySet()",
            hasItems(
                "/api/reconciliations",
                "/api/reconciliations/{id}",
                "/api/reconciliations/{id}/rules/{rule}/diff",
                "/api/datasets",
                "/api/alarms"))
        .body(
            "paths.'/api/reconciliations'.post.responses.keySet()",
            hasItems("202", "400", "401", "404", "409"))
        .body("components.securitySchemes.apiKey.name", equalTo("X-API-Key"));
  }

  @Test
  void healthIsUp() {
    given().get("/q/health/ready").then().statusCode(200).body("status", equalTo("UP"));
  }

  @Test
  void theRawTableDdlDeclaresTheRawFilesForAthenaWithPartitionProjection() {
    String ddl =
        given()
            .get("/api/datasets/customers/raw-table-ddl")
            .then()
            .statusCode(200)
            .contentType(ContentType.TEXT)
            .extract()
            .asString();
    assertThat(ddl)
        .startsWith("CREATE EXTERNAL TABLE IF NOT EXISTS `customers_raw` (\n")
        // Every column of the contract at its declared type, in the contract's order: the table
        // the stack creates in Glue (AthenaRawTables).
        .contains(
            "  `customer_id` string,\n  `customer_name` string,\n  `email` string,\n"
                + "  `updated_at` timestamp,\n  `op` string\n")
        .contains(")\nPARTITIONED BY (`ingest_date` string)\nSTORED AS PARQUET\nLOCATION 'file:/")
        .contains("'projection.enabled' = 'true'")
        .contains("'projection.ingest_date.type' = 'date'")
        .contains("'projection.ingest_date.format' = 'yyyy-MM-dd'")
        .contains("'projection.ingest_date.range' = '2020-01-01,NOW+1DAYS'")
        .contains("'storage.location.template' = 'file:/")
        .contains("/ingest_date=${ingest_date}/'")
        .endsWith(");\n");
    given().get("/api/datasets/nosuch/raw-table-ddl").then().statusCode(404);
    given().get("/api/datasets/customers/raw-table-ddl?table=x").then().statusCode(400);
    assertThat(
            given()
                .get("/api/datasets/customers/raw-table-ddl?projection-start=2025-06-01")
                .then()
                .statusCode(200)
                .extract()
                .asString())
        .contains("'projection.ingest_date.range' = '2025-06-01,NOW+1DAYS'");
    given()
        .get("/api/datasets/customers/raw-table-ddl?projection-start=June")
        .then()
        .statusCode(400)
        .body("field", equalTo("projection-start"));
  }
}
