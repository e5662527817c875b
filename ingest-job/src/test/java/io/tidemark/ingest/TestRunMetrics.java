package io.tidemark.ingest;

import static io.tidemark.ingest.RawFixtures.u;
import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.ingest.config.IngestSettings;
import io.tidemark.ingest.metrics.CloudWatchPublisher;
import io.tidemark.ingest.run.IngestJob;
import io.tidemark.model.metrics.Metric;
import io.tidemark.model.report.IngestStatus;
import io.tidemark.model.testing.AwsEmulator;
import io.tidemark.model.testing.AwsService;
import io.tidemark.model.testing.AwsSuite;
import io.tidemark.model.testing.AwsTest;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Tags;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.cloudwatch.CloudWatchClient;
import software.amazon.awssdk.services.cloudwatch.model.Dimension;
import software.amazon.awssdk.services.cloudwatch.model.Statistic;

/**
 * Per-run metrics reach CloudWatch: an AWS emulator's (moto_server, and LocalStack where Docker
 * exists) on loopback.
 */
@AwsSuite(services = AwsService.CLOUDWATCH)
@Tags({@Tag("aws"), @Tag("spark")})
class TestRunMetrics extends SparkTestSupport {
  @TempDir Path dir;

  @AwsTest
  void aRunPublishesItsCountsWhenAnEndpointIsConfigured(AwsEmulator aws) {
    IngestSettings s =
        settings(dir)
            // Metric timestamps are the run's end: use the real clock so they are recent.
            .withClock(java.time.Clock.systemUTC())
            .withCloudWatch(
                CloudWatchPublisher.Settings.defaults()
                    .withEndpoint(aws.endpoint())
                    .withStaticCredentials(aws.accessKey(), aws.secretKey()));
    RawFixtures.write(
        Path.of(s.dataset().raw().location()),
        "2024-03-01",
        "a.parquet",
        List.of(u("A", "Ada", "2024-03-01T10:00:00Z"), u("B", "Bo", "2024-03-01T10:00:00Z")));
    assertThat(new IngestJob(spark, s).run().report().status()).isEqualTo(IngestStatus.SUCCEEDED);

    try (CloudWatchClient cw =
        CloudWatchClient.builder()
            .endpointOverride(aws.endpoint())
            .region(Region.of(aws.region()))
            .httpClient(UrlConnectionHttpClient.create())
            .credentialsProvider(
                StaticCredentialsProvider.create(
                    AwsBasicCredentials.create(aws.accessKey(), aws.secretKey())))
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
                          Dimension.builder().name("Dataset").value("customers").build(),
                          // The run's mode: CloudWatch finds a series by its exact dimensions.
                          Dimension.builder().name("Mode").value("INCREMENTAL").build())
                      .startTime(java.time.Instant.now().minusSeconds(3600))
                      .endTime(java.time.Instant.now().plusSeconds(3600))
                      .period(60)
                      .statistics(Statistic.SUM));
      assertThat(stats.datapoints()).isNotEmpty();
      assertThat(stats.datapoints().stream().mapToDouble(d -> d.sum()).sum()).isEqualTo(2.0);
    }
  }
}
