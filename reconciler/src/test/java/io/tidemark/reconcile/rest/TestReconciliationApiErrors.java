package io.tidemark.reconcile.rest;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.not;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.restassured.response.ValidatableResponse;
import io.tidemark.reconcile.fixtures.QuarkusFixtures;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Every error status, as JSON naming the problem, never a stack trace; hostile input is refused
 * before any reconciliation (and so any SQL) starts.
 */
@QuarkusTest
@QuarkusTestResource(QuarkusFixtures.class)
class TestReconciliationApiErrors {
  private static ValidatableResponse post(String body) {
    return given()
        .header(ApiKeyFilter.HEADER, QuarkusFixtures.API_KEY)
        .contentType(ContentType.JSON)
        .body(body)
        .when()
        .post("/api/reconciliations")
        .then()
        .log()
        .ifValidationFails()
        .contentType(ContentType.JSON)
        .body(not(containsString("Exception")))
        .body(not(containsString("\tat ")));
  }

  private static int reports() {
    return given()
        .get("/api/reconciliations?limit=1000")
        .then()
        .extract()
        .jsonPath()
        .getList("id")
        .size();
  }

  @Test
  void postWithoutAnApiKeyIs401() {
    given()
        .contentType(ContentType.JSON)
        .body("{\"dataset\":\"customers\"}")
        .when()
        .post("/api/reconciliations")
        .then()
        .statusCode(401)
        .contentType(ContentType.JSON)
        .body("code", equalTo("UNAUTHORIZED"))
        .body("message", containsString("X-API-Key"));
  }

  @Test
  void postWithAWrongApiKeyIs401AndTheKeyIsNotEchoed() {
    given()
        .header(ApiKeyFilter.HEADER, "wrong-key-1234")
        .contentType(ContentType.JSON)
        .body("not even json")
        .when()
        .post("/api/reconciliations")
        .then()
        .statusCode(401)
        .body("code", equalTo("UNAUTHORIZED"))
        .body(not(containsString("wrong-key-1234")));
  }

  @Test
  void malformedJsonIs400() {
    post("{\"dataset\": ").statusCode(400).body("code", equalTo("MALFORMED_BODY"));
  }

  @Test
  void anUnknownFieldIs400NamingIt() {
    post("{\"dataset\":\"customers\",\"where\":\"1=1\"}")
        .statusCode(400)
        .body("field", equalTo("where"))
        .body("message", containsString("'where'"));
  }

  @Test
  void aMissingDatasetIs400NamingTheField() {
    post("{\"mode\":\"full\"}")
        .statusCode(400)
        .body("code", equalTo("INVALID_FIELD"))
        .body("field", equalTo("dataset"));
  }

  @Test
  void anUnknownModeIs400NamingTheField() {
    post("{\"dataset\":\"customers\",\"mode\":\"sideways\"}")
        .statusCode(400)
        .body("field", equalTo("mode"))
        .body("message", containsString("'sideways'"));
  }

  @Test
  void aWindowStartInFullModeIs400() {
    post("{\"dataset\":\"customers\",\"mode\":\"full\",\"from\":\"2026-01-01T00:00:00Z\"}")
        .statusCode(400)
        .body("field", equalTo("from"));
  }

  @Test
  void aWindowThatEndsBeforeItStartsIs400() {
    post("{\"dataset\":\"customers\",\"from\":\"2026-01-02T00:00:00Z\","
            + "\"to\":\"2026-01-01T00:00:00Z\"}")
        .statusCode(400)
        .body("field", equalTo("from"));
  }

  @Test
  void aWindowEndInTheFutureIs400() {
    String future = Instant.now().plus(1, ChronoUnit.DAYS).toString();
    post("{\"dataset\":\"customers\",\"to\":\"" + future + "\"}")
        .statusCode(400)
        .body("field", equalTo("to"));
  }

  @Test
  void anUnknownDatasetIs404() {
    post("{\"dataset\":\"invoices\"}")
        .statusCode(404)
        .body("code", equalTo("DATASET_NOT_FOUND"))
        .body("message", containsString("'invoices'"));
    given().get("/api/reconciliations?dataset=invoices").then().statusCode(404);
  }

  @Test
  void anUnknownReconciliationIs404() {
    given()
        .get("/api/reconciliations/20260101T000000Z-00000000")
        .then()
        .statusCode(404)
        .body("code", equalTo("RECONCILIATION_NOT_FOUND"));
  }

