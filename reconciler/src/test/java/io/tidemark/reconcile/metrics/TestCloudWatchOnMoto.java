package io.tidemark.reconcile.metrics;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;

import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.restassured.http.ContentType;
import io.tidemark.model.metrics.Dimension;
import io.tidemark.model.metrics.Emitter;
import io.tidemark.reconcile.config.TidemarkConfig;
import io.tidemark.reconcile.fixtures.MotoServer;
import io.tidemark.reconcile.fixtures.QuarkusFixtures;
import io.tidemark.reconcile.rest.ApiKeyFilter;
import jakarta.inject.Inject;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.cloudwatch.CloudWatchClient;
import software.amazon.awssdk.services.cloudwatch.model.GetMetricDataRequest;
import software.amazon.awssdk.services.cloudwatch.model.ListMetricsRequest;
import software.amazon.awssdk.services.cloudwatch.model.MetricDataQuery;
import software.amazon.awssdk.services.cloudwatch.model.MetricStat;

/**
 * With Micrometer's CloudWatch registry pointed at moto_server, a reconciliation's rule metrics are
 * read back with GetMetricData, under exactly the catalogue's names and dimensions. {@link
 * TestCloudWatchOnLocalStack} runs the same tests on LocalStack where Docker exists.
 */
@QuarkusTest
@TestProfile(TestCloudWatchOnMoto.OnMoto.class)
@Tag("aws")
class TestCloudWatchOnMoto {
  /** The CloudWatch registry on, publishing every second to moto. */
  public static class OnMoto implements QuarkusTestProfile {
    @Override
    public Map<String, String> getConfigOverrides() {
      return Map.of(
          "tidemark.cloudwatch.enabled", "true",
          "tidemark.cloudwatch.step", "1s",
          "tidemark.cloudwatch.region", "us-east-1",
          "tidemark.cloudwatch.access-key-id", "test",
          "tidemark.cloudwatch.secret-access-key", "test");
    }

    @Override
    public List<TestResourceEntry> testResources() {
      return List.of(new TestResourceEntry(MotoServer.class));
    }
  }

  @Inject TidemarkConfig config;

  @Test
  void ruleMetricsAreReadBackWithGetMetricData() {
    String id =
        given()
            .header(ApiKeyFilter.HEADER, QuarkusFixtures.API_KEY)
            .contentType(ContentType.JSON)
            .body("{\"dataset\":\"damaged\",\"mode\":\"full\"}")
            .post("/api/reconciliations")
            .then()
            .statusCode(202)
            .extract()
            .path("id");
    Awaitility.await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> "FAILED".equals(given().get("/api/reconciliations/" + id).path("status")));

    try (CloudWatchClient cw =
        CloudWatchClient.builder()
            .endpointOverride(config.cloudwatch().endpoint().orElseThrow())
            .region(Region.US_EAST_1)
            .credentialsProvider(
                StaticCredentialsProvider.create(AwsBasicCredentials.create("test", "test")))
            .httpClient(UrlConnectionHttpClient.create())
            .build()) {
      Awaitility.await()
          .atMost(Duration.ofSeconds(30))
          .pollInterval(Duration.ofMillis(500))
          .untilAsserted(
              () -> {
                assertThat(max(cw, "RuleStatus", "missing_keys")).containsOnly(1.0);
                assertThat(max(cw, "RuleStatus", "unexpected_keys")).containsOnly(0.0);
                assertThat(max(cw, "RuleObservedValue", "missing_keys")).containsOnly(1.0);
                assertThat(max(cw, "MissingKeys", null)).containsOnly(1.0);
              });

      var listed =
          cw.listMetrics(ListMetricsRequest.builder().namespace(Metric.NAMESPACE).build())
              .metrics();
      assertThat(listed).isNotEmpty();
      Set<String> reconcilerNames =
          io.tidemark.model.metrics.Metric.emittedBy(Emitter.RECONCILER).stream()
              .map(io.tidemark.model.metrics.Metric::metricName)
              .collect(Collectors.toSet());
      for (var m : listed) {
        assertThat(reconcilerNames).as("a catalogue name").contains(m.metricName());
        var catalogue = io.tidemark.model.metrics.Metric.byName(m.metricName()).orElseThrow();
        assertThat(m.dimensions().stream().map(d -> d.name()).toList())
            .as("the catalogue's dimensions of %s", m.metricName())
            .containsExactlyInAnyOrderElementsOf(
                catalogue.dimensions().stream().map(Dimension::cloudWatchName).toList());
      }
    }
  }

  /** The datapoints' Maximum per minute of one series of the damaged dataset. */
  private static List<Double> max(CloudWatchClient cw, String metric, String rule) {
    var dims =
        new java.util.ArrayList<software.amazon.awssdk.services.cloudwatch.model.Dimension>();
    dims.add(dim("Pipeline", "default"));
    dims.add(dim("Dataset", "damaged"));
    if (rule != null) {
      dims.add(dim("Rule", rule));
    }
    // Micrometer sends dimensions sorted by name; moto matches them in order (CloudWatch does not).
    dims.sort(java.util.Comparator.comparing(d -> d.name()));
    Instant now = Instant.now();
    return cw.getMetricData(
            GetMetricDataRequest.builder()
                .startTime(now.minus(Duration.ofMinutes(10)))
                .endTime(now.plus(Duration.ofMinutes(5)))
                .metricDataQueries(
                    MetricDataQuery.builder()
                        .id("q")
                        .metricStat(
                            MetricStat.builder()
                                .metric(
                                    software.amazon.awssdk.services.cloudwatch.model.Metric
                                        .builder()
                                        .namespace(Metric.NAMESPACE)
                                        .metricName(metric)
                                        .dimensions(dims)
                                        .build())
                                .period(60)
                                .stat("Maximum")
                                .build())
                        .build())
                .build())
        .metricDataResults()
        .get(0)
        .values();
  }

  private static software.amazon.awssdk.services.cloudwatch.model.Dimension dim(
      String n, String v) {
    return software.amazon.awssdk.services.cloudwatch.model.Dimension.builder()
        .name(n)
        .value(v)
        .build();
  }

  /** Names used above. */
  private static final class Metric {
    static final String NAMESPACE = io.tidemark.model.metrics.Metric.NAMESPACE_DEFAULT;
  }
}
