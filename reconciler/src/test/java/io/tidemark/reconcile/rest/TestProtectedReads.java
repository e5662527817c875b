package io.tidemark.reconcile.rest;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.not;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.restassured.http.ContentType;
import io.tidemark.reconcile.fixtures.QuarkusFixtures;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * With {@code tidemark.api.protect-reads} on (the default beyond loopback), the read endpoints need
 * the same API key as writes; health stays open for probes.
 */
@QuarkusTest
@QuarkusTestResource(QuarkusFixtures.class)
@TestProfile(TestProtectedReads.ProtectReads.class)
public class TestProtectedReads {
  public static class ProtectReads implements QuarkusTestProfile {
    @Override
    public Map<String, String> getConfigOverrides() {
      return Map.of("tidemark.api.protect-reads", "true");
    }
  }

  private static final String[] READS = {
    "/api/datasets",
    "/api/alarms",
    "/api/reconciliations",
    "/api/reconciliations/" + QuarkusFixtures.ABANDONED_ID
  };

  @ParameterizedTest
  @ValueSource(
      strings = {
        "/api/datasets",
        "/api/alarms?dataset=customers",
        "/api/reconciliations?limit=5",
        "/api/reconciliations/" + QuarkusFixtures.ABANDONED_ID,
        "/api/datasets/customers/runs",
        "/api/unreadable-reports"
      })
  void aReadWithoutAKeyIs401AndShowsNothing(String url) {
    given()
        .get(url)
        .then()
        .statusCode(401)
        .contentType(ContentType.JSON)
        .body("code", equalTo("UNAUTHORIZED"))
        .body("message", containsString("X-API-Key"))
        .body(not(containsString("customers")));
    given()
        .header(ApiKeyFilter.HEADER, "wrong-key-1234")
        .get(url)
        .then()
        .statusCode(401)
        .body(not(containsString("wrong-key-1234")));
  }

  @Test
  void aReadWithTheKeyIsServed() {
    for (String url : READS) {
      given().header(ApiKeyFilter.HEADER, QuarkusFixtures.API_KEY).get(url).then().statusCode(200);
    }
    given()
        .header(ApiKeyFilter.HEADER, QuarkusFixtures.API_KEY)
        .get("/api/datasets")
        .then()
        .body("name", org.hamcrest.Matchers.hasItem("customers"));
  }

  @Test
  void healthStaysOpen() {
    given().get("/q/health").then().statusCode(200);
  }
}
