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
import io.tidemark.ingest.discovery.PartitionLister;
import io.tidemark.ingest.discovery.RawFile;
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
import io.tidemark.model.report.IngestMode;
import io.tidemark.model.report.IngestRunReport;
import io.tidemark.model.report.IngestStatus;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.sql.Timestamp;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ThreadLocalRandom;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.exceptions.CommitStateUnknownException;
import org.apache.iceberg.exceptions.ValidationException;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.spark.CommitMetadata;
import org.apache.spark.SparkException;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.storage.StorageLevel;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One ingest run: discover new raw files, read and validate them, quarantine what is invalid,
 * deduplicate, and MERGE into the curated Iceberg table with the checkpoint in the same commit;
 * then write the run report and publish metrics.
 *
 * <p>The commit goes through the run's own branch (see {@link RunBranches}): the MERGE lands on a
 * branch created at the snapshot the batch was planned and counted against, and {@code main} is
 * then fast-forwarded to it. Iceberg refuses the fast-forward atomically when another commit
 * reached {@code main} in between, so a batch is never published on top of a snapshot it was not
 * planned on.
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
  private final DatasetSpec spec;
  private final IngestSql sql;

  public IngestJob(SparkSession spark, IngestSettings settings) {
    this(spark, settings, FailurePoints.none());
  }

  public IngestJob(SparkSession spark, IngestSettings settings, FailurePoints failurePoints) {
    this.spark = java.util.Objects.requireNonNull(spark, "spark is null");
    this.settings = java.util.Objects.requireNonNull(settings, "settings is null");
    this.failurePoints = java.util.Objects.requireNonNull(failurePoints, "failurePoints is null");
    this.spec = settings.dataset();
    this.sql = new IngestSql(settings);
  }

  /** Runs once; see the class comment. */
  public IngestOutcome run() {
    Instant started = settings.clock().instant();
    String runId = settings.runId() != null ? settings.runId() : newRunId(started);
    RunRecorder run = new RunRecorder(runId, started, settings);
    try {
      execute(run);
    } catch (IngestException e) {
      run.fail(e.code(), e.getMessage(), e);
    } catch (InvalidDocumentException e) {
      run.fail(ErrorCode.INVALID_CONFIG, "Cannot run ingest: " + e.getMessage(), e);
    } catch (Exception e) {
      // Exception, not RuntimeException: Spark's Scala code throws checked exceptions
      // (SparkException, AnalysisException) that Java's compiler does not see.
      ErrorCode code =
          hasCause(e, IOException.class) ? ErrorCode.IO_FAILED : ErrorCode.INTERNAL_ERROR;
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
    } finally {
      run.cleanUp(spark);
    }
    IngestRunReport report = run.report(settings.clock().instant());
    String location = null;
    int exit = exitCode(report);
    try {
      location =
          RunReports.write(
              settings.stateRoot(), report, spark.sparkContext().hadoopConfiguration());
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
    }
    RunMetrics.publish(settings.cloudWatch(), report);
    return new IngestOutcome(report, location, exit, run.partitionsListed);
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
      case SUCCEEDED, NOTHING_TO_DO, ALREADY_COMMITTED -> 0;
      case REJECTED -> ErrorCode.BATCH_REJECTED.exitCode();
      case FAILED -> ErrorCode.valueOf(report.errorCode()).exitCode();
    };
  }

  private void execute(RunRecorder run) {
    IngestSpark.register(spark, settings.catalog());
    OutputTables tables = new OutputTables(spark, settings);
    boolean full = settings.mode() == IngestMode.FULL_REFRESH;
    String markerColumn = spec.changeMarker().column();
    LOG.info(
        "Run {}: {} ingest of dataset {} from {} into {} (discovery {}, lookback {})",
        run.runId,
        settings.mode(),
        spec.name(),
        spec.raw().location(),
        settings.curatedSparkName(),
        settings.discovery(),
        settings.lookback());

    // 1. Checkpoint, from the curated table's own history (main's ancestry).
    Table curated = tables.loadCurated();
    if (curated != null && dropLeftoverBranches(tables, curated, run.startedAt)) {
      curated = tables.loadCurated();
    }
    Checkpoint cp = curated == null ? null : CheckpointLog.latest(curated).orElse(null);
    if (curated != null) {
      recoverMissingReport(curated);
    }
    long base = snapshotId(curated);
    if (cp == null && !full && hasData(curated)) {
      // Bootstrapping here would re-read every raw file and report it as an initial load.
      throw new IngestException(
          ErrorCode.CHECKPOINT_NOT_FOUND,
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
      String warning =
          "A lookback of "
              + lookbackDays
              + " day(s) reaches back to "
              + from
              + ", but partitions through "
              + cp.foldedThrough()
              + " are folded into the checkpoint and not listed again; run --mode full-refresh"
              + " to pick up files that landed there late";
      LOG.warn(warning);
      run.warnings.add(warning);
      from = cp.foldedThrough().plusDays(1);
    }
    PartitionLister lister =
        new PartitionLister(
            spark.sparkContext().hadoopConfiguration(),
            spec.raw().location(),
            spec.raw().partitionColumn());
    List<RawFile> discovered = lister.filesFrom(from);
    List<RawFile> newFiles = new ArrayList<>();
    List<RawFile> skippedFiles = new ArrayList<>();
    for (RawFile f : discovered) {
      (!full && cp != null && cp.isProcessed(f) ? skippedFiles : newFiles).add(f);
    }
    run.filesDiscovered = discovered.size();
    run.filesNew = newFiles.size();
    run.filesSkipped = skippedFiles.size();
    run.partitionsListed = lister.listedPartitions();
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
        "Discovery: listed {} partition(s) {}; {} file(s) discovered, {} new, {} skipped",
        lister.listedPartitions().size(),
        from == null ? "(all)" : "from " + from + " on",
        discovered.size(),
        newFiles.size(),
        run.filesSkipped);
    if (newFiles.isEmpty()) {
      run.status = IngestStatus.NOTHING_TO_DO;
      run.watermarkAfter = run.watermarkBefore;
      LOG.info(
          "Nothing to do: no new raw files{}; nothing committed",
          cp == null ? "" : " since batch " + cp.batchId());
      return;
    }
    boolean watermarkMode =
        !full && settings.discovery() == io.tidemark.model.report.DiscoveryMode.WATERMARK;
    List<RawFile> toRead = watermarkMode ? discovered : newFiles;
    String batchId =
        BatchIds.of(
            toRead, cp == null ? null : cp.batchId(), settings.mode(), settings.discovery());
    run.batchId = batchId;
    run.inputFiles = toRead.stream().map(RawFile::path).toList();
    Set<String> newPaths = new HashSet<>();
    newFiles.forEach(f -> newPaths.add(f.path()));
    LOG.info("Batch {}: reading {} file(s)", batchId, toRead.size());

    // 3. Read, apply the schema policy, validate. A file whose footer reads but whose data pages do
    // not fails the whole query only when it runs: find such files then, quarantine them whole, and
    // read the batch again without them.
    Map<String, DataType> tableTypes = tables.curatedTypes();
    RawReader reader = new RawReader(spark, spec);
    ChangeMarkerType markerType = spec.changeMarker().type();
    Instant now = settings.clock().instant();
    Validated v;
    try {
      v =
          readAndValidate(
              run, reader, toRead, newPaths, tableTypes, cp, watermarkMode, full, Map.of());
    } catch (Exception e) {
      if (!hasCause(e, SparkException.class)) {
        throw e;
      }
      run.cleanUp(spark);
      Map<String, String> unreadable = reader.findUnreadable(toRead);
      if (unreadable.isEmpty()) {
        throw e;
      }
      LOG.warn(
          "Batch {}: {} file(s) have unreadable data; quarantining them and reading again: {}",
          batchId,
          unreadable.size(),
          unreadable);
      v =
          readAndValidate(
              run, reader, toRead, newPaths, tableTypes, cp, watermarkMode, full, unreadable);
    }
    RawReader.Result read = v.read();
    List<RawReader.FileProblem> problems = v.problems();
    Dataset<Row> problemRows = v.problemRows();
    Dataset<Row> validated = v.validated();
    long rowsRead = v.rowsRead();
    long changed = v.changed();
    long invalidRecords = v.invalid();
    long lateRecords = v.late();
    long supersededRecords = v.superseded();
    Map<String, Long> byReason = v.byReason();
    Column invalid = col(Cols.REASON).isNotNull();
    Column isCandidate = col(Cols.CANDIDATE);
    run.warnings.addAll(read.warnings());
    run.quarantinedFiles = problems.stream().map(RawReader.FileProblem::toString).toList();
    run.filesQuarantined = problems.size();
    run.watermarkAfter =
        maxWatermark(markerType, cp == null ? null : cp.watermark(), v.maxValidMarker());
    LOG.info(
        "Batch {}: read {} record(s), {} candidate change(s), {} invalid {}, {} late; {} file(s)"
            + " quarantined",
        batchId,
        rowsRead,
        changed,
        invalidRecords,
        byReason,
        lateRecords,
        problems.size());
    failurePoints.reached(FailurePoint.AFTER_READ, batchId);

    // 4. Deduplicate and plan the MERGE against the snapshot we read the checkpoint from.
    Dataset<Row> latest = validated.filter(col(Dedup.RANK).equalTo(1)).drop(Dedup.RANK);
    Map<String, DataType> types = read.columnTypes();
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
    Dataset<Row> planned =
        MergePlanner.plan(latest, current, tombstones, spec.keyColumns(), markerColumn)
            .persist(StorageLevel.MEMORY_AND_DISK());
    run.persisted.add(planned);
    Map<Action, Long> actions = new EnumMap<>(Action.class);
    for (Action a : Action.values()) {
      actions.put(a, 0L);
    }
    for (Row r : planned.groupBy(MergePlanner.ACTION).count().collectAsList()) {
      actions.put(Action.valueOf(r.getString(0)), r.getLong(1));
    }
    long written = actions.values().stream().mapToLong(Long::longValue).sum();
    IngestCounts counts =
        new IngestCounts(
            run.filesDiscovered,
            run.filesNew,
            run.filesSkipped,
            problems.size(),
            rowsRead,
            changed,
            invalidRecords,
            supersededRecords,
            written,
            actions.get(Action.INSERTED),
            actions.get(Action.UPDATED),
            actions.get(Action.DELETED),
            actions.get(Action.UNCHANGED),
            actions.get(Action.DELETE_OF_UNKNOWN_KEY),
            lateRecords);
    run.counts = counts;
    if (!counts.accountingErrors().isEmpty()) {
      throw new IngestException(
          ErrorCode.INTERNAL_ERROR,
          "Cannot commit batch "
              + batchId
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

    // 5. The validation policy.
    if (counts.invalidRatio() > settings.maxInvalidRatio()) {
      throw new IngestException(
          ErrorCode.BATCH_REJECTED,
          String.format(
              java.util.Locale.ROOT,
              "Cannot commit batch %s: invalid ratio %.4f (%d of %d candidate records) is above the"
                  + " limit %.4f; by reason %s; quarantined files %s; nothing was committed",
              batchId,
              counts.invalidRatio(),
              invalidRecords,
              changed,
              settings.maxInvalidRatio(),
              byReason,
              run.quarantinedFiles));
    }

    // 6. Writes: quarantine, tombstones, then data and checkpoint in one commit, published to
    // main only if main is still at the snapshot the batch was planned on.
    checkReportWritable(run);
    tables.ensureTables(types);
    Checkpoint next = Checkpoint.advance(cp, batchId, run.watermarkAfter, toRead, lookbackDays);
    Map<String, String> props = new LinkedHashMap<>(CheckpointCodec.encode(next));
    props.put(CheckpointCodec.RUN_ID, run.runId);
    props.put(CheckpointCodec.RUN_STARTED_AT, run.startedAt.toString());
    props.put(CheckpointCodec.MODE, settings.mode().name());
    props.put(CheckpointCodec.COUNTS, CheckpointCodec.compactJson(counts));
    try {
      Dataset<Row> invalidRows = validated.filter(isCandidate.and(invalid));
      writing(
          tables,
          settings.quarantineSparkName(),
          () -> writeQuarantine(run, tables, invalidRows, problemRows, batchId, now));
      failurePoints.reached(FailurePoint.AFTER_QUARANTINE_WRITE, batchId);
      writing(
          tables,
          settings.tombstoneSparkName(),
          () -> writeTombstones(run, tables, planned, batchId, full));
      commit(run, tables, planned, props, base, full);
    } catch (Exception e) {
      if (!isConflict(e)) {
        if (hasCause(e, CommitStateUnknownException.class)) {
          Optional<Snapshot> s = CheckpointLog.findBatch(tables.loadCurated(), batchId);
          if (s.isEmpty()) {
            throw new IngestException(
                ErrorCode.COMMIT_STATE_UNKNOWN,
                "Cannot tell whether batch "
                    + batchId
                    + " was committed to "
                    + settings.curatedSparkName()
                    + ": "
                    + e.getMessage()
                    + "; it is not in the table's history now, so rerunning is safe",
                e);
          }
        } else {
          throw e;
        }
      } else {
        Table now2 = tables.loadCurated();
        Optional<Snapshot> mine =
            now2 == null ? Optional.empty() : CheckpointLog.findBatch(now2, batchId);
        if (mine.isPresent()) {
          LOG.info(
              "Batch {} was committed by another run (snapshot {}): nothing more to do",
              batchId,
              mine.get().snapshotId());
          run.alreadyCommitted(mine.get().snapshotId());
          return;
        }
        ConcurrentCommit moved =
            causeOfType(e, ConcurrentCommit.class)
                .orElseGet(
                    () ->
                        new ConcurrentCommit(
                            settings.curatedSparkName(), base, snapshotId(now2), e));
        throw new IngestException(
            ErrorCode.CONCURRENT_COMMIT,
            "Cannot commit batch "
                + batchId
                + " to "
                + settings.curatedSparkName()
                + ": another run committed first: "
                + moved.getMessage()
                + "; nothing of this batch was committed to the curated table and rerunning is"
                + " safe ("
                + rootMessage(moved.getCause() == null ? moved : moved.getCause())
                + ")",
            e);
      }
    }
    run.committed = true;

    // 7. Find our commit in the history and say what happened.
    Table after = tables.loadCurated();
    Snapshot mine =
        CheckpointLog.findBatch(after, batchId)
            .orElseThrow(
                () ->
                    new IngestException(
                        ErrorCode.INTERNAL_ERROR,
                        "Cannot find batch "
                            + batchId
                            + " in the history of "
                            + settings.curatedSparkName()
                            + " after committing it"));
    run.snapshotId = mine.snapshotId();
    LOG.info(
        "Committed batch {} as snapshot {} of {}: inserted {}, updated {}, deleted {}, unchanged {},"
            + " deletes of unknown keys {}, superseded {}; watermark {} -> {}",
        batchId,
        mine.snapshotId(),
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
    failurePoints.reached(FailurePoint.AFTER_COMMIT, batchId);
  }

  /** What reading and validating a batch found, counted in one pass over the batch. */
  private record Validated(
      RawReader.Result read,
      List<RawReader.FileProblem> problems,
      Dataset<Row> problemRows,
      Dataset<Row> validated,
      long rowsRead,
      long changed,
      long invalid,
      long late,
      long superseded,
      Object maxValidMarker,
      Map<String, Long> byReason) {}

  private Validated readAndValidate(
      RunRecorder run,
      RawReader reader,
      List<RawFile> toRead,
      Set<String> newPaths,
      Map<String, DataType> tableTypes,
      Checkpoint cp,
      boolean watermarkMode,
      boolean full,
      Map<String, String> unreadable) {
    RawReader.Result read = reader.read(toRead, newPaths, tableTypes, unreadable);
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
          ErrorCode.TABLE_MISMATCH,
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
        Dedup.rank(
                Validation.classify(rows, spec.keyColumns(), futureLimit)
                    .withColumn(Cols.CANDIDATE, candidate),
                spec.keyColumns(),
                validCandidate)
            .persist(StorageLevel.MEMORY_AND_DISK());
    run.persisted.add(validated);
    Column late =
        cp == null || cp.watermark() == null || full
            ? lit(false)
            : col(Cols.MARKER).lt(lit(watermarkValue(markerType, cp.watermark())));
    Row agg =
        validated
            .agg(
                count(lit(1)),
                sum(when(isCandidate, 1).otherwise(0)),
                sum(when(isCandidate.and(invalid), 1).otherwise(0)),
                sum(when(validCandidate.and(late), 1).otherwise(0)),
                max(when(validCandidate, col(Cols.MARKER))),
                sum(when(col(Dedup.RANK).gt(1), 1).otherwise(0)))
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
        read,
        problems,
        problemRows,
        validated,
        agg.getLong(0) + problemRecords,
        longOrZero(agg, 1) + problemRecords,
        longOrZero(agg, 2) + problemRecords,
        longOrZero(agg, 3),
        longOrZero(agg, 5),
        agg.get(4),
        byReason);
  }

  private void writeQuarantine(
      RunRecorder run,
      OutputTables tables,
      Dataset<Row> invalidRows,
      Dataset<Row> problemRows,
      String batchId,
      Instant now) {
    Dataset<Row> q =
        invalidRows.select(
            col(Cols.SOURCE_FILE).as("source_file"),
            col(Cols.ROW_INDEX).as("row_number"),
            col(Cols.REASON).as("reason"),
            col(Cols.DETAIL).as("detail"),
            col(Cols.ORIGINAL).as("original_values"));
    if (problemRows != null) {
      q = q.unionByName(problemRows);
    }
    long n =
        run.counts.recordsInvalid()
            + run.quarantinedFiles.stream().filter(s -> s.contains(": UNREADABLE_FILE")).count();
    if (n == 0) {
      return;
    }
    Dataset<Row> rows =
        q.select(
            lit(batchId).as("batch_id"),
            lit(run.runId).as("run_id"),
            lit(Timestamp.from(now)).as("quarantined_at"),
            col("source_file"),
            col("row_number"),
            col("reason"),
            col("detail"),
            col("original_values"));
    String view = run.view(rows);
    spark.sql(sql.quarantineMerge(view));
    LOG.info(
        "Quarantined {} record(s) and {} file(s) of batch {} into {}",
        run.counts.recordsInvalid(),
        run.filesQuarantined,
        batchId,
        settings.quarantineSparkName());
  }

  private void writeTombstones(
      RunRecorder run, OutputTables tables, Dataset<Row> planned, String batchId, boolean full) {
    List<Column> cols = new ArrayList<>();
    spec.keyColumns().forEach(k -> cols.add(col(k)));
    cols.add(col(Cols.MARKER));
    cols.add(lit(batchId).as("batch_id"));
    Dataset<Row> deletes =
        planned.filter(MergePlanner.remembersDelete()).select(cols.toArray(Column[]::new));
    if (full) {
      List<Column> out = new ArrayList<>();
      spec.keyColumns().forEach(k -> out.add(col(k)));
      out.add(col(Cols.MARKER).as(spec.changeMarker().column()));
      out.add(col("batch_id"));
      overwriteAll(deletes.select(out.toArray(Column[]::new)), settings.tombstoneSparkName());
      return;
    }
    if (run.counts.recordsDeleted()
            + run.counts.deletesOfUnknownKeys()
            + run.counts.recordsUnchanged()
        == 0) {
      return;
    }
    spark.sql(sql.tombstoneMerge(run.view(deletes)));
  }

  /**
   * Commits data and checkpoint to the run's branch, created at {@code base}, then fast-forwards
   * main to it; throws {@link ConcurrentCommit} (or Iceberg's commit failure) when main moved.
   */
  private void commit(
      RunRecorder run,
      OutputTables tables,
      Dataset<Row> planned,
      Map<String, String> props,
      long base,
      boolean full) {
    List<Column> cols = new ArrayList<>();
    spec.keyColumns().forEach(k -> cols.add(col(k)));
    spec.comparedColumns().forEach(c -> cols.add(col(c)));
    cols.add(col(Cols.MARKER));
    cols.add(col(Cols.OP));
    cols.add(col(MergePlanner.TOMBSTONE_MARKER));
    Dataset<Row> source = planned.select(cols.toArray(Column[]::new));
    String view = full ? null : run.view(source);
    Dataset<Row> rebuilt = null;
    if (full) {
      List<Column> out = new ArrayList<>();
      for (String c : tables.curatedColumns()) {
        out.add(c.equals(spec.changeMarker().column()) ? col(Cols.MARKER).as(c) : col(c));
      }
      rebuilt =
          planned
              .filter(col(MergePlanner.ACTION).equalTo(Action.INSERTED.name()))
              .select(out.toArray(Column[]::new));
    }
    Dataset<Row> finalRebuilt = rebuilt;
    String branch = RunBranches.name(run.runId, run.startedAt);
    String target = RunBranches.sparkName(settings.curatedSparkName(), branch);
    RunBranches.create(tables::loadCurated, branch, branchStart(tables, base));
    try {
      CommitMetadata.withCommitProperties(
          props,
          () -> {
            failurePoints.reached(FailurePoint.BEFORE_COMMIT, run.batchId);
            if (full) {
              overwriteAll(finalRebuilt, target);
            } else {
              spark.sql(sql.curatedMerge(view, target));
            }
            return null;
          },
          RuntimeException.class);
      failurePoints.reached(FailurePoint.BEFORE_PUBLISH, run.batchId);
      try {
        RunBranches.fastForwardMain(tables::loadCurated, branch);
      } catch (IllegalArgumentException e) {
        Table now = tables.loadCurated();
        throw new ConcurrentCommit(settings.curatedSparkName(), base, snapshotId(now), e);
      }
    } catch (Exception e) {
      dropRunBranch(tables, branch);
      throw e;
    }
    // Not in a finally: after a crash (an Error) nothing more happens, as in a real one; a later
    // run drops the branch once it is stale.
    dropRunBranch(tables, branch);
  }

  /**
   * A committed batch whose report cannot be written leaves data and reports disagreeing, and every
   * rerun finds the batch committed: find out before committing, while a rerun still repairs all.
   */
  private void checkReportWritable(RunRecorder run) {
    try {
      RunReports.checkWritable(
          settings.stateRoot(), run.runId, spark.sparkContext().hadoopConfiguration());
    } catch (IOException | RuntimeException e) {
      throw new IngestException(
          ErrorCode.IO_FAILED,
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
   * The snapshot the run's branch starts at: the one the batch was planned and counted against. A
   * table without a snapshot (the first batch) first gets an empty one on main, since a branch
   * needs a snapshot to start from; that snapshot must still hold no data and no checkpoint, or
   * another run's batch got there first.
   */
  private long branchStart(OutputTables tables, long base) {
    if (base >= 0) {
      return base;
    }
    Table t = tables.loadCurated();
    if (t.currentSnapshot() == null) {
      t.newFastAppend().commit();
      t.refresh();
    }
    Snapshot start = t.currentSnapshot();
    if (hasData(t) || CheckpointLog.latest(t).isPresent()) {
      throw new ConcurrentCommit(settings.curatedSparkName(), -1, start.snapshotId(), null);
    }
    return start.snapshotId();
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

  private void dropRunBranch(OutputTables tables, String branch) {
    try {
      RunBranches.drop(tables::loadCurated, List.of(branch));
    } catch (RuntimeException e) {
      LOG.warn(
          "Cannot drop this run's branch {} of {} (a run {} later drops it): {}",
          branch,
          settings.curatedSparkName(),
          RunBranches.STALE_AFTER,
          e.toString());
    }
  }

  /** Replaces a table's rows in one commit (a full refresh). */
  private static void overwriteAll(Dataset<Row> rows, String table) {
    try {
      rows.writeTo(table).overwrite(lit(true));
    } catch (org.apache.spark.sql.catalyst.analysis.NoSuchTableException e) {
      throw new IngestException(
          ErrorCode.INTERNAL_ERROR, "Cannot overwrite " + table + ": it does not exist", e);
    }
  }

  private Dataset<Row> emptyKeys(Map<String, DataType> types, DataType markerType) {
    StructType s = new StructType();
    for (String k : spec.keyColumns()) {
      s = s.add(k, types.get(k));
    }
    s = s.add(spec.changeMarker().column(), markerType);
    return spark.createDataFrame(List.<Row>of(), s);
  }

  /** Whether the table's current snapshot holds any data file with rows (metadata only). */
  private static boolean hasData(Table t) {
    if (t == null || t.currentSnapshot() == null) {
      return false;
    }
    try (CloseableIterable<FileScanTask> tasks = t.newScan().planFiles()) {
      for (FileScanTask task : tasks) {
        if (task.file().recordCount() > 0) {
          return true;
        }
      }
      return false;
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot list the data files of " + t.name(), e);
    }
  }

  private static long snapshotId(Table t) {
    return t == null || t.currentSnapshot() == null ? -1 : t.currentSnapshot().snapshotId();
  }

  private static long longOrZero(Row r, int i) {
    return r.isNullAt(i) ? 0 : ((Number) r.get(i)).longValue();
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

  private static boolean isConflict(Throwable e) {
    return hasCause(e, ValidationException.class)
        || hasCause(e, CommitFailedException.class)
        || hasCause(e, ConcurrentCommit.class);
  }

  private static boolean hasCause(Throwable e, Class<? extends Throwable> type) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (type.isInstance(t)) {
        return true;
      }
    }
    return false;
  }

  private static String rootMessage(Throwable e) {
    Throwable t = e;
    while (t.getCause() != null && t.getCause() != t) {
      if (t instanceof ValidationException
          || t instanceof CommitFailedException
          || t instanceof ConcurrentCommit) {
        break;
      }
      t = t.getCause();
    }
    return t.getClass().getSimpleName() + ": " + t.getMessage();
  }

  static String newRunId(Instant started) {
    return RUN_ID_TIME.format(started)
        + "-"
        + String.format("%08x", ThreadLocalRandom.current().nextInt());
  }

  /**
   * A table moved between planning and committing: another run committed to it. The message names
   * the table and the snapshots it moved between; the cause, when there is one, is Iceberg's
   * refusal.
   */
  private static final class ConcurrentCommit extends RuntimeException {
    ConcurrentCommit(String table, long from, long to, Throwable cause) {
      super(
          from == to
              ? table + " refused the commit at snapshot " + snapshotName(from)
              : table + " moved from snapshot " + snapshotName(from) + " to " + snapshotName(to),
          cause);
    }

    private static String snapshotName(long id) {
      return id < 0 ? "none" : Long.toString(id);
    }
  }

  /**
   * Runs one write of a table other than the curated one; when Iceberg refuses it because another
   * run committed to that table meanwhile, says so with the table and its snapshots.
   */
  private void writing(OutputTables tables, String table, Runnable write) {
    long from = snapshotId(tables.load(table));
    try {
      write.run();
    } catch (Exception e) {
      if (isConflict(e) && !hasCause(e, ConcurrentCommit.class)) {
        throw new ConcurrentCommit(table, from, snapshotId(tables.load(table)), e);
      }
      throw e;
    }
  }

  private static <T extends Throwable> Optional<T> causeOfType(Throwable e, Class<T> type) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (type.isInstance(t)) {
        return Optional.of(type.cast(t));
      }
    }
    return Optional.empty();
  }
}
