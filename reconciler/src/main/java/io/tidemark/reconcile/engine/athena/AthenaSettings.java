package io.tidemark.reconcile.engine.athena;

import java.net.URI;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * How an {@link AthenaQueryRunner} reaches Athena and paces itself. Validated at construction: a
 * bad value fails with a message naming the field.
 *
 * @param region the AWS region, e.g. {@code eu-west-1}
 * @param endpointOverride another endpoint than AWS's (an emulator in tests); empty for AWS
 * @param workgroup the Athena workgroup queries run in
 * @param outputLocation where Athena writes result files: an {@code s3://} URI
 * @param catalog the data catalog of the query context, e.g. {@code AwsDataCatalog}
 * @param database the database of the query context
 * @param queryTimeout how long one query may run before it is stopped ({@code TIMED_OUT})
 * @param pollInitial the first wait between two status polls; also the first throttling backoff
 * @param pollMax the longest wait between two status polls or throttled retries
 * @param maxInFlight how many queries one runner runs at once
 * @param maxThrottleRetries how many times one call is retried when Athena throttles it
 */
public record AthenaSettings(
    String region,
    Optional<URI> endpointOverride,
    String workgroup,
    String outputLocation,
    String catalog,
    String database,
    Duration queryTimeout,
    Duration pollInitial,
    Duration pollMax,
    int maxInFlight,
    int maxThrottleRetries) {
  public static final String CATALOG_DEFAULT = "AwsDataCatalog";
  public static final String WORKGROUP_DEFAULT = "primary";
  public static final Duration QUERY_TIMEOUT_DEFAULT = Duration.ofMinutes(10);
  public static final Duration POLL_INITIAL_DEFAULT = Duration.ofMillis(250);
  public static final Duration POLL_MAX_DEFAULT = Duration.ofSeconds(5);

  /** Athena's default quota of concurrent DML queries is 20-25 per account; leave room. */
  public static final int MAX_IN_FLIGHT_DEFAULT = 4;

  public static final int MAX_THROTTLE_RETRIES_DEFAULT = 5;

  public AthenaSettings {
    requireText(region, "region");
    endpointOverride = Objects.requireNonNullElse(endpointOverride, Optional.empty());
    endpointOverride.ifPresent(
        uri -> {
          if (uri.getScheme() == null || uri.getHost() == null) {
            throw invalid(
                "endpointOverride", uri, "must be an absolute URI such as http://host:port");
          }
        });
    requireText(workgroup, "workgroup");
    requireText(outputLocation, "outputLocation");
    if (!outputLocation.startsWith("s3://") || outputLocation.length() <= "s3://".length()) {
      throw invalid("outputLocation", outputLocation, "must be an s3://bucket/prefix URI");
    }
    requireText(catalog, "catalog");
    requireText(database, "database");
    requirePositive(queryTimeout, "queryTimeout");
    requirePositive(pollInitial, "pollInitial");
    requirePositive(pollMax, "pollMax");
    if (pollMax.compareTo(pollInitial) < 0) {
      throw invalid(
          "pollMax", pollMax, "must not be shorter than pollInitial (" + pollInitial + ")");
    }
    if (maxInFlight < 1) {
      throw invalid("maxInFlight", maxInFlight, "must be at least 1");
    }
    if (maxThrottleRetries < 0) {
      throw invalid("maxThrottleRetries", maxThrottleRetries, "must be 0 or more");
    }
  }

  /** Settings with every default, for a region, workgroup output location and database. */
  public static AthenaSettings of(String region, String outputLocation, String database) {
    return new AthenaSettings(
        region,
        Optional.empty(),
        WORKGROUP_DEFAULT,
        outputLocation,
        CATALOG_DEFAULT,
        database,
        QUERY_TIMEOUT_DEFAULT,
        POLL_INITIAL_DEFAULT,
        POLL_MAX_DEFAULT,
        MAX_IN_FLIGHT_DEFAULT,
        MAX_THROTTLE_RETRIES_DEFAULT);
  }

  /** A copy pointed at another endpoint. */
  public AthenaSettings withEndpointOverride(URI endpoint) {
    return withPacing(
        Optional.of(endpoint), queryTimeout, pollInitial, pollMax, maxInFlight, maxThrottleRetries);
  }

  /** A copy with other timings. */
  public AthenaSettings withTimings(Duration queryTimeout, Duration pollInitial, Duration pollMax) {
    return withPacing(
        endpointOverride, queryTimeout, pollInitial, pollMax, maxInFlight, maxThrottleRetries);
  }

  /** A copy with other limits. */
  public AthenaSettings withLimits(int maxInFlight, int maxThrottleRetries) {
    return withPacing(
        endpointOverride, queryTimeout, pollInitial, pollMax, maxInFlight, maxThrottleRetries);
  }

  /** A copy with the same workgroup, output location and query context, reached and paced anew. */
  private AthenaSettings withPacing(
      Optional<URI> endpoint,
      Duration timeout,
      Duration initial,
      Duration max,
      int inFlight,
      int throttleRetries) {
    return new AthenaSettings(
        region,
        endpoint,
        workgroup,
        outputLocation,
        catalog,
        database,
        timeout,
        initial,
        max,
        inFlight,
        throttleRetries);
  }

  private static void requireText(String value, String field) {
    if (value == null || value.isBlank()) {
      throw invalid(field, value, "must not be blank");
    }
  }

  private static void requirePositive(Duration value, String field) {
    if (value == null || value.isNegative() || value.isZero()) {
      throw invalid(field, value, "must be a positive duration");
    }
  }

  private static InvalidSetting invalid(String field, Object value, String reason) {
    return new InvalidSetting(field, value, reason);
  }

  /** A setting Athena cannot run with; names the record component, its value and why. */
  public static final class InvalidSetting extends IllegalArgumentException {
    private final String field;
    private final transient Object value;
    private final String reason;

    InvalidSetting(String field, Object value, String reason) {
      super(
          "Cannot configure Athena: "
              + field
              + (value == null ? "" : " '" + value + "'")
              + " "
              + reason);
      this.field = field;
      this.value = value;
      this.reason = reason;
    }

    /** The record component, e.g. {@code maxInFlight}. */
    public String field() {
      return field;
    }

    public Object value() {
      return value;
    }

    public String reason() {
      return reason;
    }
  }
}
