package io.tidemark.model.config;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import io.tidemark.model.json.InvalidDocumentException;
import io.tidemark.model.metrics.Metric;
import java.util.Arrays;
import java.util.Optional;

/**
 * The reconciliation checks. A rule fails when its observed value is greater than its threshold;
 * each kind's default threshold is the strict one.
 */
public enum RuleKind {
  COUNT_MATCH("count_match", 0, Metric.COUNT_RATIO),
  MISSING_KEYS("missing_keys", 0, Metric.MISSING_KEYS),
  UNEXPECTED_KEYS("unexpected_keys", 0, Metric.UNEXPECTED_KEYS),
  DUPLICATE_KEYS("duplicate_keys", 0, Metric.DUPLICATE_KEYS),
  STALE_VERSIONS("stale_versions", 0, Metric.STALE_VERSIONS),
  VALUE_MISMATCHES("value_mismatches", 0, Metric.VALUE_MISMATCHES),
  /** Observed: seconds the newest curated change marker is behind now. Default 36 hours. */
  FRESHNESS("freshness", 36 * 3600, Metric.FRESHNESS_LAG),
  /** Observed: records plus files the run reports in the window do not account for. */
  RUN_ACCOUNTING("run_accounting", 0, null),
  /**
   * Observed: raw data files older than the grace period that no committed batch read (no SUCCEEDED
   * or ALREADY_COMMITTED run report lists them).
   */
  UNPROCESSED_FILES("unprocessed_files", 0, Metric.UNPROCESSED_FILES),
  /**
   * Observed: columns that the job's runs found in raw files but the contract does not declare
   * (from the run reports' {@code undeclaredColumns}), plus raw files the job quarantined whole for
   * a column missing, repeated or of another type: either way their data reach no table.
   */
  SCHEMA_DRIFT("schema_drift", 0, Metric.SCHEMA_DRIFT),
  /**
   * Observed: commits on the curated table's main history that no Tidemark run made (no {@code
   * tidemark.run-id} in the snapshot's summary): someone's UPDATE or DELETE, another engine's
   * write. Compactions ({@code replace} snapshots, which change no row) and commits that add or
   * remove no file are not counted. A WINDOW reconciliation looks at the commits made in its
   * window; a FULL one at main's whole retained history.
   */
  FOREIGN_COMMITS("foreign_commits", 0, Metric.FOREIGN_COMMITS),
  /**
   * Observed: the largest difference, among the configured columns and aggregates (sum, min, max,
   * count distinct, null count), between raw's latest valid live versions and curated's rows of the
   * keys checked: absolute (in the column's unit: days for dates, seconds for timestamps) or
   * relative to raw's value. Not a default rule: declared with the columns it matches.
   */
  AGGREGATE_MATCH("aggregate_match", 0, Metric.AGGREGATE_DEVIATION),
  /**
   * Observed: the rows a query of the contract returns ({@code sql}: offending rows of {@code
   * raw_latest}, {@code raw_versions} and {@code curated}, the same relations on every engine). Not
   * a default rule: declared with its query.
   */
  CUSTOM_SQL("custom_sql", 0, null),
  /**
   * Observed: the curated rows whose {@code columns} (none of them null) name no live key of the
   * curated table of the dataset the rule {@code references}: an order line whose customer is not
   * there. Not a default rule: declared with its columns and the dataset they reference.
   */
  REFERENTIAL_INTEGRITY("referential_integrity", 0, Metric.BROKEN_REFERENCES);

  private final String id;
  private final double defaultThreshold;
  private final Metric metric;

  RuleKind(String id, double defaultThreshold, Metric metric) {
    this.id = id;
    this.defaultThreshold = defaultThreshold;
    this.metric = metric;
  }

  /** The kind's id in config and reports, and the default rule id (CloudWatch {@code Rule}). */
  @JsonValue
  public String id() {
    return id;
  }

  public double defaultThreshold() {
    return defaultThreshold;
  }

  /** The kind-specific metric published beside RuleStatus/RuleObservedValue, if any. */
  public Optional<Metric> metric() {
    return Optional.ofNullable(metric);
  }

  /**
   * Whether a failing result's samples are keys of the dataset; the other kinds sample raw files
   * (unprocessed_files), columns (schema_drift), snapshots (foreign_commits), aggregates
   * (aggregate_match) or nothing.
   */
  public boolean samplesKeys() {
    return switch (this) {
      case COUNT_MATCH,
          MISSING_KEYS,
          UNEXPECTED_KEYS,
          DUPLICATE_KEYS,
          STALE_VERSIONS,
          VALUE_MISMATCHES,
          CUSTOM_SQL,
          REFERENTIAL_INTEGRITY ->
          true;
      case FRESHNESS,
          RUN_ACCOUNTING,
          UNPROCESSED_FILES,
          SCHEMA_DRIFT,
          FOREIGN_COMMITS,
          AGGREGATE_MATCH ->
          false;
    };
  }

  /** Whether a dataset gets the rule when its contract names none: those that need no more. */
  public boolean byDefault() {
    return this != AGGREGATE_MATCH && this != CUSTOM_SQL && this != REFERENTIAL_INTEGRITY;
  }

  @JsonCreator
  public static RuleKind fromId(String id) {
    for (RuleKind k : values()) {
      if (k.id.equals(id) || k.name().equals(id)) {
        return k;
      }
    }
    throw new InvalidDocumentException(
        "kind",
        id,
        "unknown rule kind (known: " + Arrays.stream(values()).map(RuleKind::id).toList() + ")");
  }
}
