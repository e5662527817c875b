package io.tidemark.model.metrics;

import static io.tidemark.model.metrics.Dimension.DATASET;
import static io.tidemark.model.metrics.Dimension.MODE;
import static io.tidemark.model.metrics.Dimension.PIPELINE;
import static io.tidemark.model.metrics.Dimension.RULE;
import static io.tidemark.model.metrics.Emitter.INGEST_JOB;
import static io.tidemark.model.metrics.Emitter.RECONCILER;
import static io.tidemark.model.metrics.MetricUnit.BYTES;
import static io.tidemark.model.metrics.MetricUnit.COUNT;
import static io.tidemark.model.metrics.MetricUnit.NONE;
import static io.tidemark.model.metrics.MetricUnit.SECONDS;

import java.util.List;
import java.util.Optional;

/**
 * The metric catalogue: every metric Tidemark publishes, with its CloudWatch name, unit,
 * dimensions, description and emitter. Dashboards, alarms, the ingest job's publisher and the
 * reconciler's Micrometer meters are all built from this one list.
 */
public enum Metric {
  // ---- ingest job, one datum per run, dimensioned by Pipeline, Dataset and Mode ----
  FILES_DISCOVERED(
      "FilesDiscovered",
      COUNT,
      INGEST_JOB,
      "Raw files listed in the candidate partitions (new + skipped)."),
  FILES_NEW("FilesNew", COUNT, INGEST_JOB, "Discovered files not processed before."),
  FILES_SKIPPED(
      "FilesSkipped", COUNT, INGEST_JOB, "Discovered files skipped because already processed."),
  RECORDS_READ("RecordsRead", COUNT, INGEST_JOB, "Raw rows read from the batch's files."),
  RECORDS_CHANGED(
      "RecordsChanged",
      COUNT,
      INGEST_JOB,
      "Candidate change records in the batch (= written + invalid + superseded)."),
  RECORDS_INSERTED("RecordsInserted", COUNT, INGEST_JOB, "Keys inserted into the curated table."),
  RECORDS_UPDATED("RecordsUpdated", COUNT, INGEST_JOB, "Keys updated in the curated table."),
  RECORDS_DELETED("RecordsDeleted", COUNT, INGEST_JOB, "Keys deleted from the curated table."),
  RECORDS_INVALID(
      "RecordsInvalid",
      COUNT,
      INGEST_JOB,
      "Rows quarantined by validation (rows of bad files too)."),
  RECORDS_SUPERSEDED(
      "RecordsSuperseded",
      COUNT,
      INGEST_JOB,
      "Valid rows collapsed because a newer version of the same key was in the batch."),
  RECORDS_LATE(
      "RecordsLate",
      COUNT,
      INGEST_JOB,
      "Rows of files new to the run whose change marker is older than the watermark before it."),
  RECORDS_WRITTEN(
      "RecordsWritten",
      COUNT,
      INGEST_JOB,
      "Deduplicated rows handed to the MERGE (applied, or ignored by the version guard)."),
  INVALID_RATIO(
      "InvalidRatio", NONE, INGEST_JOB, "RecordsInvalid / RecordsChanged for the run, 0 to 1."),
  WATERMARK_BEFORE(
      "WatermarkBefore",
      NONE,
      INGEST_JOB,
      "Watermark before the run: epoch seconds for timestamps, the value for sequences."),
  WATERMARK_AFTER(
      "WatermarkAfter",
      NONE,
      INGEST_JOB,
      "Watermark after the run: epoch seconds for timestamps, the value for sequences."),
  WATERMARK_LAG(
      "WatermarkLag",
      SECONDS,
      INGEST_JOB,
      "End of the run minus the watermark after it (timestamp markers only)."),
  RUN_DURATION("RunDuration", SECONDS, INGEST_JOB, "Wall-clock duration of the run."),
  RUN_SUCCEEDED(
      "RunSucceeded", COUNT, INGEST_JOB, "1 when a run ended successfully (incl. nothing to do)."),
  RUN_FAILED("RunFailed", COUNT, INGEST_JOB, "1 when a run failed or its batch was rejected."),
  PARTITION_FOLDERS_IGNORED(
      "PartitionFoldersIgnored",
      COUNT,
      INGEST_JOB,
      "Folders under the raw root that are not date partitions (bad date, other case): not read."),
  UNPLACED_ENTRIES(
      "UnplacedEntries",
      COUNT,
      INGEST_JOB,
      "Entries of the raw location the dataset's layout does not place (a folder that is no date,"
          + " a file outside the date folders or not Parquet): read by no run."),
  UNDECLARED_COLUMNS(
      "UndeclaredColumns",
      COUNT,
      INGEST_JOB,
      "Columns of the batch's raw files that the contract does not declare (schema drift): not"
          + " ingested."),
  FILES_MISSED_BY_LOOKBACK(
      "FilesMissedByLookback",
      COUNT,
      INGEST_JOB,
      "Sweep runs only: raw files the sweep read that no committed batch had read (late beyond the"
          + " lookback, in partitions incremental discovery no longer lists)."),

