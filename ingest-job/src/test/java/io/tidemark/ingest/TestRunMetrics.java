package io.tidemark.ingest;

import static io.tidemark.ingest.RawFixtures.u;
import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.ingest.config.IngestSettings;
import io.tidemark.model.cloudwatch.CloudWatchPublisher;
import io.tidemark.model.metrics.Metric;
import io.tidemark.model.report.IngestStatus;
import java.io.IOException;
import java.net.HttpURLConnection;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.cloudwatch.CloudWatchClient;
import software.amazon.awssdk.services.cloudwatch.model.Dimension;
import software.amazon.awssdk.services.cloudwatch.model.Statistic;

/** Per-run metrics reach CloudWatch (moto_server, a real AWS emulator, on loopback). */
class TestRunMetrics extends SparkTestSupport {
  static Process moto;
  static URI endpoint;
  @TempDir Path dir;

  @BeforeAll
  static void startMoto() throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      port = s.getLocalPort();
    }
    try {
      moto =
          new ProcessBuilder("moto_server", "-H", "127.0.0.1", "-p", String.valueOf(port))
              .redirectErrorStream(true)
              .redirectOutput(ProcessBuilder.Redirect.DISCARD)
              .start();
    } catch (IOException e) {
      throw new IllegalStateException(
          "moto_server is needed for this test; install it with: pip install \"moto[server]\"", e);
    }
    endpoint = URI.create("http://127.0.0.1:" + port);
    long deadline = System.nanoTime() + 60_000_000_000L;
    while (true) {
      try {
        HttpURLConnection c = (HttpURLConnection) endpoint.toURL().openConnection();
        c.setConnectTimeout(500);
        if (c.getResponseCode() > 0) {
          break;
        }
      } catch (IOException e) {
        if (System.nanoTime() > deadline || !moto.isAlive()) {
          throw new IllegalStateException("moto_server did not start on " + endpoint, e);
        }
        Thread.sleep(200);
      }
    }
  }

  @AfterAll
  static void stopMoto() throws Exception {
    if (moto != null) {
      moto.destroy();
      moto.waitFor();
    }
  }

  @Test
  void aRunPublishesItsCountsWhenAnEndpointIsConfigured() {
    IngestSettings s =
        settings(dir)
            // Metric timestamps are the run's end: use the real clock so they are recent.
            .withClock(java.time.Clock.systemUTC())
            .withCloudWatch(
                CloudWatchPublisher.Settings.defaults()
                    .withEndpoint(endpoint)
                    .withStaticCredentials("test", "test"));
    RawFixtures.write(
        spark,
        Path.of(s.dataset().raw().location()),
        "2024-03-01",
        "a.parquet",
        List.of(u("A", "Ada", "2024-03-01T10:00:00Z"), u("B", "Bo", "2024-03-01T10:00:00Z")));
    assertThat(new IngestJob(spark, s).run().report().status()).isEqualTo(IngestStatus.SUCCEEDED);

    try (CloudWatchClient cw =
        CloudWatchClient.builder()
            .endpointOverride(endpoint)
            .region(Region.US_EAST_1)
            .httpClient(UrlConnectionHttpClient.create())
            .credentialsProvider(
                StaticCredentialsProvider.create(AwsBasicCredentials.create("test", "test")))
            .build()) {
      Set<String> names =
          cw.listMetrics(r -> r.namespace(Metric.NAMESPACE_DEFAULT)).metrics().stream()
              .map(m -> m.metricName())
              .collect(Collectors.toSet());
      assertThat(names)
          .contains(
              Metric.RECORDS_INSERTED.metricName(),
              Metric.FILES_NEW.metricName(),
              Metric.RUN_SUCCEEDED.metricName());
      var stats =
          cw.getMetricStatistics(
              r ->
                  r.namespace(Metric.NAMESPACE_DEFAULT)
                      .metricName(Metric.RECORDS_INSERTED.metricName())
                      .dimensions(
                          Dimension.builder().name("Pipeline").value("default").build(),
                          Dimension.builder().name("Dataset").value("customers").build())
                      .startTime(java.time.Instant.now().minusSeconds(3600))
                      .endTime(java.time.Instant.now().plusSeconds(3600))
                      .period(60)
                      .statistics(Statistic.SUM));
      assertThat(stats.datapoints()).isNotEmpty();
      assertThat(stats.datapoints().stream().mapToDouble(d -> d.sum()).sum()).isEqualTo(2.0);
    }
  }
}
