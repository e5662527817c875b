package io.tidemark.ingest.run;

import static org.apache.spark.sql.functions.lit;

import io.tidemark.ingest.checkpoint.BatchIds;
import io.tidemark.ingest.checkpoint.Checkpoint;
import io.tidemark.ingest.checkpoint.CheckpointCodec;
import io.tidemark.ingest.checkpoint.CheckpointLog;
import io.tidemark.ingest.checkpoint.TableState;
import io.tidemark.ingest.config.Durations;
import io.tidemark.ingest.config.IngestSettings;
import io.tidemark.ingest.discovery.ContractLayout;
import io.tidemark.ingest.discovery.Discovery;
import io.tidemark.ingest.discovery.DiscoveryResult;
import io.tidemark.ingest.discovery.Fingerprints;
import io.tidemark.ingest.discovery.PartitionLister;
import io.tidemark.ingest.discovery.ProcessedFiles;
import io.tidemark.ingest.kernel.Cols;
import io.tidemark.ingest.kernel.IngestException;
import io.tidemark.ingest.kernel.RawFile;
import io.tidemark.ingest.kernel.RunLog;
import io.tidemark.ingest.merge.MergeBasis;
import io.tidemark.ingest.tables.OutputTables;
import io.tidemark.model.config.ChangeMarkerType;
import io.tidemark.model.contract.DatasetContract;
import io.tidemark.model.report.IngestCounts;
import io.tidemark.model.report.IngestErrorCode;
import java.sql.Timestamp;
import java.time.Instant;
import java.time.LocalDate;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.spark.sql.Column;
import org.slf4j.Logger;

/**
 * The selection of the modes that read raw files: reads the checkpoint from the curated table's own
 * history (main's ancestry), discovers the partitions that can hold new files, and chooses the
 * files the batch reads. This class is the incremental run's; each other mode changes what its
 * methods say.
 */
abstract class FileSelection implements Selection {
  static final Logger LOG = RunLog.LOG;

  final RunContext run;
  final IngestSettings settings;
  final DatasetContract spec;
  final long lookbackDays;

  FileSelection(RunContext run) {
    this.run = run;
    this.settings = run.settings();
    this.spec = settings.dataset();
    this.lookbackDays = Durations.daysCeil(settings.lookback());
  }

  /**
   * Which partitions discovery lists.
   *
   * @param from the first partition; null: from the first one
   * @param to the last partition; null: to the last one
   * @param warnings what the choice has to say
   * @param description the range as the log says it
   */
  record Window(LocalDate from, LocalDate to, List<String> warnings, String description) {}

  /** When discovery began listing raw; null before. */
  private Instant listedAt;

  /**
   * Raw as this run found it, for an audit of its branch: the files that had arrived when listing
   * began, or the latest of the batch's files if one arrived (and was listed) later.
   */
  Instant rawArrivedBy(BatchPlan plan) {
    Instant by = listedAt == null ? Instant.now() : listedAt;
    for (RawFile f : plan.toRead()) {
      Instant m = Instant.ofEpochMilli(f.modificationTime());
      if (m.isAfter(by)) {
        by = m;
      }
    }
    return by;
  }

  @Override
  public Choice select() {
    LOG.info(
        "Run {}: {} ingest of dataset {} from {} into {} (discovery {}, lookback {})",
        run.start().runId(),
        settings.mode(),
        spec.name(),
        spec.raw().location(),
        settings.curatedSparkName(),
        settings.discovery(),
        settings.lookback());
    TableState state = startingPoint();
    check(state);
    logCheckpoint(state);
    Window window = window(state);
    run.trail().warn(window.warnings());
    Discovery discovery = discovery();
    // Wall time, not the run's clock: it is compared with the storage's modification times.
    listedAt = Instant.now();
    DiscoveryResult found = discovery.discover(window.from(), window.to(), () -> processed(state));
    discovered(state, window, found);
    if (found.newFiles().isEmpty()) {
      run.trail().watermarkAfter(state.watermark());
      LOG.info("Nothing to do: {}; nothing committed", nothingToDo(state));
      return new Choice.End(Ending.nothingToDo(List.of()));
    }
    BatchPlan plan = plan(state, found, discovery);
    run.trail().reached(plan.identity());
    Optional<Ending> done = committedBefore(plan);
    if (done.isPresent()) {
      return new Choice.End(done.get());
    }
    LOG.info("Batch {}: reading {} file(s)", plan.batchId(), plan.toRead().size());
    return new Choice.Process(new FileBatch(run, this, plan));
  }

  /** The curated table as the run finds it, once crashed runs' branches are gone. */
  private TableState startingPoint() {
    Housekeeping housekeeping = new Housekeeping(run);
    Table curated = run.tables().loadCurated();
    if (curated != null && housekeeping.dropLeftoverBranches(curated)) {
      curated = run.tables().loadCurated();
    }
    TableState state = TableState.of(curated);
    if (curated != null) {
      housekeeping.recoverMissingReport(curated);
    }
    run.trail().reached(state);
    return state;
  }

