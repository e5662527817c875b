package io.tidemark.reconcile.rest;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.restassured.path.json.JsonPath;
import io.tidemark.reconcile.fixtures.QuarkusFixtures;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

/**
 * The acknowledgement endpoints: only with the API key; a failing rule acknowledged answers 201 and
 * is in the report, the list and the RuleAlerting gauge; a rule that does not fail, an unknown rule
 * and an anonymous acknowledgement are refused, naming why.
 */
@QuarkusTest
@QuarkusTestResource(QuarkusFixtures.class)
class TestAcknowledgementApi {
  private static final String ACKS = "/api/datasets/damaged/acknowledgements";

  @Inject MeterRegistry registry;

  private static JsonPath fullReconciliation(String dataset) {
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

  private double alerting(String dataset, String rule) {
    return registry.get("RuleAlerting").tag("Dataset", dataset).tag("Rule", rule).gauge().value();
  }

  @Test
  void aFailingRuleIsAcknowledgedWithTheKeyAndWithdrawnAgain() {
    JsonPath failed = fullReconciliation("damaged");
    assertThat(failed.getString("status")).isEqualTo("FAILED");
    String body = "{\"rule\":\"missing_keys\",\"by\":\"ana\",\"note\":\"TICKET-12\"}";

    given().contentType(ContentType.JSON).body(body).post(ACKS).then().statusCode(401);
    given()
        .header(ApiKeyFilter.HEADER, "wrong")
        .contentType(ContentType.JSON)
        .body(body)
        .post(ACKS)
        .then()
        .statusCode(401);

    try {
      JsonPath ack =
          given()
              .header(ApiKeyFilter.HEADER, QuarkusFixtures.API_KEY)
              .contentType(ContentType.JSON)
              .body(body)
              .post(ACKS)
              .then()
              .statusCode(201)
              .extract()
              .jsonPath();
      assertThat(ack.getString("ruleId")).isEqualTo("missing_keys");
      assertThat(ack.getString("by")).isEqualTo("ana");
      assertThat(ack.getString("note")).isEqualTo("TICKET-12");
      assertThat(ack.getString("reconciliationId")).isEqualTo(failed.getString("id"));
      assertThat(ack.getList("keys")).isEqualTo(failed.getList("results[1].sampleKeys"));
      assertThat(alerting("damaged", "missing_keys")).isZero();

      JsonPath report =
          given()
              .header(ApiKeyFilter.HEADER, QuarkusFixtures.API_KEY)
              .get("/api/reconciliations/" + failed.getString("id"))
              .then()
              .statusCode(200)
              .extract()
              .jsonPath();
      assertThat(report.getString("status")).as("the rule still fails").isEqualTo("FAILED");
      assertThat(report.getString("acknowledgements[0].by")).isEqualTo("ana");
      assertThat(
              given()
                  .header(ApiKeyFilter.HEADER, QuarkusFixtures.API_KEY)
                  .get(ACKS)
                  .then()
                  .statusCode(200)
                  .extract()
                  .jsonPath()
                  .getList("ruleId"))
          .containsExactly("missing_keys");

      given().delete(ACKS + "/missing_keys").then().statusCode(401);
    } finally {
      given()
          .header(ApiKeyFilter.HEADER, QuarkusFixtures.API_KEY)
          .delete(ACKS + "/missing_keys")
          .then()
          .statusCode(200);
    }
    assertThat(alerting("damaged", "missing_keys")).isEqualTo(1.0);
    assertThat(
            given()
                .header(ApiKeyFilter.HEADER, QuarkusFixtures.API_KEY)
                .delete(ACKS + "/missing_keys")
                .then()
                .statusCode(409)
                .extract()
                .jsonPath()
                .getString("code"))
        .isEqualTo("NOT_FAILING");
  }

  @Test
  void whatCannotBeAcknowledgedIsRefusedNamingWhy() {
    JsonPath passed = fullReconciliation("customers");
    assertThat(passed.getString("status")).isEqualTo("PASSED");
    JsonPath notFailing =
        given()
            .header(ApiKeyFilter.HEADER, QuarkusFixtures.API_KEY)
            .contentType(ContentType.JSON)
            .body("{\"rule\":\"missing_keys\",\"by\":\"ana\"}")
            .post("/api/datasets/customers/acknowledgements")
            .then()
            .statusCode(409)
            .extract()
            .jsonPath();
    assertThat(notFailing.getString("code")).isEqualTo("NOT_FAILING");
    assertThat(notFailing.getString("message"))
        .isEqualTo(
            "Cannot acknowledge rule missing_keys of customers: it is PASS in the latest"
                + " reconciliation, "
                + passed.getString("id"));

    fullReconciliation("damaged");
    JsonPath unknownRule =
        given()
            .header(ApiKeyFilter.HEADER, QuarkusFixtures.API_KEY)
            .contentType(ContentType.JSON)
            .body("{\"rule\":\"missing_kyes\",\"by\":\"ana\"}")
            .post(ACKS)
            .then()
            .statusCode(400)
            .extract()
            .jsonPath();
    assertThat(unknownRule.getString("field")).isEqualTo("rule");
    assertThat(unknownRule.getString("message")).contains("missing_kyes").contains("missing_keys");

    JsonPath anonymous =
        given()
            .header(ApiKeyFilter.HEADER, QuarkusFixtures.API_KEY)
            .contentType(ContentType.JSON)
            .body("{\"rule\":\"missing_keys\"}")
            .post(ACKS)
            .then()
            .statusCode(400)
            .extract()
            .jsonPath();
    assertThat(anonymous.getString("field")).isEqualTo("by");

    given()
        .header(ApiKeyFilter.HEADER, QuarkusFixtures.API_KEY)
        .contentType(ContentType.JSON)
        .body("{\"rule\":\"missing_keys\",\"by\":\"ana\"}")
        .post("/api/datasets/nope/acknowledgements")
        .then()
        .statusCode(404);
  }
}
