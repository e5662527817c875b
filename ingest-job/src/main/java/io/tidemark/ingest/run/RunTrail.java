package io.tidemark.ingest.run;

import io.tidemark.ingest.checkpoint.TableState;
import io.tidemark.ingest.config.IngestSettings;
import io.tidemark.ingest.discovery.DiscoveryResult;
import io.tidemark.ingest.kernel.RunLog;
import io.tidemark.ingest.kernel.RunStart;
import io.tidemark.ingest.validate.ValidatedBatch;
import io.tidemark.model.contract.DatasetContract;
import io.tidemark.model.report.IngestCounts;
import io.tidemark.model.report.IngestErrorCode;
import io.tidemark.model.report.IngestRunReport;
import io.tidemark.model.report.IngestStatus;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * What a run reached, stage by stage: the stages' results as the orchestrator received them, from
 * which {@link #report} assembles the run report at the end, however the run ended. Only the
 * orchestrator records here, each result once, in the order the stages ran.
 */
final class RunTrail {
  private final RunStart start;
  private final IngestSettings settings;
  private final List<String> warnings = new ArrayList<>();
  private TableState state;
  private String watermarkAfter;
  private Discovered discovered;
  private BatchIdentity batch = BatchIdentity.NONE;
  private ValidatedBatch validated;
  private IngestCounts counts;
  private boolean landed;
  private Ending ending;
  private Failure failure;
  private io.tidemark.model.report.BatchAudit audit;
  private List<io.tidemark.model.report.TableMaintenance> maintenance = List.of();

  RunTrail(RunStart start, IngestSettings settings) {
    this.start = start;
    this.settings = settings;
  }

  /**
   * What discovery found, as the report tells it.
   *
   * @param result the discovery stage's result
   * @param missedByLookback how many new files a sweep found where incremental runs no longer look;
   *     null for the other modes
   */
  record Discovered(DiscoveryResult result, Integer missedByLookback) {}

  /**
   * The batch a run works on.
   *
   * @param batchId its deterministic id; null until known
   * @param inputFiles the raw files it reads
   * @param partitionsRead the raw partitions they are in, sorted
   */
  record BatchIdentity(String batchId, List<String> inputFiles, List<String> partitionsRead) {
    static final BatchIdentity NONE = new BatchIdentity(null, List.of(), List.of());

    BatchIdentity {
      inputFiles = List.copyOf(inputFiles);
      partitionsRead = List.copyOf(partitionsRead);
    }

    BatchIdentity withBatchId(String id) {
      return new BatchIdentity(id, inputFiles, partitionsRead);
    }
  }

  /** Why the run failed. */
  record Failure(IngestErrorCode code, String message) {}

  RunStart start() {
    return start;
  }

  String runId() {
    return start.runId();
  }

  String batchId() {
    return batch.batchId();
  }

  /** The checkpoint the run starts from; its watermark is the one before the run. */
  void reached(TableState s) {
    this.state = s;
  }

  void watermarkAfter(String watermark) {
    this.watermarkAfter = watermark;
  }

  void reached(Discovered d) {
    this.discovered = d;
  }

  void reached(BatchIdentity b) {
    this.batch = b;
  }

  /** The batch's id, once known (a replay's comes from its records). */
  void identified(String batchId) {
    this.batch = batch.withBatchId(batchId);
  }

  void reached(ValidatedBatch v) {
    this.validated = v;
    warnings.addAll(v.warnings());
  }

  /** The batch's counts, once planned: what a committed or rejected run reports. */
  void counted(IngestCounts c) {
    this.counts = c;
  }

  void warn(String warning) {
    warnings.add(warning);
  }

  void warn(List<String> more) {
    warnings.addAll(more);
  }

  /** A warning that goes before the others: what a dry run would have done. */
  void warnFirst(String warning) {
    warnings.add(0, warning);
  }

  /** The audit of the run's branch (verified publish). */
  void audited(io.tidemark.model.report.BatchAudit a) {
    this.audit = a;
  }

  /** What a maintenance run did, table by table. */
  void maintained(List<io.tidemark.model.report.TableMaintenance> tables) {
    this.maintenance = List.copyOf(tables);
  }

  /** How the run ended, when it did not fail. */
  void ended(Ending e) {
    this.ending = e;
    warnings.addAll(e.warnings());
  }

  /**
   * This run's commit landed: from here on the batch is on the table, whatever happens next, and a
   * failure is only a warning.
   */
  void landed() {
    this.landed = true;
  }

  /** Whether this run's commit landed. */
  boolean committed() {
    return landed;
  }

  Ending ending() {
    return ending;
  }

  Failure failure() {
    return failure;
  }

  /**
   * The run failed; once its batch is committed, a failure is only a warning, since the table holds
   * the truth and the report accounts for the batch.
   */
  void fail(IngestErrorCode code, String message, Throwable cause) {
    if (committed()) {
      RunLog.LOG.error(
          "Run {}: batch {} is committed, but then: {}", runId(), batchId(), message, cause);
      warnings.add("After the commit: " + message);
      return;
    }
    String error = message == null || message.isBlank() ? String.valueOf(cause) : message;
    this.failure = new Failure(code, error);
    if (code.type() == IngestErrorCode.Type.INTERNAL) {
      RunLog.LOG.error("Run {} failed [{}]: {}", runId(), code, error, cause);
    } else {
      RunLog.LOG.error("Run {} failed [{}]: {}", runId(), code, error);
    }
  }

  /** A stopped run whose batch landed after all: committed, and the failure a warning. */
  void landedBeforeTheStop(long snapshotId) {
    warnings.add("Before the stop: " + failure.code() + ": " + failure.message());
    this.failure = null;
    this.landed = true;
    this.ending = Ending.succeeded(snapshotId);
  }

  /** The partitions discovery listed, in order: what the run's discovery cost. */
  List<LocalDate> partitionsListed() {
    return discovered == null ? List.of() : discovered.result().listing().partitionsListed();
  }

  IngestStatus status() {
    if (failure != null) {
      return failure.code() == IngestErrorCode.BATCH_REJECTED
          ? IngestStatus.REJECTED
          : IngestStatus.FAILED;
    }
    return ending == null ? null : ending.status();
  }

  /** The report of the run as it stands, with where its time went ({@code phases}). */
  IngestRunReport report(Instant finishedAt, Map<String, Long> phases) {
    IngestStatus status = status();
    DatasetContract spec = settings.dataset();
    DiscoveryResult d = discovered == null ? null : discovered.result();
    return IngestRunReport.builder()
        .runId(start.runId())
        .batchId(batch.batchId())
        .pipeline(spec.pipeline())
        .dataset(spec.name())
        .mode(settings.mode())
        .discoveryMode(settings.discovery())
        .status(status == null ? IngestStatus.FAILED : status)
        .startedAt(start.startedAt())
        .finishedAt(finishedAt.isBefore(start.startedAt()) ? start.startedAt() : finishedAt)
        .changeMarkerType(spec.changeMarker().type())
        .watermarkBefore(state == null ? null : state.watermark())
        .watermarkAfter(watermarkAfter)
        .lookback(settings.lookback())
        .inputFiles(batch.inputFiles())
        .quarantinedFiles(validated == null ? List.of() : validated.quarantinedFiles())
        .counts(reportedCounts(status, d))
        .snapshotId(ending == null ? null : ending.snapshotId())
        .warnings(warnings)
        .error(
            failure == null ? null : failure.code(),
            status == null
                ? "the run ended without a status"
                : failure == null ? null : failure.message())
        .ignoredPartitionFolders(d == null ? List.of() : d.listing().ignoredFolders())
        .discoveryListCalls(d == null ? null : d.listing().listCalls())
        .partitionsRead(batch.partitionsRead())
        .filesMissedByLookback(discovered == null ? null : discovered.missedByLookback())
        .strayEntries(d == null ? List.of() : d.listing().strayEntries())
        .undeclaredColumns(validated == null ? List.of() : validated.undeclaredColumns())
        .phaseMillis(phases)
        .audit(audit)
        .maintenance(maintenance)
        .build();
  }

  /**
   * The counts a report carries: the batch's, when its records were committed or judged (a rejected
   * batch); otherwise nothing was read, or nothing this run read was committed, and the report
   * counts files only.
   */
  private IngestCounts reportedCounts(IngestStatus status, DiscoveryResult d) {
    if (ending != null && ending.counts() != null) {
      return ending.counts();
    }
    boolean recordsMeaningful =
        counts != null
            && (status == IngestStatus.SUCCEEDED
                || status == IngestStatus.REJECTED
                || status == IngestStatus.ALREADY_COMMITTED);
    if (recordsMeaningful) {
      return counts;
    }
    return d == null
        ? IngestCounts.filesOnly(0, 0, 0)
        : IngestCounts.filesOnly(d.discovered().size(), d.newFiles().size(), d.skipped());
  }
}