  /** What must hold before the mode runs. */
  void check(TableState state) {
    if (state.checkpoint() == null && OutputTables.hasData(state.curated())) {
      // Bootstrapping here would re-read every raw file and report it as an initial load.
      throw new IngestException(
          IngestErrorCode.CHECKPOINT_NOT_FOUND,
          "Cannot find Tidemark's checkpoint in the retained history of "
              + settings.curatedSparkName()
              + ": the table has data but neither a snapshot written by Tidemark nor its tag "
              + CheckpointLog.TAG
              + " (were its snapshots expired after the tag was dropped?)."
              + " Run with --mode full-refresh to rebuild from raw.");
    }
  }

  /** What a run without a checkpoint does, for the log. */
  String withoutCheckpoint() {
    return "bootstrap, an initial load of every file under " + spec.raw().location();
  }

  private void logCheckpoint(TableState state) {
    Checkpoint cp = state.checkpoint();
    if (cp == null) {
      LOG.info("No checkpoint in {}: {}", settings.curatedSparkName(), withoutCheckpoint());
      return;
    }
    LOG.info(
        "Checkpoint: snapshot {}, batch {}, watermark {}, partition {}, {} processed file(s)"
            + " tracked, folded through {}",
        cp.snapshotId(),
        cp.batchId(),
        cp.watermark(),
        cp.partition(),
        cp.processedFileCount(),
        cp.foldedThrough());
  }

  /** The partitions to list: from the incremental start on. */
  Window window(TableState state) {
    List<String> warnings = new java.util.ArrayList<>();
    LocalDate from = incrementalFrom(state, warnings);
    return new Window(from, null, warnings, from == null ? "(all)" : "from " + from + " on");
  }

  /**
   * Where an incremental run's discovery starts: the checkpoint's partition minus the lookback, but
   * after the partitions folded into the checkpoint; null to list every partition.
   *
   * @param warnings gets a warning when the lookback reaches into folded partitions; null for none
   */
  LocalDate incrementalFrom(TableState state, List<String> warnings) {
    Checkpoint cp = state.checkpoint();
    LocalDate from =
        cp != null && cp.partition() != null ? cp.partition().minusDays(lookbackDays) : null;
    if (from == null || cp.foldedThrough() == null || from.isAfter(cp.foldedThrough())) {
      return from;
    }
    // A lookback widened since those partitions were folded: their file lists are gone, so a file
    // there could not be told new from processed. Listing them would read them all again.
    if (warnings != null) {
      String warning =
          "A lookback of "
              + lookbackDays
              + " day(s) reaches back to "
              + from
              + ", but partitions through "
              + cp.foldedThrough()
              + " are folded into the checkpoint and not listed again; run --mode sweep to pick"
              + " up files that landed there late";
      LOG.warn(warning);
      warnings.add(warning);
    }
    return cp.foldedThrough().plusDays(1);
  }

  private Discovery discovery() {
    return new Discovery(layout(run.hadoop(), spec), new Fingerprints(run.hadoop()));
  }

  /**
   * The lister of the contract's layout: Hive {@code <column>=YYYY-MM-DD} folders through the
   * {@link PartitionLister} (which lists a local root by name, cheaply), any other layout through
   * the contract's own listing.
   */
  static io.tidemark.ingest.discovery.Layout layout(
      org.apache.hadoop.conf.Configuration conf, DatasetContract spec) {
    String hive = ContractLayout.hiveDayColumn(spec.raw().layout());
    return hive != null
        ? new PartitionLister(conf, spec.raw().location(), hive)
        : new ContractLayout(conf, spec.raw().location(), spec.raw().layout());
  }

  /** The files discovery skips: those the checkpoint lists. */
  ProcessedFiles processed(TableState state) {
    Checkpoint cp = state.checkpoint();
    return cp == null ? ProcessedFiles.NONE : cp::isProcessed;
  }

  /** Records what discovery found, and says it. */
  private void discovered(TableState state, Window window, DiscoveryResult found) {
    Integer missed = missedByLookback(state, found);
    run.trail().warn(found.listing().warnings());
    run.trail().reached(new RunTrail.Discovered(found, missed));
    LOG.info(
        "Discovery: listed {} partition(s) {} in {} list call(s); {} file(s) discovered, {} new,"
            + " {} skipped",
        found.listing().partitionsListed().size(),
        window.description(),
        found.listing().listCalls(),
        found.discovered().size(),
        found.newFiles().size(),
        found.skipped());
  }

  /** How many new files lie where incremental runs no longer look; null: not counted. */
  Integer missedByLookback(TableState state, DiscoveryResult found) {
    return null;
  }

  /** Why there is nothing to do, for the log. */
  String nothingToDo(TableState state) {
    Checkpoint cp = state.checkpoint();
    return "no new raw files" + (cp == null ? "" : " since batch " + cp.batchId());
  }

  private BatchPlan plan(TableState state, DiscoveryResult found, Discovery discovery) {
    List<RawFile> toRead = toRead(found, discovery);
    if (discovery.filesChecksummed() > 0) {
      LOG.info(
          "Discovery: checksummed {} file(s), {} byte(s), to tell their versions",
          discovery.filesChecksummed(),
          discovery.bytesChecksummed());
    }
    Checkpoint cp = state.checkpoint();
    String batchId =
        BatchIds.of(
            toRead,
            cp == null ? null : cp.batchId(),
            settings.mode(),
            settings.discovery(),
            rules());
    return new BatchPlan(state, found, toRead, batchId, lookbackDays);
  }

