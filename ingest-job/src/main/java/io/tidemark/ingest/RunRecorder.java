package io.tidemark.ingest;

import io.tidemark.ingest.config.IngestSettings;
import io.tidemark.model.config.DatasetSpec;
import io.tidemark.model.report.IngestCounts;
import io.tidemark.model.report.IngestErrorCode;
import io.tidemark.model.report.IngestRunReport;
import io.tidemark.model.report.IngestStatus;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.storage.StorageLevel;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a run found out, gathered step by step for its report; also the Spark resources (temp views,
 * cached datasets) the run made, so that they are released however it ends.
 */
final class RunRecorder {
  private static final Logger LOG = LoggerFactory.getLogger(IngestJob.class);

  final String runId;
  final Instant startedAt;
  IngestStatus status;
  String batchId;
  String watermarkBefore;
  String watermarkAfter;
  List<String> inputFiles = List.of();
  List<String> quarantinedFiles = List.of();
  List<LocalDate> partitionsListed = List.of();
  List<String> ignoredFolders = List.of();
  Integer listCalls;
  List<String> partitionsRead = List.of();
  Integer filesMissedByLookback;
  long filesDiscovered;
  long filesNew;
  long filesSkipped;
  long filesQuarantined;
  IngestCounts counts;
  Long snapshotId;
  boolean committed;
  final List<String> warnings = new ArrayList<>();
  IngestErrorCode errorCode;
  String error;
  final List<Dataset<Row>> persisted = new ArrayList<>();
  private final List<JavaRDD<Row>> pinned = new ArrayList<>();
  final List<String> views = new ArrayList<>();

  private final IngestSettings settings;
  private final DatasetSpec spec;

  RunRecorder(String runId, Instant startedAt, IngestSettings settings) {
    this.runId = runId;
    this.startedAt = startedAt;
    this.settings = settings;
    this.spec = settings.dataset();
  }

  String view(Dataset<Row> d) {
    String name = "tidemark_" + runId.replaceAll("[^A-Za-z0-9]", "_") + "_" + views.size();
    d.createOrReplaceTempView(name);
    views.add(name);
    return name;
  }

  void alreadyCommitted(long snapshot) {
    status = IngestStatus.ALREADY_COMMITTED;
    snapshotId = snapshot;
    // This run changed nothing: the other run's report accounts for the batch's records.
    counts = IngestCounts.filesOnly(filesDiscovered, 0, filesDiscovered);
    warnings.add("Batch " + batchId + " was committed by another run; this run wrote no data");
  }

  /** Another run holds the table's lease: this run does nothing and says who. */
  void leaseHeld(io.tidemark.ingest.lease.LeaseHolder holder, String location) {
    status = IngestStatus.LEASE_HELD;
    String message =
        "Another run holds the run lease "
            + location
            + ": "
            + holder.describe()
            + "; this run did nothing and leaves the table to it";
    warnings.add(message);
    LOG.info("Run {}: {}", runId, message);
  }

  void fail(IngestErrorCode code, String message, Throwable cause) {
    if (committed) {
      LOG.error("Run {}: batch {} is committed, but then: {}", runId, batchId, message, cause);
      warnings.add("After the commit: " + message);
      return;
    }
    status = code == IngestErrorCode.BATCH_REJECTED ? IngestStatus.REJECTED : IngestStatus.FAILED;
    errorCode = code;
    error = message == null || message.isBlank() ? String.valueOf(cause) : message;
    if (code.type() == IngestErrorCode.Type.INTERNAL) {
      LOG.error("Run {} failed [{}]: {}", runId, code, error, cause);
    } else {
      LOG.error("Run {} failed [{}]: {}", runId, code, error);
    }
  }

  /**
   * Computes {@code d} now and keeps its rows apart from the tables it read. A plain cache would
   * not do: each write the batch makes to a table (the remembered deletes, the curated table's
   * branch) makes Spark drop every cached result that read that table, so the next statement would
   * plan the batch again, scanning the whole curated table each time, and against the tables as
   * just written rather than as planned.
   */
  Dataset<Row> pin(Dataset<Row> d) {
    // Rows kept by an RDD of their own, which Spark's cache of query results knows nothing of; a
    // lost block is recomputed from the plan as it was made (its table snapshots fixed).
    JavaRDD<Row> rows = d.javaRDD().persist(StorageLevel.MEMORY_AND_DISK());
    rows.count();
    pinned.add(rows);
    return d.sparkSession().createDataFrame(rows, d.schema());
  }

  /** Caches {@code d} (columnar, spilling to disk) until the run ends. */
  Dataset<Row> cache(Dataset<Row> d) {
    Dataset<Row> cached = d.persist(StorageLevel.MEMORY_AND_DISK());
    persisted.add(cached);
    return cached;
  }

  void cleanUp(SparkSession spark) {
    for (String v : views) {
      try {
        spark.catalog().dropTempView(v);
      } catch (RuntimeException e) {
        LOG.debug("Cannot drop temp view {}: {}", v, e.toString());
      }
    }
    for (Dataset<Row> d : persisted) {
      d.unpersist(false);
    }
    for (JavaRDD<Row> r : pinned) {
      r.unpersist(false);
    }
  }

  IngestRunReport report(Instant finishedAt) {
    IngestCounts c = counts;
    boolean recordsMeaningful =
        c != null
            && (status == IngestStatus.SUCCEEDED
                || status == IngestStatus.REJECTED
                || status == IngestStatus.ALREADY_COMMITTED);
    if (!recordsMeaningful) {
      // Nothing was read, or nothing this run read was committed: report files only.
      c = IngestCounts.filesOnly(filesDiscovered, filesNew, filesSkipped);
    }
    return IngestRunReport.builder()
        .runId(runId)
        .batchId(batchId)
        .pipeline(spec.pipeline())
        .dataset(spec.name())
        .mode(settings.mode())
        .discoveryMode(settings.discovery())
        .status(status == null ? IngestStatus.FAILED : status)
        .startedAt(startedAt)
        .finishedAt(finishedAt.isBefore(startedAt) ? startedAt : finishedAt)
        .changeMarkerType(spec.changeMarker().type())
        .watermarkBefore(watermarkBefore)
        .watermarkAfter(watermarkAfter)
        .lookback(settings.lookback())
        .inputFiles(inputFiles)
        .quarantinedFiles(quarantinedFiles)
        .counts(c)
        .snapshotId(snapshotId)
        .warnings(warnings)
        .error(errorCode, status == null ? "the run ended without a status" : error)
        .ignoredPartitionFolders(ignoredFolders)
        .discoveryListCalls(listCalls)
        .partitionsRead(partitionsRead)
        .filesMissedByLookback(filesMissedByLookback)
        .build();
  }
}
