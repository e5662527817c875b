package io.tidemark.reconcile.config;

import io.tidemark.reconcile.engine.athena.AthenaSettings;
import software.amazon.awssdk.regions.providers.DefaultAwsRegionProviderChain;

/**
 * The Athena engine's settings as the configuration gives them ({@code tidemark.athena.*}): read
 * and checked here, so that the service checks them at start-up ({@link ReconcilerSettings}) and
 * the wiring builds the engine from the same values, while the engine knows nothing of config.
 */
public final class AthenaConfig {
  private AthenaConfig() {}

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
