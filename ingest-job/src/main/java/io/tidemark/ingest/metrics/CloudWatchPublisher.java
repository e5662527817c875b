package io.tidemark.ingest.metrics;

import io.tidemark.model.metrics.Datum;
import io.tidemark.model.metrics.Dimension;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.cloudwatch.CloudWatchClient;
import software.amazon.awssdk.services.cloudwatch.model.MetricDatum;
import software.amazon.awssdk.services.cloudwatch.model.PutMetricDataRequest;
import software.amazon.awssdk.services.cloudwatch.model.StandardUnit;

/**
 * Publishes catalogue datums with PutMetricData, for callers without Micrometer (the Spark job).
 *
 * <p>It batches within PutMetricData's limits, validates names and dimensions before sending,
 * retries throttling and transient network failures with exponential backoff, and never throws
 * because metrics could not be sent: {@link #publish} returns what was not delivered, and logs it.
 */
public final class CloudWatchPublisher implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(CloudWatchPublisher.class);

  /** PutMetricData accepts at most 1000 datums per request. */
  public static final int MAX_DATUMS_PER_REQUEST = 1000;

  /** PutMetricData accepts at most 1 MB of request payload; we stay well under it. */
  public static final int MAX_REQUEST_BYTES = 900_000;

  public static final int MAX_DIMENSIONS = 30;
  public static final int MAX_DIMENSION_VALUE_LENGTH = 1024;

  private final CloudWatchClient client;
  private final boolean ownsClient;
  private final Settings settings;
  private final Sleeper sleeper;

  /**
   * Publisher settings.
   *
   * @param namespace the CloudWatch namespace, default {@code Tidemark}
   * @param endpoint an endpoint override (e.g. a local emulator), empty for AWS
   * @param region the AWS region, default from {@code AWS_REGION} or {@code us-east-1}
   * @param credentials credentials, empty for the SDK's default chain
   * @param batchSize datums per request, 1..1000, default 1000
   * @param maxAttempts attempts per request, retries included, default 4
   * @param initialBackoff the first retry's delay, doubled each retry, default 200 ms
   * @param callTimeout one HTTP call's timeout, default 10 s
   */
  public record Settings(
      String namespace,
      Optional<URI> endpoint,
      String region,
      Optional<AwsCredentialsProvider> credentials,
      int batchSize,
      int maxAttempts,
      Duration initialBackoff,
      Duration callTimeout) {

    public static final String NAMESPACE_DEFAULT =
        io.tidemark.model.metrics.Metric.NAMESPACE_DEFAULT;
    public static final int BATCH_SIZE_DEFAULT = MAX_DATUMS_PER_REQUEST;
    public static final int MAX_ATTEMPTS_DEFAULT = 4;
    public static final Duration INITIAL_BACKOFF_DEFAULT = Duration.ofMillis(200);
    public static final Duration CALL_TIMEOUT_DEFAULT = Duration.ofSeconds(10);

    public Settings {
      namespace = namespace == null ? NAMESPACE_DEFAULT : namespace;
      if (namespace.isBlank() || namespace.length() > 255 || namespace.startsWith("AWS/")) {
        throw new IllegalArgumentException(
            "Cannot use CloudWatch namespace '" + namespace + "': 1-255 characters, not AWS/...");
      }
      endpoint = endpoint == null ? Optional.empty() : endpoint;
      region = region == null ? defaultRegion() : region;
      credentials = credentials == null ? Optional.empty() : credentials;
      if (batchSize < 1 || batchSize > MAX_DATUMS_PER_REQUEST) {
        throw new IllegalArgumentException(
            "Cannot use batch size " + batchSize + ": must be 1.." + MAX_DATUMS_PER_REQUEST);
      }
      if (maxAttempts < 1) {
        throw new IllegalArgumentException(
            "Cannot use maxAttempts " + maxAttempts + ": must be >= 1");
      }
      initialBackoff = initialBackoff == null ? INITIAL_BACKOFF_DEFAULT : initialBackoff;
      callTimeout = callTimeout == null ? CALL_TIMEOUT_DEFAULT : callTimeout;
    }

    /** Defaults everywhere: AWS, the default credential chain. */
    public static Settings defaults() {
      return new Settings(
          null, null, null, null, BATCH_SIZE_DEFAULT, MAX_ATTEMPTS_DEFAULT, null, null);
    }

    public Settings withEndpoint(URI uri) {
      return new Settings(
          namespace,
          Optional.of(uri),
          region,
          credentials,
          batchSize,
          maxAttempts,
          initialBackoff,
          callTimeout);
    }

    public Settings withRegion(String r) {
      return new Settings(
          namespace, endpoint, r, credentials, batchSize, maxAttempts, initialBackoff, callTimeout);
    }

    public Settings withNamespace(String ns) {
      return new Settings(
          ns, endpoint, region, credentials, batchSize, maxAttempts, initialBackoff, callTimeout);
    }

    public Settings withStaticCredentials(String accessKeyId, String secretAccessKey) {
      AwsCredentialsProvider p =
          StaticCredentialsProvider.create(
              AwsBasicCredentials.create(accessKeyId, secretAccessKey));
      return new Settings(
          namespace,
          endpoint,
          region,
          Optional.of(p),
          batchSize,
          maxAttempts,
          initialBackoff,
          callTimeout);
    }

    public Settings withRetries(int attempts, Duration backoff) {
      return new Settings(
          namespace, endpoint, region, credentials, batchSize, attempts, backoff, callTimeout);
    }

    public Settings withBatchSize(int size) {
      return new Settings(
          namespace, endpoint, region, credentials, size, maxAttempts, initialBackoff, callTimeout);
    }

    public Settings withCallTimeout(Duration timeout) {
      return new Settings(
          namespace,
          endpoint,
          region,
          credentials,
          batchSize,
          maxAttempts,
          initialBackoff,
          timeout);
    }

    private static String defaultRegion() {
      String r = System.getenv("AWS_REGION");
      return r == null || r.isBlank() ? "us-east-1" : r;
    }
  }

  /** How the publisher waits between retries; tests may pass one that does not sleep. */
  @FunctionalInterface
  public interface Sleeper {
    void sleep(Duration d) throws InterruptedException;
  }

  private CloudWatchPublisher(
      CloudWatchClient client, boolean ownsClient, Settings settings, Sleeper sleeper) {
    this.client = Objects.requireNonNull(client, "client is null");
    this.ownsClient = ownsClient;
    this.settings = Objects.requireNonNull(settings, "settings is null");
    this.sleeper = Objects.requireNonNull(sleeper, "sleeper is null");
  }

  /** A publisher with its own SDK client; the SDK's own retries are off, this class retries. */
  public static CloudWatchPublisher create(Settings settings) {
    var builder =
        CloudWatchClient.builder()
            .region(Region.of(settings.region()))
            .httpClientBuilder(
                UrlConnectionHttpClient.builder()
                    .connectionTimeout(settings.callTimeout())
                    .socketTimeout(settings.callTimeout()))
            .overrideConfiguration(
                c ->
                    c.retryStrategy(AwsRetryStrategy.doNotRetry())
                        .apiCallTimeout(settings.callTimeout()))
            .credentialsProvider(
                settings
                    .credentials()
                    .orElseGet(() -> DefaultCredentialsProvider.builder().build()));
    settings.endpoint().ifPresent(builder::endpointOverride);
    return new CloudWatchPublisher(
        builder.build(), true, settings, d -> Thread.sleep(d.toMillis()));
  }

  /** A publisher on a caller's client (the caller closes it). */
  public static CloudWatchPublisher using(
      CloudWatchClient client, Settings settings, Sleeper sleeper) {
    return new CloudWatchPublisher(client, false, settings, sleeper);
  }

  /**
   * Sends the datums. Never throws for delivery problems: invalid datums and batches that failed
   * after every retry come back in {@link PublishResult#undelivered()}.
   */
  public PublishResult publish(List<Datum> datums) {
    List<PublishResult.Undelivered> undelivered = new ArrayList<>();
    List<Datum> valid = new ArrayList<>();
    for (Datum d : datums) {
      Optional<String> problem = problem(d);
      if (problem.isPresent()) {
        undelivered.add(new PublishResult.Undelivered(d, problem.get()));
      } else {
        valid.add(d);
      }
    }
    int sent = 0;
    int requests = 0;
    for (List<Datum> batch : batches(valid)) {
      Attempt attempt = send(batch);
      requests += attempt.requests;
      if (attempt.failure == null) {
        sent += batch.size();
      } else {
        for (Datum d : batch) {
          undelivered.add(new PublishResult.Undelivered(d, attempt.failure));
        }
      }
    }
    if (!undelivered.isEmpty()) {
      LOG.warn(
          "CloudWatch: {} of {} datums not delivered to namespace {}; first reason: {}",
          undelivered.size(),
          datums.size(),
          settings.namespace(),
          undelivered.get(0).reason());
    } else {
      LOG.info("CloudWatch: {} datums delivered to namespace {}", sent, settings.namespace());
    }
    return new PublishResult(sent, undelivered, requests);
  }

  private record Attempt(int requests, String failure) {}

  private Attempt send(List<Datum> batch) {
    PutMetricDataRequest request =
        PutMetricDataRequest.builder()
            .namespace(settings.namespace())
            .metricData(batch.stream().map(CloudWatchPublisher::toSdk).toList())
            .build();
    Duration backoff = settings.initialBackoff();
    String failure = null;
    int attempt = 0;
    while (attempt < settings.maxAttempts()) {
      attempt++;
      try {
        client.putMetricData(request);
        return new Attempt(attempt, null);
      } catch (AwsServiceException e) {
        boolean throttled =
            e.isThrottlingException() || e.statusCode() == 429 || e.statusCode() >= 500;
        failure =
            "PutMetricData failed: "
                + (e.awsErrorDetails() != null
                    ? e.awsErrorDetails().errorCode()
                    : "HTTP " + e.statusCode())
                + " (HTTP "
                + e.statusCode()
                + ")"
                + (throttled ? " after " + attempt + " attempt(s)" : "");
        if (!throttled) {
          return new Attempt(attempt, failure);
        }
      } catch (SdkClientException e) {
        failure =
            "PutMetricData could not reach CloudWatch after "
                + attempt
                + " attempt(s): "
                + e.getMessage();
      } catch (RuntimeException e) {
        return new Attempt(attempt, "PutMetricData failed: " + e);
      }
      if (attempt < settings.maxAttempts()) {
        LOG.debug("CloudWatch: retrying in {} ({})", backoff, failure);
        try {
          sleeper.sleep(backoff);
        } catch (InterruptedException ie) {
          Thread.currentThread().interrupt();
          return new Attempt(attempt, failure + "; interrupted while backing off");
        }
        backoff = backoff.multipliedBy(2);
      }
    }
    return new Attempt(attempt, failure);
  }

  /** Splits into requests of at most batchSize datums and at most MAX_REQUEST_BYTES. */
  List<List<Datum>> batches(List<Datum> datums) {
    List<List<Datum>> out = new ArrayList<>();
    List<Datum> current = new ArrayList<>();
    int bytes = 0;
    for (Datum d : datums) {
      int size = estimatedBytes(d);
      if (!current.isEmpty()
          && (current.size() >= settings.batchSize() || bytes + size > MAX_REQUEST_BYTES)) {
        out.add(current);
        current = new ArrayList<>();
        bytes = 0;
      }
      current.add(d);
      bytes += size;
    }
    if (!current.isEmpty()) {
      out.add(current);
    }
    return out;
  }

  private static int estimatedBytes(Datum d) {
    int size = 200 + d.metric().metricName().length();
    for (Map.Entry<Dimension, String> e : d.dimensions().entrySet()) {
      size +=
          80
              + e.getKey().cloudWatchName().length()
              + e.getValue().getBytes(StandardCharsets.UTF_8).length;
    }
    return size;
  }

  /** Why CloudWatch would refuse this datum, if it would. */
  static Optional<String> problem(Datum d) {
    if (!Double.isFinite(d.value())) {
      return Optional.of(
          "value " + d.value() + " of " + d.metric().metricName() + " is not finite");
    }
    if (!d.dimensions().keySet().equals(java.util.Set.copyOf(d.metric().dimensions()))) {
      return Optional.of(
          d.metric().metricName()
              + " takes dimensions "
              + d.metric().dimensions()
              + " but the datum has "
              + d.dimensions().keySet());
    }
    if (d.dimensions().size() > MAX_DIMENSIONS) {
      return Optional.of("more than " + MAX_DIMENSIONS + " dimensions");
    }
    for (Map.Entry<Dimension, String> e : d.dimensions().entrySet()) {
      String v = e.getValue();
      if (v == null || v.isBlank() || v.length() > MAX_DIMENSION_VALUE_LENGTH) {
        return Optional.of(
            "dimension "
                + e.getKey().cloudWatchName()
                + " value '"
                + v
                + "' must be 1-1024 characters");
      }
      if (v.chars().anyMatch(ch -> ch < 0x20 || ch == 0x7f)) {
        return Optional.of(
            "dimension " + e.getKey().cloudWatchName() + " value has control characters");
      }
    }
    return Optional.empty();
  }

  private static MetricDatum toSdk(Datum d) {
    return MetricDatum.builder()
        .metricName(d.metric().metricName())
        .unit(StandardUnit.fromValue(d.metric().unit().cloudWatchName()))
        .value(d.value())
        .timestamp(d.timestamp())
        .dimensions(
            d.dimensions().entrySet().stream()
                .map(
                    e ->
                        software.amazon.awssdk.services.cloudwatch.model.Dimension.builder()
                            .name(e.getKey().cloudWatchName())
                            .value(e.getValue())
                            .build())
                .toList())
        .build();
  }

  @Override
  public void close() {
    if (ownsClient) {
      client.close();
    }
  }
}
