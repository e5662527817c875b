package io.tidemark.model.report;

import io.tidemark.model.config.ChangeMarkerType;
import io.tidemark.model.json.Checks;
import io.tidemark.model.json.InvalidDocumentException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * The record of one ingest run, written as JSON to {@code
 * <state-root>/_runs/dt=YYYY-MM-DD/<run-id>.json} and published as metrics.
 *
 * @param schemaVersion the document's schema version, {@value #SCHEMA_VERSION}
 * @param runId unique per attempt
 * @param batchId deterministic id of the batch (inputs + previous checkpoint); null when there was
 *     no batch
 * @param pipeline the pipeline name
 * @param dataset the dataset name
 * @param mode what the run processed: incremental, full refresh, backfill, quarantine replay or
 *     sweep
 * @param discoveryMode how input was found
 * @param status how the run ended
 * @param startedAt when the run started
 * @param finishedAt when the run ended
 * @param changeMarkerType how watermarks read
 * @param watermarkBefore the checkpoint's watermark before the run; null on bootstrap
 * @param watermarkAfter the watermark the run committed (or would have); null when none
 * @param lookback how far before the watermark discovery looks again
 * @param inputFiles the files the batch read
 * @param quarantinedFiles files quarantined whole, with the reason
 * @param counts what the run counted
 * @param snapshotId the Iceberg snapshot the run committed; null when it committed nothing
 * @param warnings things a person should look at (schema drift, unknown-key deletes)
 * @param errorCode a stable code when the run failed
 * @param error the failure message: what and where
 * @param ignoredPartitionFolders folders under the dataset's raw root that are not {@code
 *     <partition-column>=YYYY-MM-DD} partitions (a bad date, another case), by name: their files
 *     are not read; empty in reports written before the field existed
 * @param discoveryListCalls the listing requests discovery made (on S3, LIST calls, pages
 *     included): what incremental discovery costs; null in reports written before the field existed
 *     and when discovery did not run
 * @param partitionsRead the raw partitions ({@code YYYY-MM-DD}) the batch read files from, in date
 *     order; empty when it read none or the report predates the field
 * @param filesMissedByLookback in a sweep, the files it read that no committed batch had read in
 *     partitions before the incremental runs' window (late beyond the lookback); null in other
 *     modes
 */
