package io.tidemark.reconcile.rest;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.not;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;
import io.restassured.http.ContentType;
import io.tidemark.reconcile.fixtures.QuarkusFixtures;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * DNS rebinding: a web page whose name is made to resolve to 127.0.0.1 reaches the service with its
 * own name in {@code Host} and its own origin in {@code Origin}. The service answers only its
 * configured host names (loopback by default) and refuses cross-origin calls to the API; the status
 * page, same origin, keeps working.
 */
@QuarkusTest
@QuarkusTestResource(QuarkusFixtures.class)
class TestHostAndOrigin {
  /** The host RestAssured sends requests to, as its Host header names it. */
  private static String self() {
    return java.net.URI.create(RestAssured.baseURI).getHost() + ":" + RestAssured.port;
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "/api/datasets",
        "/api/datasets/customers/runs",
        "/api/reconciliations",
        "/api/alarms",
        "/",
        "/status.js",
        "/q/metrics",
        "/q/openapi"
      })
  void anotherHostNameIsRefusedWith421AndShowsNothing(String path) {
    for (String host : new String[] {"evil.example", "evil.example:" + RestAssured.port}) {
      given()
          .header("Host", host)
          .get(path)
          .then()
          .statusCode(421)
          .contentType(ContentType.JSON)
          .body("code", equalTo("MISDIRECTED_HOST"))
          .body(
              "message",
              equalTo(
                  "Cannot serve the request: host '"
                      + host
                      + "' is not a name of this service (tidemark.api.allowed-hosts)"))
          .body(not(containsString("customers")));
    }
  }

  @ParameterizedTest
  @ValueSource(
      strings = {"localhost", "LOCALHOST", "127.0.0.1", "[::1]", "localhost:1", "[::1]:8080"})
  void theLoopbackNamesAreServedWithOrWithoutAPort(String host) {
    given()
        .header("Host", host)
        .get("/api/datasets")
        .then()
        .statusCode(200)
        .body("name", org.hamcrest.Matchers.hasItem("customers"));
  }

  /**
   * Java's HTTP client upgrades to HTTP/2, whose requests carry the host as {@code :authority}, not
   * {@code Host}: before this change such a request to the service's own name got 421.
   */
  @Test
  void anHttp2RequestIsJudgedByItsAuthority() throws Exception {
    java.net.http.HttpClient client =
        java.net.http.HttpClient.newBuilder()
            .version(java.net.http.HttpClient.Version.HTTP_2)
            .build();
    java.net.URI uri = java.net.URI.create("http://" + self() + "/api/datasets");
    for (int i = 0; i < 2; i++) {
      // The first request is the upgrade (HTTP/1.1 with Host), the second one HTTP/2.
      java.net.http.HttpResponse<String> r =
          client.send(
              java.net.http.HttpRequest.newBuilder(uri).build(),
              java.net.http.HttpResponse.BodyHandlers.ofString());
      assertThat(r.statusCode()).as(r.version() + ": " + r.body()).isEqualTo(200);
    }
  }

  /** Load balancers probe with the target's address as Host: health stays open to any name. */
  @Test
  void healthAnswersAnyHost() {
    given().header("Host", "10.0.3.17:8080").get("/q/health/ready").then().statusCode(200);
  }

  @ParameterizedTest
  @ValueSource(strings = {"http://evil.example", "http://localhost:1", "null"})
  void aCrossOriginCallToTheApiIsRefusedWith403(String origin) {
    given()
        .header("Origin", origin)
        .get("/api/datasets")
        .then()
        .statusCode(403)
        .contentType(ContentType.JSON)
        .body("code", equalTo("CROSS_ORIGIN"))
        .body(
            "message",
            equalTo(
                "Cannot serve the request: origin '"
                    + origin
                    + "' is not this service's own (http://"
                    + self()
                    + ")"))
        .body(not(containsString("customers")));
  }

  @Test
  void aCrossOriginStartIsRefusedEvenWithTheKey() {
    int before =
        given()
            .get("/api/reconciliations?limit=1000")
            .then()
            .extract()
            .jsonPath()
            .getList("id")
            .size();
    given()
        .header("Origin", "http://evil.example")
        .header(ApiKeyFilter.HEADER, QuarkusFixtures.API_KEY)
        .contentType(ContentType.JSON)
        .body("{\"dataset\":\"customers\"}")
        .post("/api/reconciliations")
        .then()
        .statusCode(403)
        .body("code", equalTo("CROSS_ORIGIN"));
    assertThat(
            given()
                .get("/api/reconciliations?limit=1000")
                .then()
                .extract()
                .jsonPath()
                .getList("id")
                .size())
        .as("no reconciliation was started")
        .isEqualTo(before);
  }

  @Test
  void theServicesOwnOriginIsServed() {
    given()
        .header("Origin", "http://" + self())
        .get("/api/datasets")
        .then()
        .statusCode(200)
        .body("name", org.hamcrest.Matchers.hasItem("customers"));
    given()
        .header("Origin", "http://127.0.0.1:" + RestAssured.port)
        .header("Host", "127.0.0.1:" + RestAssured.port)
        .get("/api/datasets")
        .then()
        .statusCode(200);
  }
}
