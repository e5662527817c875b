package io.tidemark.reconcile.config;

import io.tidemark.reconcile.engine.athena.AthenaSettings;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.regions.providers.DefaultAwsRegionProviderChain;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * The Athena engine's settings as the configuration gives them ({@code tidemark.athena.*}): read
 * and checked here, so that the service checks them at start-up ({@link ReconcilerSettings}) and
 * the wiring builds the engine from the same values, while the engine knows nothing of config.
 */
public final class AthenaConfig {
  private AthenaConfig() {}

  /**
   * An S3 client with Athena's region and endpoint: the one client setup for what the service reads
   * and writes on S3 (contract files, reports), so both follow the same settings.
   */
  public static S3Client s3Client(TidemarkConfig.Athena a) {
    var b =
        S3Client.builder()
            .credentialsProvider(DefaultCredentialsProvider.builder().build())
            .httpClientBuilder(UrlConnectionHttpClient.builder());
    a.region().ifPresent(r -> b.region(Region.of(r)));
    a.endpoint().ifPresent(e -> b.endpointOverride(e).forcePathStyle(true));
    return b.build();
  }

  /** The validated Athena settings of the configuration. */
  public static AthenaSettings settings(TidemarkConfig.Athena a) {
    String prefix = ReconcilerSettings.PREFIX + "athena.";
    String region =
        a.region()
            .orElseGet(
                () -> {
                  try {
                    return new DefaultAwsRegionProviderChain().getRegion().id();
                  } catch (RuntimeException e) {
                    throw new InvalidConfigException(
                        prefix + "region", null, "is required: no AWS region is configured");
                  }
                });
    String output =
        a.outputLocation()
            .orElseThrow(
                () ->
                    new InvalidConfigException(
                        prefix + "output-location", null, "is required for the athena engine"));
    String database =
        a.database()
            .orElseThrow(
                () ->
                    new InvalidConfigException(
                        prefix + "database", null, "is required for the athena engine"));
    try {
      return new AthenaSettings(
          region,
          a.endpoint(),
          a.workgroup(),
          output,
          a.catalog(),
          database,
          a.queryTimeout(),
          a.pollInitial(),
          a.pollMax(),
          a.maxInFlight(),
          a.maxThrottleRetries());
    } catch (AthenaSettings.InvalidSetting e) {
      throw new InvalidConfigException(prefix + configKey(e.field()), e.value(), e.reason());
    }
  }

  /** The config key of an {@link AthenaSettings} component: {@code maxInFlight} → max-in-flight. */
  static String configKey(String field) {
    if (field.equals("endpointOverride")) {
      return "endpoint";
    }
    return field.replaceAll("([A-Z])", "-$1").toLowerCase(java.util.Locale.ROOT);
  }
}
