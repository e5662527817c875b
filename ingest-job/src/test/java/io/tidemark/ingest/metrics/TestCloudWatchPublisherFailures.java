package io.tidemark.ingest.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import io.tidemark.model.metrics.Datum;
import io.tidemark.model.metrics.Metric;
import io.tidemark.model.testing.MotoServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * What the caller gets when CloudWatch is unreachable or throttles. moto_server cannot throttle, so
 * throttling is served by a FAKE: a loopback HTTP server answering PutMetricData with CloudWatch's
 * documented query-protocol replies (400 {@code Throttling}, or 200). It stands in for the remote
 * service only; the publisher and the AWS SDK under test are real.
 */
@Tag("aws")
class TestCloudWatchPublisherFailures {
  private static final String NS = "http://monitoring.amazonaws.com/doc/2010-08-01/";
  private static final String THROTTLED =
      "<ErrorResponse xmlns=\""
          + NS
          + "\"><Error><Type>Sender</Type><Code>Throttling</Code>"
          + "<Message>Rate exceeded</Message></Error><RequestId>r-1</RequestId></ErrorResponse>";
  private static final String INVALID =
      "<ErrorResponse xmlns=\""
          + NS
          + "\"><Error><Type>Sender</Type><Code>InvalidParameterValue</Code>"
          + "<Message>bad</Message></Error><RequestId>r-2</RequestId></ErrorResponse>";
  private static final String OK =
      "<PutMetricDataResponse xmlns=\""
          + NS
          + "\"><ResponseMetadata><RequestId>r-3</RequestId>"
          + "</ResponseMetadata></PutMetricDataResponse>";

  private HttpServer fake;
  private final List<Duration> sleeps = new ArrayList<>();
  private final AtomicInteger requests = new AtomicInteger();
  private final List<Integer> datumsPerRequest = new ArrayList<>();

  @AfterEach
  void stopFake() {
    if (fake != null) {
      fake.stop(0);
    }
  }

  /** Starts the fake: the first {@code throttles} requests are throttled, then {@code reply}. */
  private URI fakeCloudWatch(int throttles, int status, String reply) throws IOException {
    fake = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    fake.createContext(
        "/",
        exchange -> {
          byte[] raw = exchange.getRequestBody().readAllBytes();
          if ("gzip".equals(exchange.getRequestHeaders().getFirst("Content-Encoding"))) {
            // The SDK compresses large PutMetricData bodies, as CloudWatch allows.
            raw =
                new java.util.zip.GZIPInputStream(new java.io.ByteArrayInputStream(raw))
                    .readAllBytes();
          }
          String body = new String(raw, StandardCharsets.UTF_8);
          synchronized (datumsPerRequest) {
            datumsPerRequest.add(body.split("MetricName=", -1).length - 1);
          }
          int n = requests.incrementAndGet();
          boolean throttle = n <= throttles;
          byte[] bytes = (throttle ? THROTTLED : reply).getBytes(StandardCharsets.UTF_8);
          exchange.getResponseHeaders().add("Content-Type", "text/xml");
          exchange.sendResponseHeaders(throttle ? 400 : status, bytes.length);
          exchange.getResponseBody().write(bytes);
          exchange.close();
        });
    fake.start();
    return URI.create("http://127.0.0.1:" + fake.getAddress().getPort());
  }

  private CloudWatchPublisher publisher(URI endpoint, int attempts, int batchSize) {
    var settings =
        CloudWatchPublisher.Settings.defaults()
            .withEndpoint(endpoint)
            .withStaticCredentials("test", "test")
            .withRetries(attempts, Duration.ofMillis(100))
            .withBatchSize(batchSize)
            .withCallTimeout(Duration.ofSeconds(2));
    var sdk =
        software.amazon.awssdk.services.cloudwatch.CloudWatchClient.builder()
            .endpointOverride(endpoint)
            .region(software.amazon.awssdk.regions.Region.US_EAST_1)
            .credentialsProvider(settings.credentials().orElseThrow())
            .overrideConfiguration(
                c ->
                    c.retryStrategy(
                        software.amazon.awssdk.awscore.retry.AwsRetryStrategy.doNotRetry()))
            .httpClient(software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient.create())
            .build();
    return CloudWatchPublisher.using(sdk, settings, sleeps::add);
  }

  private static List<Datum> datums(int n) {
    Instant at = Instant.parse("2026-10-15T00:00:00Z");
    List<Datum> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      out.add(
          Datum.ofRun(
              Metric.RECORDS_READ,
              "crm",
              "customers",
              io.tidemark.model.report.IngestMode.INCREMENTAL,
              i,
              at));
    }
    return out;
  }

  @Test
  void endpointDownReturnsEverythingUndeliveredWithoutThrowing() {
    URI down = URI.create("http://127.0.0.1:" + MotoServer.freePort());
    PublishResult result = publisher(down, 3, 1000).publish(datums(5));

    assertThat(result.sent()).isZero();
    assertThat(result.undelivered()).hasSize(5);
    assertThat(result.requests()).isEqualTo(3);
    assertThat(result.undelivered().get(0).reason())
        .startsWith("PutMetricData could not reach CloudWatch after 3 attempt(s)");
    assertThat(sleeps).containsExactly(Duration.ofMillis(100), Duration.ofMillis(200));
  }

  @Test
  void throttlingIsRetriedWithBackoffUntilAccepted() throws IOException {
    URI endpoint = fakeCloudWatch(2, 200, OK);
    PublishResult result = publisher(endpoint, 4, 1000).publish(datums(3));

    assertThat(result.complete()).isTrue();
    assertThat(result.sent()).isEqualTo(3);
    assertThat(result.requests()).isEqualTo(3);
    assertThat(sleeps).containsExactly(Duration.ofMillis(100), Duration.ofMillis(200));
  }

  @Test
  void persistentThrottlingIsReportedNotThrown() throws IOException {
    URI endpoint = fakeCloudWatch(Integer.MAX_VALUE, 200, OK);
    PublishResult result = publisher(endpoint, 3, 1000).publish(datums(2));

    assertThat(result.sent()).isZero();
    assertThat(result.undelivered())
        .extracting(PublishResult.Undelivered::reason)
        .containsOnly("PutMetricData failed: Throttling (HTTP 400) after 3 attempt(s)");
  }

  @Test
  void aRejectedRequestIsNotRetried() throws IOException {
    URI endpoint = fakeCloudWatch(0, 400, INVALID);
    PublishResult result = publisher(endpoint, 4, 1000).publish(datums(2));

    assertThat(result.requests()).isEqualTo(1);
    assertThat(result.undelivered())
        .extracting(PublishResult.Undelivered::reason)
        .containsOnly("PutMetricData failed: InvalidParameterValue (HTTP 400)");
  }

  @Test
  void largePublishesAreSplitWithinTheRequestLimit() throws IOException {
    URI endpoint = fakeCloudWatch(0, 200, OK);
    PublishResult result = publisher(endpoint, 1, 1000).publish(datums(2500));

    assertThat(result.sent()).isEqualTo(2500);
    assertThat(datumsPerRequest).containsExactly(1000, 1000, 500);
  }
}
