package io.tidemark.reconcile.metrics;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.config.NamingConvention;
import io.tidemark.model.metrics.Metric;

/**
 * Keeps catalogue names exact in CloudWatch: Micrometer's CloudWatch registry names a gauge's datum
 * {@code <name>.value}; for a catalogue metric this convention gives back {@code <name>}.
 */
public final class CatalogueNamingConvention implements NamingConvention {
  static final String GAUGE_SUFFIX = ".value";

  @Override
  public String name(String name, Meter.Type type, String baseUnit) {
    if (name.endsWith(GAUGE_SUFFIX)) {
      String base = name.substring(0, name.length() - GAUGE_SUFFIX.length());
      if (Metric.byName(base).isPresent()) {
        return base;
      }
    }
    return name;
  }
}