public record IngestRunReport(
    int schemaVersion,
    String runId,
    String batchId,
    String pipeline,
    String dataset,
    IngestMode mode,
    DiscoveryMode discoveryMode,
    IngestStatus status,
    Instant startedAt,
    Instant finishedAt,
    ChangeMarkerType changeMarkerType,
    String watermarkBefore,
    String watermarkAfter,
    Duration lookback,
    List<String> inputFiles,
    List<String> quarantinedFiles,
    IngestCounts counts,
    Long snapshotId,
    List<String> warnings,
    String errorCode,
    String error,
    List<String> ignoredPartitionFolders,
    Integer discoveryListCalls,
    List<String> partitionsRead,
    Integer filesMissedByLookback) {

  public static final int SCHEMA_VERSION = 1;

  public IngestRunReport {
    if (schemaVersion != SCHEMA_VERSION) {
      throw new InvalidDocumentException(
          "schemaVersion", schemaVersion, "this reader understands version " + SCHEMA_VERSION);
    }
    Checks.name("runId", runId);
    Checks.name("pipeline", pipeline);
    Checks.name("dataset", dataset);
    Checks.required("mode", mode);
    Checks.required("discoveryMode", discoveryMode);
    Checks.required("status", status);
    Checks.required("startedAt", startedAt);
    Checks.required("finishedAt", finishedAt);
    if (finishedAt.isBefore(startedAt)) {
      throw new InvalidDocumentException(
          "finishedAt", finishedAt, "is before startedAt " + startedAt);
    }
    changeMarkerType = changeMarkerType == null ? ChangeMarkerType.TIMESTAMP : changeMarkerType;
    checkWatermark("watermarkBefore", changeMarkerType, watermarkBefore);
    checkWatermark("watermarkAfter", changeMarkerType, watermarkAfter);
    Checks.required("lookback", lookback);
    if (lookback.isNegative()) {
      throw new InvalidDocumentException("lookback", lookback, "must not be negative");
    }
    inputFiles = inputFiles == null ? List.of() : List.copyOf(inputFiles);
    quarantinedFiles = quarantinedFiles == null ? List.of() : List.copyOf(quarantinedFiles);
    counts = Checks.required("counts", counts);
    warnings = warnings == null ? List.of() : List.copyOf(warnings);
    ignoredPartitionFolders =
        ignoredPartitionFolders == null ? List.of() : List.copyOf(ignoredPartitionFolders);
    if (discoveryListCalls != null && discoveryListCalls < 0) {
      throw new InvalidDocumentException(
          "discoveryListCalls", discoveryListCalls, "must not be negative");
    }
    partitionsRead = partitionsRead == null ? List.of() : List.copyOf(partitionsRead);
    if (filesMissedByLookback != null && filesMissedByLookback < 0) {
      throw new InvalidDocumentException(
          "filesMissedByLookback", filesMissedByLookback, "must not be negative");
    }
    if (!status.successful() && (error == null || error.isBlank())) {
      throw new InvalidDocumentException("error", error, "a " + status + " run must say why");
    }
  }

  /** A report without the partitions read or a sweep's count, as written before those fields. */
  public IngestRunReport(
      int schemaVersion,
      String runId,
      String batchId,
      String pipeline,
      String dataset,
      IngestMode mode,
      DiscoveryMode discoveryMode,
      IngestStatus status,
      Instant startedAt,
      Instant finishedAt,
      ChangeMarkerType changeMarkerType,
      String watermarkBefore,
      String watermarkAfter,
      Duration lookback,
      List<String> inputFiles,
      List<String> quarantinedFiles,
      IngestCounts counts,
      Long snapshotId,
      List<String> warnings,
      String errorCode,
      String error,
      List<String> ignoredPartitionFolders,
      Integer discoveryListCalls) {
    this(
        schemaVersion,
        runId,
        batchId,
        pipeline,
        dataset,
        mode,
        discoveryMode,
        status,
        startedAt,
        finishedAt,
        changeMarkerType,
        watermarkBefore,
        watermarkAfter,
        lookback,
        inputFiles,
        quarantinedFiles,
        counts,
        snapshotId,
        warnings,
        errorCode,
        error,
        ignoredPartitionFolders,
        discoveryListCalls,
        null,
        null);
  }

  /** A report without ignored partition folders or list calls, as written before those fields. */
  public IngestRunReport(
      int schemaVersion,
      String runId,
      String batchId,
      String pipeline,
      String dataset,
      IngestMode mode,
      DiscoveryMode discoveryMode,
      IngestStatus status,
      Instant startedAt,
      Instant finishedAt,
      ChangeMarkerType changeMarkerType,
      String watermarkBefore,
      String watermarkAfter,
      Duration lookback,
      List<String> inputFiles,
      List<String> quarantinedFiles,
      IngestCounts counts,
      Long snapshotId,
      List<String> warnings,
      String errorCode,
      String error) {
    this(
        schemaVersion,
        runId,
        batchId,
        pipeline,
        dataset,
        mode,
        discoveryMode,
        status,
        startedAt,
        finishedAt,
        changeMarkerType,
        watermarkBefore,
        watermarkAfter,
        lookback,
        inputFiles,
        quarantinedFiles,
        counts,
        snapshotId,
        warnings,
        errorCode,
        error,
        List.of(),
        null,
        null,
        null);
  }

  private static void checkWatermark(String field, ChangeMarkerType type, String value) {
    if (value == null) {
      return;
    }
    try {
      type.metricValue(value);
    } catch (IllegalArgumentException e) {
      throw new InvalidDocumentException(field, value, "not a " + type + " watermark");
    }
  }

  /** Wall-clock duration of the run. */
  public Duration duration() {
    return Duration.between(startedAt, finishedAt);
  }
}
