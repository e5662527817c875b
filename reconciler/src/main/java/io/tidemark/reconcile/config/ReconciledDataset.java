package io.tidemark.reconcile.config;

import io.tidemark.model.config.CatalogSpec;
import io.tidemark.model.config.DatasetSpec;
import io.tidemark.model.config.RuleSpec;
import io.tidemark.model.report.ReconciliationMode;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * One dataset as the reconciler runs it: the shared data contract, where its catalog is, its rules,
 * its schedule and its engine.
 *
 * @param spec the data contract
 * @param catalog the Iceberg catalog holding the curated table
 * @param rules the rules to evaluate, unique ids
 * @param cron the Quartz cron of the scheduled run, or {@code off}
 * @param engine the engine's name
 * @param scheduleMode the mode of the scheduled run
 * @param futureTolerance how far past a run's start a timestamp change marker may lie and still be
 *     valid; not negative
 * @param unprocessedFileGrace how old a raw file must be before {@code unprocessed_files} expects a
 *     committed batch to have read it; not negative
 */
public record ReconciledDataset(
    DatasetSpec spec,
    CatalogSpec catalog,
    List<RuleSpec> rules,
    String cron,
    String engine,
    ReconciliationMode scheduleMode,
    Duration futureTolerance,
    Duration unprocessedFileGrace) {
  public static final String CRON_OFF = "off";
  public static final ReconciliationMode SCHEDULE_MODE_DEFAULT = ReconciliationMode.FULL;
  public static final Duration FUTURE_TOLERANCE_DEFAULT =
      Duration.parse(TidemarkConfig.FUTURE_TOLERANCE_DEFAULT);
  public static final Duration UNPROCESSED_FILE_GRACE_DEFAULT =
      Duration.parse(TidemarkConfig.UNPROCESSED_FILE_GRACE_DEFAULT);

  public ReconciledDataset {
    Objects.requireNonNull(spec, "spec is null");
    Objects.requireNonNull(catalog, "catalog is null");
    rules = List.copyOf(rules);
    if (rules.stream().map(RuleSpec::id).distinct().count() != rules.size()) {
      throw new IllegalArgumentException(
          "Cannot configure dataset " + spec.name() + ": rule ids are not unique: " + rules);
    }
    Objects.requireNonNull(cron, "cron is null");
    Objects.requireNonNull(engine, "engine is null");
    Objects.requireNonNull(scheduleMode, "scheduleMode is null");
    Objects.requireNonNull(futureTolerance, "futureTolerance is null");
    if (futureTolerance.isNegative()) {
      throw new IllegalArgumentException(
          "Cannot configure dataset "
              + spec.name()
              + ": future tolerance "
              + futureTolerance
              + " is negative");
    }
    Objects.requireNonNull(unprocessedFileGrace, "unprocessedFileGrace is null");
    if (unprocessedFileGrace.isNegative()) {
      throw new IllegalArgumentException(
          "Cannot configure dataset "
              + spec.name()
              + ": unprocessed-file grace "
              + unprocessedFileGrace
              + " is negative");
    }
  }

  /** A dataset with the default schedule mode and future tolerance. */
  public ReconciledDataset(
      DatasetSpec spec, CatalogSpec catalog, List<RuleSpec> rules, String cron, String engine) {
    this(
        spec,
        catalog,
        rules,
        cron,
        engine,
        SCHEDULE_MODE_DEFAULT,
        FUTURE_TOLERANCE_DEFAULT,
        UNPROCESSED_FILE_GRACE_DEFAULT);
  }

  /** A dataset with every default rule, the nightly schedule and the embedded engine. */
  public static ReconciledDataset withDefaults(DatasetSpec spec, CatalogSpec catalog) {
    return new ReconciledDataset(
        spec,
        catalog,
        RuleSpec.defaults(),
        TidemarkConfig.CRON_DEFAULT,
        TidemarkConfig.ENGINE_DEFAULT);
  }

  public String name() {
    return spec.name();
  }

  public boolean scheduled() {
    return !CRON_OFF.equalsIgnoreCase(cron);
  }

  /** The largest sample any rule asks for. */
  public int maxSampleSize() {
    return rules.stream().mapToInt(RuleSpec::sampleSize).max().orElse(RuleSpec.SAMPLE_SIZE_DEFAULT);
  }
}
