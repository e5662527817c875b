package io.tidemark.ingest;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.count;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.max;
import static org.apache.spark.sql.functions.sum;
import static org.apache.spark.sql.functions.when;

import io.tidemark.ingest.checkpoint.BatchIds;
import io.tidemark.ingest.checkpoint.Checkpoint;
import io.tidemark.ingest.checkpoint.CheckpointCodec;
import io.tidemark.ingest.checkpoint.CheckpointLog;
import io.tidemark.ingest.config.Durations;
import io.tidemark.ingest.config.IngestSettings;
import io.tidemark.ingest.config.IngestSpark;
import io.tidemark.ingest.discovery.CommittedFiles;
import io.tidemark.ingest.discovery.Fingerprints;
import io.tidemark.ingest.discovery.PartitionLister;
import io.tidemark.ingest.discovery.RawFile;
import io.tidemark.ingest.lease.LeaseStore;
import io.tidemark.ingest.lease.RunLease;
import io.tidemark.ingest.lease.RunLeases;
import io.tidemark.ingest.merge.Action;
import io.tidemark.ingest.merge.Dedup;
import io.tidemark.ingest.merge.MergePlanner;
import io.tidemark.ingest.merge.OutputTables;
import io.tidemark.ingest.merge.RunBranches;
import io.tidemark.ingest.report.ReportRecovery;
import io.tidemark.ingest.report.RunMetrics;
import io.tidemark.ingest.report.RunReports;
import io.tidemark.ingest.sql.IngestSql;
import io.tidemark.ingest.validate.Cols;
import io.tidemark.ingest.validate.RawReader;
import io.tidemark.ingest.validate.Validation;
import io.tidemark.model.config.ChangeMarkerType;
import io.tidemark.model.config.DatasetSpec;
import io.tidemark.model.json.InvalidDocumentException;
import io.tidemark.model.report.IngestCounts;
import io.tidemark.model.report.IngestErrorCode;
import io.tidemark.model.report.IngestMode;
import io.tidemark.model.report.IngestRunReport;
import io.tidemark.model.report.IngestStatus;
import java.io.IOException;
import java.sql.Timestamp;
import java.time.Clock;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ThreadLocalRandom;
import org.apache.iceberg.Table;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.exceptions.ValidationException;
import org.apache.spark.SparkException;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.StructType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One ingest run: discover new raw files, read and validate them, quarantine what is invalid,
 * deduplicate, and write the batch into the curated Iceberg table (new keys appended, updates and
 * deletes merged) with the checkpoint in the commit that completes it; then write the run report
 * and publish metrics.
 *
 * <p>The commits go through the run's own branch (see {@link RunBranches}): they land on a branch
 * created at the snapshot the batch was planned and counted against, and {@code main} is then
 * fast-forwarded to it. Iceberg refuses the fast-forward atomically when another commit reached
 * {@code main} in between, so a batch is never published on top of a snapshot it was not planned
 * on.
 *
 * <p>The caller owns the {@link SparkSession} (see {@link IngestSpark}); the job only registers the
 * catalog on it. {@link #run()} never throws for a failed run: the outcome carries the report and
 * the exit code. Only a {@link Error} (a simulated crash in tests, or the JVM dying) escapes, and
 * then nothing after the failure point happens, as in a real crash.
 */
public final class IngestJob {
  private static final Logger LOG = LoggerFactory.getLogger(IngestJob.class);
  private static final DateTimeFormatter RUN_ID_TIME =
      DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'").withZone(ZoneOffset.UTC);

  private final SparkSession spark;
  private final IngestSettings settings;
  private final FailurePoints failurePoints;
  private final FailurePoints hooks;
  private final StopRequest stop;
  private RunLease lease;
  private final DatasetSpec spec;
  private final IngestSql sql;

  public IngestJob(SparkSession spark, IngestSettings settings) {
    this(spark, settings, FailurePoints.none());
  }

  public IngestJob(SparkSession spark, IngestSettings settings, FailurePoints failurePoints) {
    this(spark, settings, failurePoints, new StopRequest());
  }

  /**
   * A run that {@code stop} can end early (see {@link StopRequest}): before its batch is published
   * it stops at the next {@link FailurePoint} and reports {@link
   * IngestErrorCode#STOPPED_BY_SIGTERM}; once the batch is published it finishes, and its report
   * says the batch is committed.
   */
  public IngestJob(
      SparkSession spark, IngestSettings settings, FailurePoints failurePoints, StopRequest stop) {
    this.spark = java.util.Objects.requireNonNull(spark, "spark is null");
    this.settings = java.util.Objects.requireNonNull(settings, "settings is null");
    this.failurePoints = java.util.Objects.requireNonNull(failurePoints, "failurePoints is null");
    this.stop = java.util.Objects.requireNonNull(stop, "stop is null");
    // Before writing to its branch and before main is fast-forwarded, a run with a lease renews
    // it: a run whose lease lapsed or was taken over does not commit.
    this.hooks =
        FailurePoints.withBatchId(
            (point, batchId) -> {
              failurePoints.reached(point, batchId);
              if (stop.requested() && point != FailurePoint.AFTER_COMMIT) {
                throw new IngestException(
                    IngestErrorCode.STOPPED_BY_SIGTERM,
                    "Cannot finish batch "
                        + batchId
                        + ": stopped by "
                        + stop.signal()
                        + " at "
                        + point
                        + "; nothing was published to "
                        + settings.curatedSparkName()
                        + " and rerunning is safe");
              }
              if (lease != null
                  && (point == FailurePoint.BEFORE_COMMIT
                      || point == FailurePoint.BEFORE_PUBLISH)) {
                lease.confirm();
              }
            });
    this.spec = settings.dataset();
    this.sql = new IngestSql(settings);
  }

  /** Runs once; see the class comment. */
  public IngestOutcome run() {
    Instant started = settings.clock().instant();
    String runId = settings.runId() != null ? settings.runId() : newRunId(started);
    RunRecorder run = new RunRecorder(runId, started, settings);
    LeaseStore leaseStore = null;
    // A stop cancels the Spark jobs in flight, so that a long step ends early and the run stops.
    stop.onRequest(() -> spark.sparkContext().cancelAllJobs());
    try {
      leaseStore = RunLeases.store(settings).orElse(null);
      if (leaseStore == null || takeLease(run, leaseStore)) {
        execute(run);
      }
    } catch (IngestException e) {
      run.fail(e.code(), e.getMessage(), e);
    } catch (InvalidDocumentException e) {
      run.fail(IngestErrorCode.INVALID_CONFIG, "Cannot run ingest: " + e.getMessage(), e);
    } catch (RunLease.LostException e) {
      run.fail(
          IngestErrorCode.LEASE_LOST,
          "Cannot commit batch " + run.batchId + ": " + e.getMessage() + "; nothing committed",
          e);
    } catch (Exception e) {
      // Exception, not RuntimeException: Spark's Scala code throws checked exceptions
      // (SparkException, AnalysisException) that Java's compiler does not see.
      IngestErrorCode code =
          Causes.has(e, IOException.class)
              ? IngestErrorCode.IO_FAILED
              : IngestErrorCode.INTERNAL_ERROR;
      run.fail(
          code,
          "Cannot ingest dataset "
              + spec.name()
              + " into "
              + settings.curatedSparkName()
              + " (batch "
              + run.batchId
              + "): "
              + e,
          e);
    } catch (Error e) {
      // The run is dying (a crash drill, the JVM out of memory): nothing more happens, the lease
      // is neither renewed nor released and lapses, as when the process is killed.
      if (lease != null) {
        lease.abandon();
      }
      throw e;
    } finally {
      run.cleanUp(spark);
    }
    if (stop.requested()) {
      settleStop(run);
    }
    IngestRunReport report = run.report(settings.clock().instant());
    String location = null;
    int exit = exitCode(report);
    try {
      location = RunReports.write(settings, report, spark.sparkContext().hadoopConfiguration());
      LOG.info("Run {} ended {}; report written to {}", runId, report.status(), location);
    } catch (IOException | RuntimeException e) {
      LOG.error(
          "Run {} ended {} but its report could not be written under {}: {}"
              + " (a committed batch's counts are also in the snapshot summary)",
          runId,
          report.status(),
          settings.stateRoot(),
          e.toString());
      exit = exit == 0 ? 1 : exit;
    } finally {
      // Released after the report is written, so that the next run finds it.
      releaseLease(leaseStore);
    }
    RunMetrics.publish(settings.cloudWatch(), report);
    return new IngestOutcome(report, location, exit, run.partitionsListed);
  }

  /**
   * What a stopped run reports. The truth is the table: a batch published before the stop took
   * effect is committed, and the report says so (with a warning naming the signal), never FAILED; a
   * run that failed because of the stop (at a failure point, or a Spark job the stop cancelled) and
   * whose batch is not on the table reports {@link IngestErrorCode#STOPPED_BY_SIGTERM}. A run that
   * ended on its own before the stop mattered (nothing to do, rejected) keeps its status.
   */
  private void settleStop(RunRecorder run) {
    String signal = stop.signal();
    if (!run.committed && run.status == IngestStatus.FAILED && run.batchId != null) {
      // The stop may have ended the run while its commit landed: look at the table.
      try {
        Table curated = new OutputTables(spark, settings).loadCurated();
        Optional<org.apache.iceberg.Snapshot> landed =
            curated == null ? Optional.empty() : CheckpointLog.findBatch(curated, run.batchId);
        if (landed.isPresent()) {
          run.committed = true;
          run.status = IngestStatus.SUCCEEDED;
          run.snapshotId = landed.get().snapshotId();
          run.warnings.add("Before the stop: " + run.errorCode + ": " + run.error);
          run.errorCode = null;
          run.error = null;
        }
      } catch (RuntimeException e) {
        LOG.warn(
            "Run {}: cannot check whether batch {} landed before {}: {}",
            run.runId,
            run.batchId,
            signal,
            e.toString());
      }
    }
    if (run.committed) {
      if (run.status == null) {
        run.status = IngestStatus.SUCCEEDED;
      }
      String warning =
          "Stopped by "
              + signal
              + " after batch "
              + run.batchId
              + " was committed (snapshot "
              + run.snapshotId
              + "): the batch is on the table, and this report accounts for it";
      LOG.warn("Run {}: {}", run.runId, warning);
      run.warnings.add(warning);
      return;
    }
    if (run.status != IngestStatus.FAILED || run.errorCode == IngestErrorCode.STOPPED_BY_SIGTERM) {
      return;
    }
    // Another failure, most often a Spark job the stop cancelled: the stop is why.
    run.fail(
        IngestErrorCode.STOPPED_BY_SIGTERM,
        "Cannot finish batch "
            + run.batchId
            + ": stopped by "
            + signal
            + "; nothing was published to "
            + settings.curatedSparkName()
            + " and rerunning is safe (the step in progress ended with "
            + run.errorCode
            + ": "
            + run.error
            + ")",
        null);
  }

  /**
   * Takes the table's run lease; false (and the run recorded as {@link IngestStatus#LEASE_HELD})
   * when another run holds it.
   */
  private boolean takeLease(RunRecorder run, LeaseStore store) {
    RunLease.Attempt attempt;
    try {
      attempt =
          RunLease.acquire(
              store,
              run.runId,
              spec.name(),
              spec.curatedTable(),
              hostName(),
              settings.leaseTtl(),
              Clock.systemUTC());
    } catch (RuntimeException e) {
      throw new IngestException(
          IngestErrorCode.IO_FAILED,
          "Cannot take the run lease " + store.location() + " on " + spec.curatedTable() + ": " + e,
          e);
    }
    if (attempt instanceof RunLease.Held held) {
      run.leaseHeld(held.holder(), held.location());
      return false;
    }
    lease = ((RunLease.Taken) attempt).lease();
    return true;
  }

  private void releaseLease(LeaseStore store) {
    if (lease != null) {
      lease.close();
      lease = null;
    }
    if (store != null) {
      store.close();
    }
  }

  private static String hostName() {
    String env = System.getenv("HOSTNAME");
    if (env != null && !env.isBlank()) {
      return env;
    }
    try {
      return java.net.InetAddress.getLocalHost().getHostName();
    } catch (IOException e) {
      return null;
    }
  }

  /** Rebuilds the report of the previous run if it committed and ended before writing it. */
  private void recoverMissingReport(Table curated) {
    try {
      ReportRecovery.recover(curated, settings, spark.sparkContext().hadoopConfiguration());
    } catch (IOException | RuntimeException e) {
      LOG.warn(
          "Cannot check or rebuild the report of the last committed batch under {}: {}",
          settings.stateRoot(),
          e.toString());
    }
  }

  private static int exitCode(IngestRunReport report) {
    return switch (report.status()) {
      case SUCCEEDED, NOTHING_TO_DO, ALREADY_COMMITTED, LEASE_HELD -> 0;
      case REJECTED -> IngestErrorCode.BATCH_REJECTED.exitCode();
      case FAILED -> report.errorCode().exitCode();
    };
  }

  /** The steps of a run; each records what it found on the run. */
  private void execute(RunRecorder run) {
    IngestSpark.register(spark, settings.catalog());
    OutputTables tables = new OutputTables(spark, settings);
    if (settings.mode() == IngestMode.REPLAY_QUARANTINE) {
      // Like any run: first rebuild the report of a predecessor that committed without one (a
      // replay's own commit would hide it from the next run), and make sure its own can be written.
      Table curated = tables.loadCurated();
      if (curated != null) {
        recoverMissingReport(curated);
      }
      if (!settings.operator().dryRun()) {
        checkReportWritable(run);
      }
      new QuarantineReplay(spark, settings, tables, hooks).run(run);
      return;
    }
    LOG.info(
        "Run {}: {} ingest of dataset {} from {} into {} (discovery {}, lookback {})",
        run.runId,
        settings.mode(),
        spec.name(),
        spec.raw().location(),
        settings.curatedSparkName(),
        settings.discovery(),
        settings.lookback());
    Optional<BatchPlan> plan = plan(run, tables);
    if (plan.isEmpty()) {
      return;
    }
    Validated batch = readBatch(run, plan.get(), tables);
    Dataset<Row> planned = planMerge(run, plan.get(), batch, tables);
    checkPolicy(run, batch);
    checkReportWritable(run);
    tables.ensureTables(batch.read().columnTypes());
    CommitOutcome outcome =
        new BatchCommitter(spark, settings, tables, hooks)
            .commit(
                run,
                plan.get(),
                batch.validated().filter(col(Cols.CANDIDATE).and(col(Cols.REASON).isNotNull())),
                batch.problemRows(),
                planned,
                commitProperties(run, plan.get()),
                settings.clock().instant());
    record(run, plan.get(), outcome);
  }

  /**
   * Steps 1 and 2: the checkpoint from the curated table's own history (main's ancestry), then
   * discovery of only the partitions that can hold new files; empty when there is nothing to do.
   */
  private Optional<BatchPlan> plan(RunRecorder run, OutputTables tables) {
    IngestMode mode = settings.mode();
    boolean full = mode == IngestMode.FULL_REFRESH;
    boolean backfill = mode == IngestMode.BACKFILL;
    boolean sweep = mode == IngestMode.SWEEP;
    Table curated = tables.loadCurated();
    if (curated != null && dropLeftoverBranches(tables, curated, run.startedAt)) {
      curated = tables.loadCurated();
    }
    Checkpoint cp = curated == null ? null : CheckpointLog.latest(curated).orElse(null);
    if (curated != null) {
      recoverMissingReport(curated);
    }
    long base = OutputTables.snapshotId(curated);
    if (cp == null && backfill) {
      // Its commit carries no checkpoint: the first incremental run would find data without one.
      throw new IngestException(
          IngestErrorCode.INVALID_CONFIG,
          "Cannot backfill "
              + settings.curatedSparkName()
              + ": the table has no checkpoint yet, and a backfill does not make one; run the job"
              + " without --mode first (its first run loads every raw file), then backfill");
    }
    if (cp == null && !full && OutputTables.hasData(curated)) {
      // Bootstrapping here would re-read every raw file and report it as an initial load.
      throw new IngestException(
          IngestErrorCode.CHECKPOINT_NOT_FOUND,
          "Cannot find Tidemark's checkpoint in the retained history of "
              + settings.curatedSparkName()
              + ": the table has data but no snapshot written by Tidemark (were its snapshots"
              + " expired?). Run with --mode full-refresh to rebuild from raw.");
    }
    if (cp == null) {
      LOG.info(
          "No checkpoint in {}: {}",
          settings.curatedSparkName(),
          full
              ? "full refresh from every raw file"
              : "bootstrap, an initial load of every file under " + spec.raw().location());
    } else {
      LOG.info(
          "Checkpoint: snapshot {}, batch {}, watermark {}, partition {}, {} processed file(s)"
              + " tracked, folded through {}",
          cp.snapshotId(),
          cp.batchId(),
          cp.watermark(),
          cp.partition(),
          cp.processedFileCount(),
          cp.foldedThrough());
      run.watermarkBefore = cp.watermark();
    }

    // 2. Discovery: only the partitions that can hold new files.
    long lookbackDays = Durations.daysCeil(settings.lookback());
    LocalDate from =
        !full && cp != null && cp.partition() != null
            ? cp.partition().minusDays(lookbackDays)
            : null;
    if (from != null && cp.foldedThrough() != null && !from.isAfter(cp.foldedThrough())) {
      // A lookback widened since those partitions were folded: their file lists are gone, so a
      // file there could not be told new from processed. Listing them would read them all again.
      // (The sweep lists every partition anyway; what it finds before here was missed.)
      if (!sweep && !backfill) {
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
        run.warnings.add(warning);
      }
      from = cp.foldedThrough().plusDays(1);
    }
    PartitionLister lister =
        new PartitionLister(
            spark.sparkContext().hadoopConfiguration(),
            spec.raw().location(),
            spec.raw().partitionColumn());
    // Where an incremental run's discovery starts: a sweep counts what it finds before it.
    LocalDate incrementalFrom = from;
    List<RawFile> discovered =
        backfill
            ? lister.filesBetween(settings.operator().from(), settings.operator().to())
            : lister.filesFrom(sweep ? null : from);
    CommittedFiles committed = sweep && cp != null ? committedFiles(curated) : null;
    // A file is identified by size, modification time and content: the store's fingerprint (an S3
    // ETag, from the listing) or a checksum, read only for a file whose size and time match a
    // processed version's and for the files the batch reads (whose stamps the checkpoint keeps).
    Fingerprints fingerprints = new Fingerprints(spark.sparkContext().hadoopConfiguration());
    List<RawFile> newFiles = new ArrayList<>();
    List<RawFile> skippedFiles = new ArrayList<>();
    for (RawFile f : discovered) {
      boolean processed =
          !full
              && !backfill
              && cp != null
              && (cp.isProcessed(f, fingerprints::of)
                  || (committed != null
                      && !cp.processed().containsKey(f.partition())
                      && committed.contains(f, fingerprints::of)));
      if (processed) {
        skippedFiles.add(f);
      } else {
        newFiles.add(fingerprints.of(f)); // its stamp goes into the checkpoint
      }
    }
    if (sweep) {
      List<RawFile> missed =
          cp == null
              ? List.of()
              : newFiles.stream()
                  .filter(f -> incrementalFrom == null || f.partition().isBefore(incrementalFrom))
                  .toList();
      run.filesMissedByLookback = missed.size();
      if (!missed.isEmpty()) {
        String warning =
            "The sweep found "
                + missed.size()
                + " file(s) no committed batch had read in partitions before "
                + incrementalFrom
                + ", where incremental runs no longer look (late beyond the lookback of "
                + lookbackDays
                + " day(s)): "
                + missed.stream().map(f -> f.partition() + "/" + f.name()).limit(20).toList();
        LOG.warn(warning);
        run.warnings.add(warning);
      }
    }
    run.filesDiscovered = discovered.size();
    run.filesNew = newFiles.size();
    run.filesSkipped = skippedFiles.size();
    run.partitionsListed = lister.listedPartitions();
    run.listCalls = lister.listCalls();
    run.ignoredFolders = lister.ignoredFolders().stream().sorted().toList();
    if (!run.ignoredFolders.isEmpty()) {
      run.warnings.add(
          run.ignoredFolders.size()
              + " folder(s) under "
              + lister.root()
              + " are not "
              + spec.raw().partitionColumn()
              + "=YYYY-MM-DD partitions and were not read: "
              + run.ignoredFolders);
    }
    LOG.info(
        "Discovery: listed {} partition(s) {} in {} list call(s); {} file(s) discovered, {} new,"
            + " {} skipped",
        lister.listedPartitions().size(),
        backfill
            ? "from " + settings.operator().from() + " to " + settings.operator().to()
            : from == null || sweep ? "(all)" : "from " + from + " on",
        lister.listCalls(),
        discovered.size(),
        newFiles.size(),
        run.filesSkipped);
    if (newFiles.isEmpty()) {
      run.status = IngestStatus.NOTHING_TO_DO;
      run.watermarkAfter = run.watermarkBefore;
      LOG.info(
          "Nothing to do: {}; nothing committed",
          backfill
              ? "no raw files in partitions "
                  + settings.operator().from()
                  + " to "
                  + settings.operator().to()
              : sweep
                  ? "every raw file is in a committed batch"
                  : "no new raw files" + (cp == null ? "" : " since batch " + cp.batchId()));
      return Optional.empty();
    }
    // A backfill reads every record of its files; a sweep reads the files no batch read.
    boolean watermarkMode =
        mode == IngestMode.INCREMENTAL
            && settings.discovery() == io.tidemark.model.report.DiscoveryMode.WATERMARK;
    List<RawFile> toRead =
        watermarkMode ? discovered.stream().map(fingerprints::of).toList() : newFiles;
    if (fingerprints.filesRead() > 0) {
      LOG.info(
          "Discovery: checksummed {} file(s), {} byte(s), to tell their versions",
          fingerprints.filesRead(),
          fingerprints.bytesRead());
    }
    String batchId =
        BatchIds.of(
            toRead,
            cp == null ? null : cp.batchId(),
            settings.mode(),
            settings.discovery(),
            backfill ? validationRules() : null);
    run.batchId = batchId;
    run.inputFiles = toRead.stream().map(RawFile::path).toList();
    run.partitionsRead =
        toRead.stream().map(f -> f.partition().toString()).distinct().sorted().toList();
    if (!mode.movesCheckpoint() && curated != null) {
      // No checkpoint moves past a backfill, so its rerun plans the same batch: find it.
      Optional<org.apache.iceberg.Snapshot> done = CheckpointLog.findBatch(curated, batchId);
      if (done.isPresent()) {
        LOG.info(
            "Batch {} ({} file(s)) is already on {} as snapshot {}: nothing to do",
            batchId,
            toRead.size(),
            settings.curatedSparkName(),
            done.get().snapshotId());
        run.alreadyCommitted(done.get().snapshotId());
        return Optional.empty();
      }
    }
    LOG.info("Batch {}: reading {} file(s)", batchId, toRead.size());
    return Optional.of(
        new BatchPlan(
            cp, base, full, watermarkMode, lookbackDays, discovered, newFiles, toRead, batchId));
  }

  /**
   * What decides how a batch's records are validated and merged, as text: the contract's columns
   * and the future tolerance (not the clock, which moves with every run).
   */
  private String validationRules() {
    return "keys="
        + spec.keyColumns()
        + ";compared="
        + spec.comparedColumns()
        + ";marker="
        + spec.changeMarker().column()
        + "/"
        + spec.changeMarker().type()
        + ";op="
        + spec.operationColumn()
        + ";future-tolerance="
        + settings.futureTolerance();
  }

  /** The files committed batches read, from the table's history and the run reports. */
  private CommittedFiles committedFiles(Table curated) {
    try {
      CommittedFiles c =
          CommittedFiles.gather(
              curated,
              settings.stateRoot(),
              spec.name(),
              spec.raw().partitionColumn(),
              spark.sparkContext().hadoopConfiguration());
      LOG.info(
          "Sweep: committed files from the history of {} and {} run report(s) under {}",
          settings.curatedSparkName(),
          c.reportsRead(),
          settings.stateRoot());
      return c;
    } catch (IOException e) {
      throw new IngestException(
          IngestErrorCode.IO_FAILED,
          "Cannot sweep: the run reports under "
              + settings.stateRoot()
              + " cannot be listed, so files batches read cannot be told from files none read: "
              + e.getMessage(),
          e);
    }
  }

  /**
   * Step 3: read, apply the schema policy, validate. A file whose footer reads but whose data pages
   * do not fails the whole query only when it runs: find such files then, quarantine them whole,
   * and read the batch again without them.
   */
  private Validated readBatch(RunRecorder run, BatchPlan plan, OutputTables tables) {
    Map<String, DataType> tableTypes = tables.curatedTypes();
    RawReader reader = new RawReader(spark, spec);
    Validated v;
    try {
      v = readAndValidate(run, reader, plan, tableTypes, Map.of());
    } catch (Exception e) {
      if (!Causes.has(e, SparkException.class)) {
        throw e;
      }
      run.cleanUp(spark);
      Map<String, String> unreadable = reader.findUnreadable(plan.toRead());
      if (unreadable.isEmpty()) {
        throw e;
      }
      LOG.warn(
          "Batch {}: {} file(s) have unreadable data; quarantining them and reading again: {}",
          plan.batchId(),
          unreadable.size(),
          unreadable);
      v = readAndValidate(run, reader, plan, tableTypes, unreadable);
    }
    ReadCounts c = v.counts();
    run.warnings.addAll(v.read().warnings());
    run.quarantinedFiles = v.problems().stream().map(RawReader.FileProblem::toString).toList();
    run.filesQuarantined = v.problems().size();
    run.watermarkAfter =
        settings.mode().movesCheckpoint()
            ? maxWatermark(spec.changeMarker().type(), plan.watermarkBefore(), c.maxValidMarker())
            : plan.watermarkBefore();
    LOG.info(
        "Batch {}: read {} record(s), {} candidate change(s), {} invalid {}, {} late; {} file(s)"
            + " quarantined",
        plan.batchId(),
        c.rowsRead(),
        c.changed(),
        c.invalid(),
        v.byReason(),
        c.late(),
        v.problems().size());
    hooks.reached(FailurePoint.AFTER_READ, plan.batchId());
    return v;
  }

  /**
   * Step 4: deduplicate and plan the MERGE against the snapshot the checkpoint was read from, and
   * count what it will do; returns the planned records.
   */
  private Dataset<Row> planMerge(
      RunRecorder run, BatchPlan plan, Validated batch, OutputTables tables) {
    boolean full = plan.fullRefresh();
    long base = plan.baseSnapshot();
    Dataset<Row> latest = batch.validated().filter(col(Dedup.RANK).equalTo(1)).drop(Dedup.RANK);
    Map<String, DataType> types = batch.read().columnTypes();
    String markerColumn = spec.changeMarker().column();
    List<String> keyAndMarker = new ArrayList<>(spec.keyColumns());
    keyAndMarker.add(markerColumn);
    Dataset<Row> current =
        full || base < 0
            ? emptyKeys(types, tables.markerType())
            : spark.sql(sql.curatedAsOf(base)).selectExpr(IngestSql.quoteAll(keyAndMarker));
    Table tombTable = full ? null : tables.load(settings.tombstoneSparkName());
    Dataset<Row> tombstones =
        tombTable == null
            ? emptyKeys(types, tables.markerType())
            : spark
                .table(settings.tombstoneSparkName())
                .selectExpr(IngestSql.quoteAll(keyAndMarker));
    Dataset<Row> withActions =
        MergePlanner.plan(
            latest,
            current,
            tombstones,
            spec.keyColumns(),
            markerColumn,
            batch.counts().changed() <= MergePlanner.BROADCAST_MAX_KEYS);
    // Planned against the curated table, the batch is pinned (the writes to come would make Spark
    // plan it again); a rebuild or a first load reads no curated table and keeps the compact
    // columnar cache, which a pinned copy of every row of a full load is not.
    Dataset<Row> planned = full || base < 0 ? run.cache(withActions) : run.pin(withActions);
    Map<Action, Long> actions = new EnumMap<>(Action.class);
    for (Action a : Action.values()) {
      actions.put(a, 0L);
    }
    for (Row r : planned.groupBy(MergePlanner.ACTION).count().collectAsList()) {
      actions.put(Action.valueOf(r.getString(0)), r.getLong(1));
    }
    long written = actions.values().stream().mapToLong(Long::longValue).sum();
    ReadCounts c = batch.counts();
    IngestCounts counts =
        IngestCounts.builder()
            .filesDiscovered(run.filesDiscovered)
            .filesNew(run.filesNew)
            .filesSkipped(run.filesSkipped)
            .filesQuarantined(batch.problems().size())
            .recordsRead(c.rowsRead())
            .recordsChanged(c.changed())
            .recordsInvalid(c.invalid())
            .recordsSuperseded(c.superseded())
            .recordsWritten(written)
            .recordsInserted(actions.get(Action.INSERTED))
            .recordsUpdated(actions.get(Action.UPDATED))
            .recordsDeleted(actions.get(Action.DELETED))
            .recordsUnchanged(actions.get(Action.UNCHANGED))
            .deletesOfUnknownKeys(actions.get(Action.DELETE_OF_UNKNOWN_KEY))
            .recordsLate(c.late())
            .build();
    run.counts = counts;
    if (!counts.accountingErrors().isEmpty()) {
      throw new IngestException(
          IngestErrorCode.INTERNAL_ERROR,
          "Cannot commit batch "
              + plan.batchId()
              + ": its counts do not add up: "
              + counts.accountingErrors());
    }
    if (counts.deletesOfUnknownKeys() > 0 && !full) {
      run.warnings.add(
          counts.deletesOfUnknownKeys()
              + " delete(s) of keys never seen: neither the table nor its remembered deletes held"
              + " them");
    } else if (counts.deletesOfUnknownKeys() > 0) {
      // A rebuild starts empty: every key whose latest raw version is a delete lands here.
      LOG.info(
          "Full refresh: {} key(s) whose latest version is a delete are left out of the rebuilt"
              + " table and remembered as deleted",
          counts.deletesOfUnknownKeys());
    }
    return planned;
  }

  /** Step 5: the validation policy. */
  private void checkPolicy(RunRecorder run, Validated batch) {
    IngestCounts counts = run.counts;
    if (counts.invalidRatio() > settings.maxInvalidRatio()) {
      throw new IngestException(
          IngestErrorCode.BATCH_REJECTED,
          String.format(
              java.util.Locale.ROOT,
              "Cannot commit batch %s: invalid ratio %.4f (%d of %d candidate records) is above the"
                  + " limit %.4f; by reason %s; quarantined files %s; nothing was committed",
              run.batchId,
              counts.invalidRatio(),
              counts.recordsInvalid(),
              counts.recordsChanged(),
              settings.maxInvalidRatio(),
              batch.byReason(),
              run.quarantinedFiles));
    }
  }

  /** The checkpoint and run properties that the commit carries. */
  private Map<String, String> commitProperties(RunRecorder run, BatchPlan plan) {
    Map<String, String> props = new LinkedHashMap<>();
    if (settings.mode().movesCheckpoint()) {
      Checkpoint next =
          Checkpoint.advance(
              plan.checkpoint(),
              plan.batchId(),
              run.watermarkAfter,
              plan.toRead(),
              plan.lookbackDays());
      props.putAll(CheckpointCodec.encode(next));
      if (settings.mode() == IngestMode.SWEEP) {
        // Files in partitions the new checkpoint folds at once are named nowhere else a crashed
        // run leaves behind: the commit names them, so that a rerun does not read them again.
        Map<String, Map<String, String>> swept = new TreeMap<>();
        for (RawFile f : plan.toRead()) {
          if (!next.processed().containsKey(f.partition())) {
            swept
                .computeIfAbsent(f.partition().toString(), p -> new TreeMap<>())
                .put(f.name(), f.stamp());
          }
        }
        if (!swept.isEmpty()) {
          props.put(CheckpointCodec.SWEPT_FILES, CheckpointCodec.compactJson(swept));
        }
      }
    } else {
      // A batch id for retries and run accounting, the watermark it leaves as it found it; no
      // checkpoint: the next incremental run starts where the last one left off.
      props.put(CheckpointCodec.BATCH_ID, plan.batchId());
      if (run.watermarkAfter != null) {
        props.put(CheckpointCodec.WATERMARK, run.watermarkAfter);
      }
      if (settings.mode() == IngestMode.BACKFILL) {
        props.put(
            CheckpointCodec.BACKFILL_RANGE,
            settings.operator().from() + ".." + settings.operator().to());
      }
    }
    props.put(CheckpointCodec.RUN_ID, run.runId);
    props.put(CheckpointCodec.RUN_STARTED_AT, run.startedAt.toString());
    props.put(CheckpointCodec.MODE, settings.mode().name());
    props.put(CheckpointCodec.COUNTS, CheckpointCodec.compactJson(run.counts));
    return props;
  }

  /** Step 7: say what the commit came to. */
  private void record(RunRecorder run, BatchPlan plan, CommitOutcome outcome) {
    String batchId = plan.batchId();
    if (outcome instanceof CommitOutcome.Committed c) {
      IngestCounts counts = run.counts;
      run.snapshotId = c.snapshotId();
      LOG.info(
          "Committed batch {} as snapshot {} of {}: inserted {}, updated {}, deleted {},"
              + " unchanged {}, deletes of unknown keys {}, superseded {}; watermark {} -> {}",
          batchId,
          c.snapshotId(),
          settings.curatedSparkName(),
          counts.recordsInserted(),
          counts.recordsUpdated(),
          counts.recordsDeleted(),
          counts.recordsUnchanged(),
          counts.deletesOfUnknownKeys(),
          counts.recordsSuperseded(),
          run.watermarkBefore,
          run.watermarkAfter);
      run.status = IngestStatus.SUCCEEDED;
      hooks.reached(FailurePoint.AFTER_COMMIT, batchId);
    } else if (outcome instanceof CommitOutcome.AlreadyCommitted a) {
      LOG.info(
          "Batch {} was committed by another run (snapshot {}): nothing more to do",
          batchId,
          a.snapshotId());
      run.alreadyCommitted(a.snapshotId());
    } else if (outcome instanceof CommitOutcome.Conflict c) {
      throw new IngestException(
          IngestErrorCode.CONCURRENT_COMMIT,
          "Cannot commit batch "
              + batchId
              + " to "
              + settings.curatedSparkName()
              + ": another run committed first: "
              + c.describe()
              + "; nothing of this batch was committed to the curated table and rerunning is"
              + " safe"
              + (c.cause() == null ? "" : " (" + refusal(c.cause()) + ")"),
          c.cause());
    }
  }

  /** Iceberg's own words for a refused commit, without the layers Spark wraps around them. */
  private static String refusal(Throwable e) {
    Throwable t = e;
    while (t.getCause() != null && t.getCause() != t) {
      if (t instanceof ValidationException || t instanceof CommitFailedException) {
        break;
      }
      t = t.getCause();
    }
    return t.getClass().getSimpleName() + ": " + t.getMessage();
  }

  /** What reading and validating a batch found, counted in one pass over the batch. */
  private record Validated(
      RawReader.Result read,
      List<RawReader.FileProblem> problems,
      Dataset<Row> problemRows,
      Dataset<Row> validated,
      ReadCounts counts,
      Map<String, Long> byReason) {}

  /**
   * The batch's record counts, by name.
   *
   * @param maxValidMarker the highest change marker of a valid candidate record; null when none
   */
  private record ReadCounts(
      long rowsRead,
      long changed,
      long invalid,
      long late,
      long superseded,
      Object maxValidMarker) {
    static final String ROWS = "rows";
    static final String CANDIDATES = "candidates";
    static final String INVALID = "invalid";
    static final String LATE = "late";
    static final String MAX_VALID_MARKER = "max_valid_marker";
    static final String SUPERSEDED = "superseded";

    /** From the one-row aggregate over the validated batch, plus rows of quarantined files. */
    static ReadCounts of(Row agg, long problemRecords) {
      return new ReadCounts(
          count(agg, ROWS) + problemRecords,
          count(agg, CANDIDATES) + problemRecords,
          count(agg, INVALID) + problemRecords,
          count(agg, LATE),
          count(agg, SUPERSEDED),
          agg.getAs(MAX_VALID_MARKER));
    }

    private static long count(Row r, String name) {
      Object v = r.getAs(name);
      return v == null ? 0 : ((Number) v).longValue();
    }
  }

  private Validated readAndValidate(
      RunRecorder run,
      RawReader reader,
      BatchPlan plan,
      Map<String, DataType> tableTypes,
      Map<String, String> unreadable) {
    Set<String> newPaths = plan.newPaths();
    Checkpoint cp = plan.checkpoint();
    boolean watermarkMode = plan.watermarkMode();
    boolean full = plan.fullRefresh();
    RawReader.Result read = reader.read(plan.toRead(), newPaths, tableTypes, unreadable);
    List<RawReader.FileProblem> problems =
        read.problems().stream().filter(p -> newPaths.contains(p.file().path())).toList();
    Dataset<Row> problemRows =
        read.problemRows() == null
            ? null
            : read.problemRows().filter(col("source_file").isin(newPaths.toArray()));
    ChangeMarkerType markerType = spec.changeMarker().type();
    Column futureLimit =
        markerType == ChangeMarkerType.TIMESTAMP
            ? lit(Timestamp.from(settings.clock().instant().plus(settings.futureTolerance())))
            : null;
    Dataset<Row> rows =
        read.rows() != null
            ? read.rows()
            : RawReader.emptyNormalized(spark, spec, read.columnTypes());
    if (rows == null) {
      throw new IngestException(
          IngestErrorCode.TABLE_MISMATCH,
          "Cannot ingest batch "
              + run.batchId
              + ": no raw file conforms to the contract and the table "
              + settings.curatedSparkName()
              + " does not exist yet, so the column types are unknown; quarantined files: "
              + problems.stream().map(RawReader.FileProblem::toString).toList());
    }
    Column invalid = col(Cols.REASON).isNotNull();
    Column candidate = lit(true);
    if (watermarkMode && cp != null && cp.watermark() != null) {
      Object low =
          markerType == ChangeMarkerType.TIMESTAMP
              ? Timestamp.from(Instant.parse(cp.watermark()).minus(settings.lookback()))
              : Long.parseLong(cp.watermark());
      candidate =
          invalid
              .and(col(Cols.NEW_FILE))
              .or(org.apache.spark.sql.functions.not(invalid).and(col(Cols.MARKER).gt(lit(low))));
    }
    Column isCandidate = col(Cols.CANDIDATE);
    Column validCandidate = isCandidate.and(col(Cols.REASON).isNull());
    // Ranked here, so that the versions the dedup collapses are counted in the pass below rather
    // than inferred from the other counts (which would make the accounting identities vacuous).
    Dataset<Row> validated =
        run.cache(
            Dedup.rank(
                Validation.classify(rows, spec.keyColumns(), futureLimit)
                    .withColumn(Cols.CANDIDATE, candidate),
                spec.keyColumns(),
                validCandidate));
    // Late: before the watermark and in a file the previous run could not have read. Watermark
    // discovery reads processed files again, and their records before the watermark are no news.
    Column late =
        cp == null || cp.watermark() == null || full
            ? lit(false)
            : col(Cols.MARKER)
                .lt(lit(watermarkValue(markerType, cp.watermark())))
                .and(col(Cols.NEW_FILE));
    Row agg =
        validated
            .agg(
                count(lit(1)).as(ReadCounts.ROWS),
                sum(when(isCandidate, 1).otherwise(0)).as(ReadCounts.CANDIDATES),
                sum(when(isCandidate.and(invalid), 1).otherwise(0)).as(ReadCounts.INVALID),
                sum(when(validCandidate.and(late), 1).otherwise(0)).as(ReadCounts.LATE),
                max(when(validCandidate, col(Cols.MARKER))).as(ReadCounts.MAX_VALID_MARKER),
                sum(when(col(Dedup.RANK).gt(1), 1).otherwise(0)).as(ReadCounts.SUPERSEDED))
            .first();
    long problemRecords =
        problemRows == null ? 0 : problemRows.filter(col("row_number").geq(0)).count();
    Map<String, Long> byReason = new TreeMap<>();
    for (Row r :
        validated.filter(isCandidate.and(invalid)).groupBy(Cols.REASON).count().collectAsList()) {
      byReason.put(r.getString(0), r.getLong(1));
    }
    if (problemRows != null) {
      for (Row r : problemRows.groupBy("reason").count().collectAsList()) {
        byReason.merge(r.getString(0) + "(files)", r.getLong(1), Long::sum);
      }
    }
    return new Validated(
        read, problems, problemRows, validated, ReadCounts.of(agg, problemRecords), byReason);
  }

  /**
   * A committed batch whose report cannot be written leaves data and reports disagreeing, and every
   * rerun finds the batch committed: find out before committing, while a rerun still repairs all.
   */
  private void checkReportWritable(RunRecorder run) {
    try {
      RunReports.checkWritable(
          settings.stateRoot(),
          run.startedAt.atZone(ZoneOffset.UTC).toLocalDate(),
          run.runId,
          spark.sparkContext().hadoopConfiguration());
    } catch (IOException | RuntimeException e) {
      throw new IngestException(
          IngestErrorCode.IO_FAILED,
          "Cannot commit batch "
              + run.batchId
              + ": its run report cannot be written under the state root "
              + settings.stateRoot()
              + " ("
              + e.getMessage()
              + "); nothing was committed",
          e);
    }
  }

  /**
   * Drops the run branches that crashed runs left behind (see {@link RunBranches#STALE_AFTER});
   * true when it changed the table's metadata. Failing to drop them never fails the run.
   */
  private boolean dropLeftoverBranches(OutputTables tables, Table t, Instant startedAt) {
    List<String> stale = RunBranches.stale(t.refs(), startedAt);
    if (stale.isEmpty()) {
      return false;
    }
    try {
      RunBranches.drop(tables::loadCurated, stale);
      LOG.info(
          "Dropped {} run branch(es) of {} left by runs that never finished: {}",
          stale.size(),
          settings.curatedSparkName(),
          stale);
    } catch (RuntimeException e) {
      LOG.warn(
          "Cannot drop the run branches {} of {} left by runs that never finished (a later run"
              + " retries): {}",
          stale,
          settings.curatedSparkName(),
          e.toString());
    }
    return true;
  }

  private Dataset<Row> emptyKeys(Map<String, DataType> types, DataType markerType) {
    StructType s = new StructType();
    for (String k : spec.keyColumns()) {
      s = s.add(k, types.get(k));
    }
    s = s.add(spec.changeMarker().column(), markerType);
    return spark.createDataFrame(List.<Row>of(), s);
  }

  private static Object watermarkValue(ChangeMarkerType type, String wm) {
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

  static String newRunId(Instant started) {
    return RUN_ID_TIME.format(started)
        + "-"
        + String.format("%08x", ThreadLocalRandom.current().nextInt());
  }
}