  /** The files the batch reads: the new ones. */
  List<RawFile> toRead(DiscoveryResult found, Discovery discovery) {
    return found.newFiles();
  }

  /** What decides how the batch's records are judged, for a batch id no checkpoint moves past. */
  String rules() {
    return null;
  }

  /**
   * A batch no checkpoint moves past is planned the same when run again: when it is already on the
   * table, the run ends here.
   */
  private Optional<Ending> committedBefore(BatchPlan plan) {
    Table curated = plan.state().curated();
    if (settings.mode().movesCheckpoint() || curated == null) {
      return Optional.empty();
    }
    Optional<Snapshot> done = CheckpointLog.findBatch(curated, plan.batchId());
    if (done.isEmpty()) {
      return Optional.empty();
    }
    LOG.info(
        "Batch {} ({} file(s)) is already on {} as snapshot {}: nothing to do",
        plan.batchId(),
        plan.toRead().size(),
        settings.curatedSparkName(),
        done.get().snapshotId());
    return Optional.of(alreadyCommitted(plan, done.get().snapshotId()));
  }

  /** Another run committed the batch: this one changed nothing, and counts only the files. */
  static Ending alreadyCommitted(BatchPlan plan, long snapshotId) {
    long discovered = plan.discovery().discovered().size();
    return Ending.alreadyCommitted(
        snapshotId,
        IngestCounts.filesOnly(discovered, 0, discovered),
        "Batch " + plan.batchId() + " was committed by another run; this run wrote no data");
  }

  // How the batch behaves, by mode.

  /** Which records are candidate changes: all of them. */
  Column candidate(TableState state) {
    return lit(true);
  }

  /** Which valid candidates are late: older than the watermark, in files new to the batch. */
  Column late(TableState state) {
    String wm = state.watermark();
    if (wm == null) {
      return lit(false);
    }
    return org.apache
        .spark
        .sql
        .functions
        .col(Cols.MARKER)
        .lt(lit(watermarkValue(spec.changeMarker().type(), wm)))
        .and(org.apache.spark.sql.functions.col(Cols.NEW_FILE));
  }

  /** What the batch is planned against: the table as of the base snapshot. */
  MergeBasis basis(BatchPlan plan) {
    return MergeBasis.of(plan.baseSnapshot(), false);
  }

  /** The watermark the batch leaves: the later of the previous one and its highest marker. */
  String watermarkAfter(BatchPlan plan, Object maxValidMarker) {
    return maxWatermark(spec.changeMarker().type(), plan.state().watermark(), maxValidMarker);
  }

  /** Deletes of keys never seen: a warning. */
  void unknownDeletes(IngestCounts counts) {
    if (counts.deletesOfUnknownKeys() > 0) {
      run.trail()
          .warn(
              counts.deletesOfUnknownKeys()
                  + " delete(s) of keys never seen: neither the table nor its remembered deletes"
                  + " held them");
    }
  }

  /** The checkpoint and run properties that the commit carries. */
  final Map<String, String> commitProperties(
      BatchPlan plan, String watermarkAfter, IngestCounts counts) {
    Map<String, String> props = new LinkedHashMap<>(checkpoint(plan, watermarkAfter));
    props.put(CheckpointCodec.RUN_ID, run.start().runId());
    props.put(CheckpointCodec.RUN_STARTED_AT, run.start().startedAt().toString());
    props.put(CheckpointCodec.MODE, settings.mode().name());
    props.put(CheckpointCodec.COUNTS, CheckpointCodec.compactJson(counts));
    return props;
  }

  /** The new checkpoint, as commit properties. */
  Map<String, String> checkpoint(BatchPlan plan, String watermarkAfter) {
    return CheckpointCodec.encode(next(plan, watermarkAfter));
  }

  /** The checkpoint after the batch. */
  static Checkpoint next(BatchPlan plan, String watermarkAfter) {
    return Checkpoint.advance(
        plan.checkpoint(), plan.batchId(), watermarkAfter, plan.toRead(), plan.lookbackDays());
  }

  static Object watermarkValue(ChangeMarkerType type, String wm) {
    return type == ChangeMarkerType.TIMESTAMP
        ? Timestamp.from(Instant.parse(wm))
        : Long.parseLong(wm);
  }

  /** The later of the previous watermark and the batch's highest valid marker, as text. */
  static String maxWatermark(ChangeMarkerType type, String before, Object batchMax) {
    if (batchMax == null) {
      return before;
    }
    if (type == ChangeMarkerType.TIMESTAMP) {
      Instant m = batchMax instanceof Timestamp ts ? ts.toInstant() : (Instant) batchMax;
      return before == null || m.isAfter(Instant.parse(before)) ? m.toString() : before;
    }
    long m = ((Number) batchMax).longValue();
    return before == null || m > Long.parseLong(before) ? Long.toString(m) : before;
  }
}
