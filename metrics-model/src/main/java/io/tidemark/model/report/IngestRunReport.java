package io.tidemark.model.report;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.tidemark.model.config.ChangeMarkerType;
import io.tidemark.model.json.Checks;
import io.tidemark.model.json.InvalidDocumentException;
import java.time.Duration;
import java.time.Instant;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

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
 * @param errorCode a stable code when the run failed (or was rejected); null otherwise
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
 * @param strayEntries entries of the raw location that the dataset's layout does not place (a
 *     folder that is no date, a file outside the date folders, a file that is not Parquet), each as
 *     {@code path (why)}: read by no run; empty in reports written before the field existed
 * @param undeclaredColumns columns of the batch's raw files that the contract does not declare
 *     (schema drift), each as {@code column (in N file(s))}: not ingested; empty when none
 * @param phaseMillis where the run's time went, in milliseconds, by stage in the order the run
 *     reached them: {@code lease}, {@code select} (the checkpoint and discovery, or the records to
 *     replay), {@code read} (reading and validating the batch), {@code plan} (keeping each key's
 *     latest version, the version guard's lookup in curated, the counts), {@code quarantine},
 *     {@code tombstones} and {@code commit} (the run branch, inserts, MERGE and publish); a stage
 *     the run did not reach is absent, and a stage that failed counts until it failed. Writing the
 *     report itself is not in it. Empty in reports written before the field existed
 * @param audit with verified publish, the reconciler's audit of the run's branch before it was
 *     published (or held); null when the run published without one
 * @param maintenance a maintenance run's work, table by table; empty in other modes
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
    IngestErrorCode errorCode,
    String error,
    List<String> ignoredPartitionFolders,
    Integer discoveryListCalls,
    List<String> partitionsRead,
    Integer filesMissedByLookback,
    List<String> strayEntries,
    List<String> undeclaredColumns,
    Map<String, Long> phaseMillis,
    @JsonInclude(JsonInclude.Include.NON_NULL) BatchAudit audit,
    @JsonInclude(JsonInclude.Include.NON_EMPTY) List<TableMaintenance> maintenance) {

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
    strayEntries = strayEntries == null ? List.of() : List.copyOf(strayEntries);
    undeclaredColumns = undeclaredColumns == null ? List.of() : List.copyOf(undeclaredColumns);
    phaseMillis = phaseMillis(phaseMillis);
    maintenance = maintenance == null ? List.of() : List.copyOf(maintenance);
    if (!status.successful() && (error == null || error.isBlank())) {
      throw new InvalidDocumentException("error", error, "a " + status + " run must say why");
    }
  }

  /** The stages in the order given, each checked: a name and a duration that is not negative. */
  private static Map<String, Long> phaseMillis(Map<String, Long> phases) {
    if (phases == null) {
      return Map.of();
    }
    Map<String, Long> out = new LinkedHashMap<>();
    phases.forEach(
        (name, millis) -> {
          Checks.name("phaseMillis", name);
          if (millis == null || millis < 0) {
            throw new InvalidDocumentException(
                "phaseMillis." + name, millis, "must be a duration in milliseconds, not negative");
          }
          out.put(name, millis);
        });
    return Collections.unmodifiableMap(out);
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

  /** A builder with every field unset (null, empty, or 0), at the current schema version. */
  public static Builder builder() {
    return new Builder();
  }

  /** A builder holding this report's fields. */
  public Builder toBuilder() {
    return new Builder()
        .runId(runId)
        .batchId(batchId)
        .pipeline(pipeline)
        .dataset(dataset)
        .mode(mode)
        .discoveryMode(discoveryMode)
        .status(status)
        .startedAt(startedAt)
        .finishedAt(finishedAt)
        .changeMarkerType(changeMarkerType)
        .watermarkBefore(watermarkBefore)
        .watermarkAfter(watermarkAfter)
        .lookback(lookback)
        .inputFiles(inputFiles)
        .quarantinedFiles(quarantinedFiles)
        .counts(counts)
        .snapshotId(snapshotId)
        .warnings(warnings)
        .errorCode(errorCode)
        .error(error)
        .ignoredPartitionFolders(ignoredPartitionFolders)
        .discoveryListCalls(discoveryListCalls)
        .partitionsRead(partitionsRead)
        .filesMissedByLookback(filesMissedByLookback)
        .strayEntries(strayEntries)
        .undeclaredColumns(undeclaredColumns)
        .phaseMillis(phaseMillis)
        .audit(audit)
        .maintenance(maintenance);
  }

  /** Builds a report field by field; {@link #build()} checks it as reading one from JSON does. */
  public static final class Builder {
    private String runId;
    private String batchId;
    private String pipeline;
    private String dataset;
    private IngestMode mode;
    private DiscoveryMode discoveryMode;
    private IngestStatus status;
    private Instant startedAt;
    private Instant finishedAt;
    private ChangeMarkerType changeMarkerType;
    private String watermarkBefore;
    private String watermarkAfter;
    private Duration lookback;
    private List<String> inputFiles;
    private List<String> quarantinedFiles;
    private IngestCounts counts;
    private Long snapshotId;
    private List<String> warnings;
    private IngestErrorCode errorCode;
    private String error;
    private List<String> ignoredPartitionFolders;
    private Integer discoveryListCalls;
    private List<String> partitionsRead;
    private Integer filesMissedByLookback;
    private List<String> strayEntries;
    private List<String> undeclaredColumns;
    private BatchAudit audit;
    private List<TableMaintenance> maintenance;
    private Map<String, Long> phaseMillis;

    private Builder() {}

    public Builder runId(String v) {
      runId = v;
      return this;
    }

    public Builder batchId(String v) {
      batchId = v;
      return this;
    }

    public Builder pipeline(String v) {
      pipeline = v;
      return this;
    }

    public Builder dataset(String v) {
      dataset = v;
      return this;
    }

    public Builder mode(IngestMode v) {
      mode = v;
      return this;
    }

    public Builder discoveryMode(DiscoveryMode v) {
      discoveryMode = v;
      return this;
    }

    public Builder status(IngestStatus v) {
      status = v;
      return this;
    }

    public Builder startedAt(Instant v) {
      startedAt = v;
      return this;
    }

    public Builder finishedAt(Instant v) {
      finishedAt = v;
      return this;
    }

    public Builder changeMarkerType(ChangeMarkerType v) {
      changeMarkerType = v;
      return this;
    }

    public Builder watermarkBefore(String v) {
      watermarkBefore = v;
      return this;
    }

    public Builder watermarkAfter(String v) {
      watermarkAfter = v;
      return this;
    }

    public Builder lookback(Duration v) {
      lookback = v;
      return this;
    }

    public Builder inputFiles(List<String> v) {
      inputFiles = v;
      return this;
    }

    public Builder quarantinedFiles(List<String> v) {
      quarantinedFiles = v;
      return this;
    }

    public Builder counts(IngestCounts v) {
      counts = v;
      return this;
    }

    public Builder snapshotId(Long v) {
      snapshotId = v;
      return this;
    }

    public Builder warnings(List<String> v) {
      warnings = v;
      return this;
    }

    /** The failure: its code and its message (what and where). */
    public Builder error(IngestErrorCode code, String message) {
      errorCode = code;
      error = message;
      return this;
    }

    public Builder errorCode(IngestErrorCode v) {
      errorCode = v;
      return this;
    }

    public Builder error(String v) {
      error = v;
      return this;
    }

    public Builder ignoredPartitionFolders(List<String> v) {
      ignoredPartitionFolders = v;
      return this;
    }

    public Builder discoveryListCalls(Integer v) {
      discoveryListCalls = v;
      return this;
    }

    public Builder partitionsRead(List<String> v) {
      partitionsRead = v;
      return this;
    }

    public Builder filesMissedByLookback(Integer v) {
      filesMissedByLookback = v;
      return this;
    }

    public Builder strayEntries(List<String> v) {
      strayEntries = v;
      return this;
    }

    public Builder undeclaredColumns(List<String> v) {
      undeclaredColumns = v;
      return this;
    }

    public Builder phaseMillis(Map<String, Long> v) {
      phaseMillis = v;
      return this;
    }

    public Builder audit(BatchAudit v) {
      audit = v;
      return this;
    }

    public Builder maintenance(List<TableMaintenance> v) {
      maintenance = v;
      return this;
    }

    /**
     * The report.
     *
     * @throws InvalidDocumentException naming the first field that is missing or wrong
     */
    public IngestRunReport build() {
      return new IngestRunReport(
          SCHEMA_VERSION,
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
          partitionsRead,
          filesMissedByLookback,
          strayEntries,
          undeclaredColumns,
          phaseMillis,
          audit,
          maintenance);
    }
  }
}
