package io.tidemark.reconcile.metrics;

import io.micrometer.cloudwatch2.CloudWatchConfig;
import io.micrometer.cloudwatch2.CloudWatchMeterRegistry;
import io.micrometer.core.instrument.Clock;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.tidemark.model.metrics.Datum;
import io.tidemark.model.metrics.Dimension;
import io.tidemark.reconcile.config.TidemarkConfig;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.jboss.logging.Logger;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.nio.netty.NettyNioAsyncHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.cloudwatch.CloudWatchAsyncClient;
import software.amazon.awssdk.services.cloudwatch.CloudWatchAsyncClientBuilder;

/**
 * Publishes each reconciliation's catalogue datapoints as Micrometer gauges named from the
 * catalogue, with the catalogue's dimensions as tags:
 *
 * <ul>
 *   <li>on the application registry (Prometheus at {@code /q/metrics}), each gauge holds the last
 *       value;
 *   <li>on Micrometer's CloudWatch registry, when enabled, each gauge reports a value once and then
 *       nothing (NaN, which the registry skips). The alarms of {@code alerts/} expect one datapoint
 *       per reconciliation: the per-rule alarms ignore missing data to keep their state between
 *       runs, and "reconciliation missing" counts datapoints. A gauge that repeated its last value
 *       every step would hide a reconciler that stopped running.
 * </ul>
 *
 * The CloudWatch registry is kept apart from the application's composite registry, so only
 * catalogue metrics reach CloudWatch.
 */
@io.quarkus.runtime.Startup
@ApplicationScoped
public class MeterPublisher {
  private static final Logger LOG = Logger.getLogger(MeterPublisher.class);

  private final MeterRegistry registry;
  private final CloudWatchMeterRegistry cloudWatch;
  private final Map<MetricHistory.SeriesKey, AtomicReference<Double>> last =
      new ConcurrentHashMap<>();
  private final Map<MetricHistory.SeriesKey, AtomicReference<Double>> pending =
      new ConcurrentHashMap<>();

  public MeterPublisher(MeterRegistry registry, TidemarkConfig config) {
    this.registry = registry;
    this.cloudWatch = config.cloudwatch().enabled() ? cloudWatch(config.cloudwatch()) : null;
  }

  /** Whether the CloudWatch registry is on. */
  public boolean cloudWatchEnabled() {
    return cloudWatch != null;
  }

  /**
   * A gauge of the service itself, outside the catalogue (on the application registry only, never
   * CloudWatch), read whenever the registry is scraped.
   */
  public void serviceGauge(
      String name, String description, String tagKey, String tagValue, Supplier<Number> value) {
    Gauge.builder(name, value)
        .description(description)
        .tag(tagKey, tagValue)
        .strongReference(true)
        .register(registry);
  }

  public void publish(List<Datum> datapoints) {
    for (Datum d : datapoints) {
      MetricHistory.SeriesKey key = new MetricHistory.SeriesKey(d.metric(), d.dimensions());
      last.computeIfAbsent(
              key,
              k -> {
                AtomicReference<Double> holder = new AtomicReference<>(Double.NaN);
                Gauge.builder(k.metric().metricName(), holder, AtomicReference::get)
                    .description(k.metric().description())
                    .tags(tags(k))
                    .strongReference(true)
                    .register(registry);
                return holder;
              })
          .set(d.value());
      if (cloudWatch != null) {
        pending
            .computeIfAbsent(
                key,
                k -> {
                  AtomicReference<Double> holder = new AtomicReference<>(Double.NaN);
                  Gauge.builder(k.metric().metricName(), holder, h -> h.getAndSet(Double.NaN))
                      .baseUnit(k.metric().unit().cloudWatchName())
                      .tags(tags(k))
                      .strongReference(true)
                      .register(cloudWatch);
                  return holder;
                })
            .set(d.value());
      }
    }
  }

  private static List<Tag> tags(MetricHistory.SeriesKey key) {
    List<Tag> tags = new ArrayList<>();
    for (Dimension dim : key.metric().dimensions()) {
      tags.add(Tag.of(dim.cloudWatchName(), key.dimensions().get(dim)));
    }
    return tags;
  }

  private static CloudWatchMeterRegistry cloudWatch(TidemarkConfig.CloudWatch cw) {
    CloudWatchAsyncClientBuilder builder =
        CloudWatchAsyncClient.builder().httpClientBuilder(NettyNioAsyncHttpClient.builder());
    cw.endpoint().ifPresent(builder::endpointOverride);
    cw.region().map(Region::of).ifPresent(builder::region);
    if (cw.accessKeyId().isPresent() && cw.secretAccessKey().isPresent()) {
      builder.credentialsProvider(
          StaticCredentialsProvider.create(
              AwsBasicCredentials.create(cw.accessKeyId().get(), cw.secretAccessKey().get())));
    }
    String namespace = cw.namespace();
    Duration step = cw.step();
    CloudWatchConfig config =
        new CloudWatchConfig() {
          @Override
          public String get(String key) {
            return null;
          }

          @Override
          public String namespace() {
            return namespace;
          }

          @Override
          public Duration step() {
            return step;
          }
        };
    CloudWatchMeterRegistry registry =
        new CloudWatchMeterRegistry(config, Clock.SYSTEM, builder.build());
    registry.config().namingConvention(new CatalogueNamingConvention());
    LOG.infof(
        "Publishing catalogue metrics to CloudWatch namespace %s every %s%s",
        namespace, step, cw.endpoint().map(e -> " at " + e).orElse(""));
    return registry;
  }

  @PreDestroy
  void close() {
    if (cloudWatch != null) {
      // Closing publishes what is pending.
      cloudWatch.close();
    }
  }
}