  // ---- reconciler, one datum per reconciliation ----
  RULE_STATUS(
      "RuleStatus",
      NONE,
      RECONCILER,
      "Outcome of one rule: 0 pass, 1 fail (an ERROR also reports 1).",
      RULE),
  RULE_ALERTING(
      "RuleAlerting",
      NONE,
      RECONCILER,
      "1 while the rule fails (or errors) and no acknowledgement holds for what it names; 0"
          + " otherwise. The rule's alarm watches it; RuleStatus stays the outcome.",
      RULE),
  RULE_OBSERVED_VALUE(
      "RuleObservedValue", NONE, RECONCILER, "The value a rule observed, in its own unit.", RULE),
  MISSING_KEYS(
      "MissingKeys",
      COUNT,
      RECONCILER,
      "Keys expected from raw but absent from the curated table."),
  UNEXPECTED_KEYS(
      "UnexpectedKeys",
      COUNT,
      RECONCILER,
      "Keys present in the curated table that raw says should not be (incl. deleted)."),
  DUPLICATE_KEYS("DuplicateKeys", COUNT, RECONCILER, "Keys present more than once in curated."),
  STALE_VERSIONS(
      "StaleVersions", COUNT, RECONCILER, "Keys whose curated change marker is older than raw's."),
  VALUE_MISMATCHES(
      "ValueMismatches",
      COUNT,
      RECONCILER,
      "Keys whose compared columns hash differently in curated and raw."),
  UNPROCESSED_FILES(
      "UnprocessedFiles",
      COUNT,
      RECONCILER,
      "Raw data files older than the grace period that no committed ingest batch read."),
  SCHEMA_DRIFT(
      "SchemaDrift",
      COUNT,
      RECONCILER,
      "Columns raw files carry that the contract does not declare, plus raw files the ingest job"
          + " quarantined whole for a column missing, repeated or of another type (schema_drift's"
          + " observed value)."),
  FOREIGN_COMMITS(
      "ForeignCommits",
      COUNT,
      RECONCILER,
      "Commits on the curated table's main history that no Tidemark run made (foreign_commits's"
          + " observed value)."),
  BROKEN_REFERENCES(
      "BrokenReferences",
      COUNT,
      RECONCILER,
      "Curated rows whose reference names no live key of the dataset it references, summed"
          + " over the dataset's referential_integrity rules (each rule's own count is its"
          + " RuleObservedValue)."),
  AGGREGATE_DEVIATION(
      "AggregateDeviation",
      NONE,
      RECONCILER,
      "The largest difference aggregate_match found between an aggregate of raw's latest versions"
          + " and curated's (aggregate_match's observed value: absolute, in the column's unit, or"
          + " relative to raw's value, as the rule's tolerance says)."),
  VERIFIED_SNAPSHOT_AGE(
      "VerifiedSnapshotAge",
      SECONDS,
      RECONCILER,
      "Seconds from the commit of the last curated snapshot a FULL reconciliation proved (the one"
          + " the verified tag is on) to the reconciliation's end: how old proven data is. Absent"
          + " until a FULL run passes."),
  COUNT_RATIO("CountRatio", NONE, RECONCILER, "Curated row count / expected row count."),
  FRESHNESS_LAG(
      "FreshnessLag",
      SECONDS,
      RECONCILER,
      "Seconds the curated table is behind, as the freshness rule judges it: since the newest"
          + " curated change (timestamp markers), or since the oldest raw file holding a newer"
          + " sequence arrived (sequence markers)."),
  BYTES_SCANNED("BytesScanned", BYTES, RECONCILER, "Bytes the query engine scanned."),
  SCAN_COST(
      "ScanCostUsd",
      NONE,
      RECONCILER,
      "What the query engine charged for the bytes it scanned, in US dollars (Athena's price per"
          + " TB; 0 for the embedded engine)."),
  RECONCILIATION_DURATION(
      "ReconciliationDuration", SECONDS, RECONCILER, "Wall-clock duration of a reconciliation.");

  /** The default CloudWatch namespace. */
  public static final String NAMESPACE_DEFAULT = "Tidemark";

  private final String metricName;
  private final MetricUnit unit;
  private final Emitter emitter;
  private final String description;
  private final List<Dimension> dimensions;

  Metric(String metricName, MetricUnit unit, Emitter emitter, String description) {
    this(metricName, unit, emitter, description, null);
  }

  Metric(String metricName, MetricUnit unit, Emitter emitter, String description, Dimension extra) {
    this.metricName = metricName;
    this.unit = unit;
    this.emitter = emitter;
    this.description = description;
    this.dimensions =
        emitter == INGEST_JOB
            ? List.of(PIPELINE, DATASET, MODE)
            : extra == null ? List.of(PIPELINE, DATASET) : List.of(PIPELINE, DATASET, extra);
  }

  /** The CloudWatch metric name. */
  public String metricName() {
    return metricName;
  }

  public MetricUnit unit() {
    return unit;
  }

  public Emitter emitter() {
    return emitter;
  }

  public String description() {
    return description;
  }

  /** The dimensions every datum of this metric carries, in order. */
  public List<Dimension> dimensions() {
    return dimensions;
  }

  /** Looks a metric up by its CloudWatch name. */
  public static Optional<Metric> byName(String metricName) {
    for (Metric m : values()) {
      if (m.metricName.equals(metricName)) {
        return Optional.of(m);
      }
    }
    return Optional.empty();
  }

  /** The metrics one emitter publishes. */
  public static List<Metric> emittedBy(Emitter emitter) {
    return java.util.Arrays.stream(values()).filter(m -> m.emitter == emitter).toList();
  }
}
