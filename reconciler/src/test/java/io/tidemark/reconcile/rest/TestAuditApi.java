package io.tidemark.reconcile.rest;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.restassured.path.json.JsonPath;
import io.tidemark.reconcile.fixtures.QuarkusFixtures;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/**
 * The audit endpoint the ingest job's verified publish calls: only with the API key; it answers the
 * verdict on the snapshot named (the record-level rules only), stores nothing, and names a wrong
 * field.
 */
@QuarkusTest
@QuarkusTestResource(QuarkusFixtures.class)
class TestAuditApi {
  /** The current curated snapshot of a dataset, as a reconciliation pins it. */
  private static long currentSnapshot(String dataset) {
    return given()
        .header(ApiKeyFilter.HEADER, QuarkusFixtures.API_KEY)
        .contentType(ContentType.JSON)
        .body("{\"dataset\":\"" + dataset + "\",\"mode\":\"full\",\"wait\":\"PT2M\"}")
        .post("/api/reconciliations")
        .then()
        .statusCode(200)
        .extract()
        .jsonPath()
        .getLong("curatedSnapshot.id");
  }

  private static String request(long snapshot) {
    Instant now = Instant.now();
    return "{\"runId\":\"run-1\",\"batchId\":\"b1\",\"branch\":\"tidemark_run_1_run_1\","
        + "\"snapshotId\":"
        + snapshot
        + ",\"rawArrivedBy\":\""
        + now
        + "\",\"now\":\""
        + now
        + "\"}";
  }

  @Test
  void aSnapshotIsAuditedWithTheKeyAndTheVerdictIsNotStored() {
    long damaged = currentSnapshot("damaged");

    given()
        .contentType(ContentType.JSON)
        .body(request(damaged))
        .post("/api/datasets/damaged/audits")
        .then()
        .statusCode(401);

    JsonPath audit =
        given()
            .header(ApiKeyFilter.HEADER, QuarkusFixtures.API_KEY)
            .contentType(ContentType.JSON)
            .body(request(damaged))
            .post("/api/datasets/damaged/audits")
            .then()
            .statusCode(200)
            .extract()
            .jsonPath();
    assertThat(audit.getString("status")).isEqualTo("FAILED");
    assertThat(audit.getString("id")).startsWith("audit-");
    assertThat(audit.getString("trigger")).isEqualTo("audit:run-1");
    assertThat(audit.getLong("curatedSnapshot.id")).isEqualTo(damaged);
    assertThat(audit.getList("results.ruleId"))
        .as("the record-level rules only")
        .containsExactlyInAnyOrder(
            "count_match",
            "missing_keys",
            "unexpected_keys",
            "duplicate_keys",
            "stale_versions",
            "value_mismatches");
    assertThat(audit.getList("results.findAll { it.ruleId == 'missing_keys' }.sampleKeys[0]"))
        .containsExactly("k10");
    // Not stored: the batch it judged is not on main.
    given()
        .header(ApiKeyFilter.HEADER, QuarkusFixtures.API_KEY)
        .get("/api/reconciliations/" + audit.getString("id"))
        .then()
        .statusCode(404);

    JsonPath clean =
        given()
            .header(ApiKeyFilter.HEADER, QuarkusFixtures.API_KEY)
            .contentType(ContentType.JSON)
            .body(request(currentSnapshot("customers")))
            .post("/api/datasets/customers/audits")
            .then()
            .statusCode(200)
            .extract()
            .jsonPath();
    assertThat(clean.getString("status")).isEqualTo("PASSED");
  }

  @Test
  void aWrongRequestIsRefusedNamingTheField() {
    given()
        .header(ApiKeyFilter.HEADER, QuarkusFixtures.API_KEY)
        .contentType(ContentType.JSON)
        .body(request(42))
        .post("/api/datasets/customers/audits")
        .then()
        .statusCode(400)
        .body("field", org.hamcrest.Matchers.equalTo("snapshotId"));
    given()
        .header(ApiKeyFilter.HEADER, QuarkusFixtures.API_KEY)
        .contentType(ContentType.JSON)
        .body(request(42).replace("tidemark_run_1_run_1", "main; DROP"))
        .post("/api/datasets/customers/audits")
        .then()
        .statusCode(400)
        .body("field", org.hamcrest.Matchers.equalTo("branch"));
    given()
        .header(ApiKeyFilter.HEADER, QuarkusFixtures.API_KEY)
        .contentType(ContentType.JSON)
        .body(request(42))
        .post("/api/datasets/nope/audits")
        .then()
        .statusCode(404);
  }
}