  @Test
  void aBadLimitIs400() {
    given()
        .get("/api/reconciliations?limit=0")
        .then()
        .statusCode(400)
        .body("field", equalTo("limit"));
    given()
        .get("/api/reconciliations?limit=ten")
        .then()
        .statusCode(400)
        .body("field", equalTo("limit"));
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "{\"dataset\":\"customers; DROP TABLE curated.customers\"}",
        "{\"dataset\":\"customers' OR '1'='1\"}",
        "{\"dataset\":\"../../etc/passwd\"}",
        "{\"dataset\":\"customer_id\\\" FROM raw_src --\"}",
        "{\"dataset\":\"customers\",\"mode\":\"full; DELETE FROM expected\"}",
        "{\"dataset\":\"customers\",\"from\":\"2026-01-01T00:00:00Z' OR 1=1 --\"}",
        "{\"dataset\":\"customers\",\"to\":\"updated_at\"}",
        "{\"dataset\":\"customers\",\"from\":\"yesterday\"}",
        "{\"dataset\":[\"customers\"]}"
      })
  void hostileInputIsRefusedBeforeAnyReconciliationStarts(String body) {
    int before = reports();
    post(body).statusCode(400);
    assertThat(reports()).as("no reconciliation was started").isEqualTo(before);
  }

  @Test
  void hostileQueryAndPathValuesAreRefused() {
    given()
        .get("/api/reconciliations?dataset=x' OR 1=1")
        .then()
        .statusCode(400)
        .body("field", equalTo("dataset"));
    given().get("/api/reconciliations/x' OR 1=1").then().statusCode(404);
    given()
        .get("/api/alarms?dataset=' OR 1=1")
        .then()
        .statusCode(400)
        .body("field", equalTo("dataset"));
  }

  /**
   * Instants Java parses but no engine can take: before this change year 0 was accepted, overflowed
   * inside the engine and sent every rule alarm to ALARM.
   */
  @ParameterizedTest
  @ValueSource(
      strings = {
        "{\"dataset\":\"customers\",\"from\":\"0000-01-01T00:00:00Z\"}",
        "{\"dataset\":\"customers\",\"from\":\"1969-12-31T23:59:59Z\"}",
        "{\"dataset\":\"customers\",\"from\":\"-1000000000-01-01T00:00:00Z\"}",
        "{\"dataset\":\"customers\",\"mode\":\"full\",\"to\":\"0001-01-01T00:00:00Z\"}",
        "{\"dataset\":\"customers\",\"from\":\"+1000000000-12-31T23:59:59Z\"}"
      })
  void aWindowBoundOutsideTheEpochAndNowIs400NamingTheFieldAndValue(String body) {
    int before = reports();
    String field = body.contains("\"from\"") ? "from" : "to";
    String value = body.replaceAll(".*\"" + field + "\":\"([^\"]+)\".*", "$1");
    post(body)
        .statusCode(400)
        .body("code", equalTo("INVALID_FIELD"))
        .body("field", equalTo(field))
        .body("message", containsString("Cannot start a reconciliation: field '" + field + "'"))
        .body("message", containsString("'" + value + "'"));
    assertThat(reports()).as("no reconciliation was started").isEqualTo(before);
  }

  @Test
  void aWindowBoundBeforeTheEpochSaysWhereTheRangeStarts() {
    post("{\"dataset\":\"customers\",\"from\":\"0000-01-01T00:00:00Z\"}")
        .statusCode(400)
        .body("message", containsString("is before 1970-01-01T00:00:00Z"));
  }

  @Test
  void aWindowStartInTheFutureIs400() {
    String future = Instant.now().plus(1, ChronoUnit.DAYS).toString();
    post("{\"dataset\":\"customers\",\"from\":\"" + future + "\"}")
        .statusCode(400)
        .body("field", equalTo("from"))
        .body("message", containsString("is in the future"));
  }

  @Test
  void anEmptyWindowIs400() {
    post("{\"dataset\":\"customers\",\"from\":\"2026-01-01T00:00:00Z\","
            + "\"to\":\"2026-01-01T00:00:00Z\"}")
        .statusCode(400)
        .body("field", equalTo("from"))
        .body("message", containsString("must be before 'to' (2026-01-01T00:00:00Z)"));
  }

  @Test
  void alarmsOfAnUnknownDatasetAre404() {
    given()
        .get("/api/alarms?dataset=invoices")
        .then()
        .statusCode(404)
        .body("code", equalTo("DATASET_NOT_FOUND"))
        .body("message", containsString("'invoices'"));
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "/api/reconciliations?limt=5",
        "/api/reconciliations/" + QuarkusFixtures.ABANDONED_ID + "?verbose=1",
        "/api/datasets?name=customers",
        "/api/alarms?datasets=customers"
      })
  void anUnknownQueryParameterIs400NamingIt(String url) {
    String name = url.replaceAll(".*\\?([a-z]+)=.*", "$1");
    given()
        .get(url)
        .then()
        .statusCode(400)
        .contentType(ContentType.JSON)
        .body("code", equalTo("INVALID_FIELD"))
        .body("field", equalTo(name))
        .body("message", containsString("field '" + name + "'"))
        .body("message", containsString("unknown query parameter"));
  }

  /**
   * A parameter given twice: before this change the endpoint took one of the values silently
   * ({@code limit=1&limit=1000} answered one report).
   */
  @ParameterizedTest
  @ValueSource(
      strings = {
        "/api/reconciliations?limit=1&limit=1000",
        "/api/reconciliations?dataset=customers&dataset=damaged",
        "/api/alarms?dataset=customers&dataset=damaged",
        "/api/datasets/customers/runs?limit=1&limit=1000",
        "/api/datasets/customers/raw-table-ddl?projection-start=2025-01-01"
            + "&projection-start=2026-01-01"
      })
  void aRepeatedQueryParameterIs400NamingItAndItsValues(String url) {
    String query = url.substring(url.indexOf('?') + 1);
    String name = query.substring(0, query.indexOf('='));
    String first = query.replaceAll("^[^=]+=([^&]+)&.*", "$1");
    String second = query.replaceAll(".*&[^=]+=([^&]+)$", "$1");
    given()
        .get(url)
        .then()
        .statusCode(400)
        .contentType(ContentType.JSON)
        .body("code", equalTo("INVALID_FIELD"))
        .body("field", equalTo(name))
        .body("message", containsString("field '" + name + "'"))
        .body("message", containsString("'" + first + "', '" + second + "'"))
        .body("message", containsString("given 2 times; give it once"));
  }

  /**
   * Dates {@code LocalDate} parses but Athena cannot project from: before this change each was 200
   * with a DDL Athena rejects (year 0) or that projects no partition (a start in the future).
   */
  @ParameterizedTest
  @ValueSource(strings = {"0000-01-01", "-999999999-01-01", "1969-12-31", "2099-01-01"})
  void aProjectionStartOutsideTheEpochAndTodayIs400NamingTheValue(String value) {
    given()
        .get("/api/datasets/customers/raw-table-ddl?projection-start=" + value)
        .then()
        .statusCode(400)
        .contentType(ContentType.JSON)
        .body("code", equalTo("INVALID_FIELD"))
        .body("field", equalTo("projection-start"))
        .body(
            "message",
            containsString(
                "Cannot get the raw table DDL: field 'projection-start' has invalid value '"
                    + value
                    + "': "))
        .body(
            "message",
            containsString(value.startsWith("2099") ? "is after today" : "is before 1970-01-01"));
  }

  @Test
  void aProjectionStartOfTodayIsServed() {
    String today = java.time.LocalDate.now(java.time.ZoneOffset.UTC).toString();
    given()
        .get("/api/datasets/customers/raw-table-ddl?projection-start=" + today)
        .then()
        .statusCode(200)
        .body(containsString("'projection.ingest_date.range' = '" + today + ",NOW+1DAYS'"));
  }

  @Test
  void aBadQueryValueIsReportedForTheListNotAsAStart() {
    given()
        .get("/api/reconciliations?limit=100000")
        .then()
        .statusCode(400)
        .body(
            "message",
            equalTo(
                "Cannot list reconciliations: field 'limit' has invalid value '100000':"
                    + " must be a whole number 1..1000"));
  }

  @Test
  void unknownPathsAndMethodsAnswerJson() {
    given()
        .get("/api/nothing")
        .then()
        .statusCode(404)
        .contentType(ContentType.JSON)
        .body("code", equalTo("NOT_FOUND"));
    given()
        .delete("/api/reconciliations")
        .then()
        .statusCode(405)
        .body("code", equalTo("METHOD_NOT_ALLOWED"));
  }
}
