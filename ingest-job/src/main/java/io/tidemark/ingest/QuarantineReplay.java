package io.tidemark.ingest;

import static org.apache.spark.sql.functions.bit_xor;
import static org.apache.spark.sql.functions.coalesce;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.count;
import static org.apache.spark.sql.functions.from_json;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.pmod;
import static org.apache.spark.sql.functions.sum;
import static org.apache.spark.sql.functions.when;
import static org.apache.spark.sql.functions.xxhash64;

import io.tidemark.ingest.checkpoint.CheckpointCodec;
import io.tidemark.ingest.checkpoint.CheckpointLog;
import io.tidemark.ingest.config.IngestSettings;
import io.tidemark.ingest.config.OperatorOptions;
import io.tidemark.ingest.merge.Action;
import io.tidemark.ingest.merge.Dedup;
import io.tidemark.ingest.merge.MergePlanner;
import io.tidemark.ingest.merge.OutputTables;
import io.tidemark.ingest.sql.IngestSql;
import io.tidemark.ingest.validate.Cols;
import io.tidemark.ingest.validate.Validation;
import io.tidemark.model.config.ChangeMarkerType;
import io.tidemark.model.config.DatasetSpec;
import io.tidemark.model.contract.ReasonCode;
import io.tidemark.model.report.IngestCounts;
import io.tidemark.model.report.IngestErrorCode;
import io.tidemark.model.report.IngestMode;
import io.tidemark.model.report.IngestStatus;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.Timestamp;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code --mode replay-quarantine}: re-validates quarantined records with the current settings
 * (future tolerance, clock, key rules), merges the ones now valid into the curated table under the
 * version guard, and marks them replayed in the quarantine table, where they stay for audit.
 *
 * <p>Steps, each safe to repeat:
 *
 * <ol>
 *   <li>Select the quarantine rows not replayed yet that match every filter of {@link
 *       OperatorOptions} (reason, batch id, source file).
 *   <li>Rows of a reason that applies to a whole file ({@link ReasonCode#wholeFile()}) are left as
 *       they are: they cannot be judged row by row (a row of a file missing a column would merge
 *       with that column null). The file has to be delivered again.
 *   <li>The other rows are rebuilt from their {@code original_values} into the shape {@link
 *       io.tidemark.ingest.validate.RawReader} produces and classified by {@link Validation}, the
 *       code normal runs use; the still-invalid ones stay unmarked.
 *   <li>The now-valid rows are deduplicated ({@link Dedup}) and planned ({@link MergePlanner})
 *       against the curated table and its remembered deletes, then committed as a batch through the
 *       run's branch like any batch ({@link BatchCommitter#commitReplay}). The commit carries the
 *       batch id, run id, mode and counts, and no checkpoint: the next incremental run resumes
 *       where it was.
 *   <li>The now-valid rows are marked ({@link OutputTables#REPLAYED_AT}, {@link
 *       OutputTables#REPLAY_BATCH_ID}).
 * </ol>
 *
 * <p>The batch id is a hash of the now-valid rows' identities, so a run that crashed between the
 * commit and the marking is finished by the next one: it selects the same rows, finds the batch in
 * the curated table's history and only marks them. Once marked, rows are not selected again, so a
 * second replay of the same selection is {@link IngestStatus#NOTHING_TO_DO}.
 *
 * <p>A dry run does steps 1 to 4 up to the plan, reports what would happen in the run's warnings
 * and in the log, and ends {@link IngestStatus#NOTHING_TO_DO} without writing to any table.
 */
final class QuarantineReplay {
  private static final Logger LOG = LoggerFactory.getLogger(IngestJob.class);

  /** Prefix of the warning a dry run's report carries first. */
  static final String DRY_RUN = "Dry run: nothing was committed";

  private static final String ORIGINAL_REASON = "_quarantined_reason";
  private static final String ORIGINAL_BATCH = "_quarantined_batch";
  private static final String PARSED = "_parsed";

  private final SparkSession spark;
  private final IngestSettings settings;
  private final DatasetSpec spec;
  private final OutputTables tables;
  private final FailurePoints hooks;
  private final IngestSql sql;

  QuarantineReplay(
      SparkSession spark, IngestSettings settings, OutputTables tables, FailurePoints hooks) {
    this.spark = spark;
    this.settings = settings;
    this.spec = settings.dataset();
    this.tables = tables;
    this.hooks = hooks;
    this.sql = new IngestSql(settings);
  }

  void run(RunRecorder run) {
    OperatorOptions o = settings.operator();
    String selection = describe(o);
    LOG.info(
        "Run {}: replaying the rows of {} {} into {}{}",
        run.runId,
        settings.quarantineSparkName(),
        selection,
        settings.curatedSparkName(),
        o.dryRun() ? " (dry run)" : "");
    Table curated = tables.loadCurated();
    if (curated == null || tables.load(settings.quarantineSparkName()) == null) {
      nothingToDo(
          run,
          "Nothing to replay: "
              + (curated == null ? settings.curatedSparkName() : settings.quarantineSparkName())
              + " does not exist yet (no batch was ingested)");
      return;
    }
    // The checkpoint stays where it is: the report shows its watermark before and after.
    CheckpointLog.latest(curated)
        .ifPresent(
            cp -> {
              run.watermarkBefore = cp.watermark();
              run.watermarkAfter = cp.watermark();
            });
    boolean hasReplayColumns = tables.hasReplayColumns();
    if (!hasReplayColumns && !o.dryRun()) {
      tables.ensureReplayColumns();
      hasReplayColumns = true;
    }

    Dataset<Row> selected = run.cache(select(hasReplayColumns, o));
    run.inputFiles =
        selected.select("source_file").distinct().sort("source_file").collectAsList().stream()
            .map(r -> r.getString(0))
            .toList();
    if (run.inputFiles.isEmpty()) {
      nothingToDo(
          run,
          "Nothing to replay: "
              + settings.quarantineSparkName()
              + " holds no row "
              + selection
              + "; nothing committed");
      return;
    }
    List<String> wholeFile =
        Arrays.stream(ReasonCode.values())
            .filter(ReasonCode::wholeFile)
            .map(ReasonCode::name)
            .toList();
    Column isWholeFile =
        col("reason").isin(wholeFile.toArray()).or(col("original_values").isNull());
    long recordsRead = selected.filter(col("row_number").geq(0)).count();
    leaveWholeFileEntries(run, selected.filter(isWholeFile));

    long base = OutputTables.snapshotId(curated);
    Dataset<Row> validated =
        run.cache(revalidate(selected.filter(org.apache.spark.sql.functions.not(isWholeFile))));
    Column valid = col(Cols.REASON).isNull();
    Row agg =
        validated
            .agg(
                count(lit(1)).as("candidates"),
                sum(when(org.apache.spark.sql.functions.not(valid), 1).otherwise(0)).as("invalid"),
                sum(when(col(Dedup.RANK).gt(1), 1).otherwise(0)).as("superseded"),
                sum(when(valid, 1).otherwise(0)).as("valid"),
                // An order-free fingerprint of the now-valid rows, for the batch id.
                bit_xor(when(valid, identityHash())).as("xor"),
                sum(when(valid, pmod(identityHash(), lit(Integer.MAX_VALUE)))).as("sum"))
            .first();
    long candidates = agg.getLong(0);
    long invalid = number(agg, 1);
    long superseded = number(agg, 2);
    long validRows = number(agg, 3);
    Map<String, long[]> byReason = byReason(validated);
    byReason.forEach(
        (reason, n) ->
            LOG.info(
                "Reason {}: {} record(s) now valid{}, {} still invalid",
                reason,
                n[0],
                o.dryRun() ? " (would be merged)" : "",
                n[1]));
    if (candidates == 0) {
      nothingToDo(
          run,
          "Nothing to replay: every selected row was quarantined with its whole file (the warning names"
              + " the files); nothing committed");
      return;
    }
    if (validRows == 0) {
      if (o.dryRun()) {
        run.warnings.add(0, DRY_RUN + "; " + summary(byReason));
      }
      nothingToDo(
          run,
          "Nothing to replay: none of the "
              + candidates
              + " selected record(s) is valid under the current settings (future tolerance "
              + settings.futureTolerance()
              + "); "
              + summary(byReason)
              + "; they stay quarantined");
      return;
    }
    run.batchId = batchId(validRows, String.valueOf(agg.get(4)), String.valueOf(agg.get(5)));

    Dataset<Row> planned = plan(run, validated, base, validRows);
    Map<Action, Long> actions = actions(planned);
    long written = actions.values().stream().mapToLong(Long::longValue).sum();
    IngestCounts counts =
        IngestCounts.builder()
            .recordsRead(recordsRead)
            .recordsChanged(candidates)
            .recordsInvalid(invalid)
            .recordsSuperseded(superseded)
            .recordsWritten(written)
            .recordsInserted(actions.get(Action.INSERTED))
            .recordsUpdated(actions.get(Action.UPDATED))
            .recordsDeleted(actions.get(Action.DELETED))
            .recordsUnchanged(actions.get(Action.UNCHANGED))
            .deletesOfUnknownKeys(actions.get(Action.DELETE_OF_UNKNOWN_KEY))
            .build();
    run.counts = counts;
    if (!counts.accountingErrors().isEmpty()) {
      throw new IngestException(
          IngestErrorCode.INTERNAL_ERROR,
          "Cannot commit replay batch "
              + run.batchId
              + ": its counts do not add up: "
              + counts.accountingErrors());
    }
    LOG.info(
        "Replay batch {}: {} record(s) selected, {} now valid, {} still invalid, {} superseded;"
            + " the version guard would insert {}, update {}, delete {}, leave unchanged {},"
            + " delete unknown keys {}",
        run.batchId,
        candidates,
        validRows,
        invalid,
        superseded,
        counts.recordsInserted(),
        counts.recordsUpdated(),
        counts.recordsDeleted(),
        counts.recordsUnchanged(),
        counts.deletesOfUnknownKeys());
    if (o.dryRun()) {
      dryRun(run, byReason, counts);
      return;
    }

    Dataset<Row> replayed = validated.filter(valid);
    Optional<Snapshot> done = CheckpointLog.findBatch(curated, run.batchId);
    if (done.isPresent()) {
      // A run that crashed after its commit: the rows are merged, only the marking is missing.
      LOG.info(
          "Replay batch {} is already committed (snapshot {}); marking its rows replayed",
          run.batchId,
          done.get().snapshotId());
      mark(run, replayed);
      alreadyCommitted(run, done.get().snapshotId());
      return;
    }
    CommitOutcome outcome =
        new BatchCommitter(spark, settings, tables, hooks)
            .commitReplay(
                run,
                new BatchPlan(
                    null, base, false, false, 0, List.of(), List.of(), List.of(), run.batchId),
                planned,
                properties(run));
    if (outcome instanceof CommitOutcome.Committed c) {
      run.snapshotId = c.snapshotId();
      run.status = IngestStatus.SUCCEEDED;
      LOG.info(
          "Committed replay batch {} as snapshot {} of {}: inserted {}, updated {}, deleted {},"
              + " unchanged {}, deletes of unknown keys {}, superseded {}; checkpoint not moved",
          run.batchId,
          c.snapshotId(),
          settings.curatedSparkName(),
          counts.recordsInserted(),
          counts.recordsUpdated(),
          counts.recordsDeleted(),
          counts.recordsUnchanged(),
          counts.deletesOfUnknownKeys(),
          counts.recordsSuperseded());
      hooks.reached(FailurePoint.AFTER_COMMIT, run.batchId);
      mark(run, replayed);
    } else if (outcome instanceof CommitOutcome.AlreadyCommitted a) {
      mark(run, replayed);
      alreadyCommitted(run, a.snapshotId());
    } else if (outcome instanceof CommitOutcome.Conflict c) {
      throw new IngestException(
          IngestErrorCode.CONCURRENT_COMMIT,
          "Cannot commit replay batch "
              + run.batchId
              + " to "
              + settings.curatedSparkName()
              + ": another run committed first: "
              + c.describe()
              + "; nothing of this replay was committed and rerunning is safe",
          c.cause());
    }
  }

  /** The quarantine rows not replayed yet that match every filter (the caller caches them). */
  private Dataset<Row> select(boolean hasReplayColumns, OperatorOptions o) {
    Column where = hasReplayColumns ? col(OutputTables.REPLAYED_AT).isNull() : lit(true);
    if (o.reason() != null) {
      where = where.and(col("reason").equalTo(lit(o.reason())));
    }
    if (o.batchId() != null) {
      where = where.and(col("batch_id").equalTo(lit(o.batchId())));
    }
    if (o.file() != null) {
      where = where.and(col("source_file").equalTo(lit(o.file())));
    }
    return spark
        .table(settings.quarantineSparkName())
        .filter(where)
        .select("batch_id", "source_file", "row_number", "reason", "original_values");
  }

  /** Counts the whole-file entries the replay leaves, and tells the operator what to do. */
  private void leaveWholeFileEntries(RunRecorder run, Dataset<Row> entries) {
    List<Row> byFile =
        entries
            .groupBy("source_file", "reason")
            .count()
            .sort("source_file", "reason")
            .collectAsList();
    if (byFile.isEmpty()) {
      return;
    }
    List<String> files = new ArrayList<>();
    long rows = 0;
    for (Row r : byFile) {
      files.add(r.getString(0) + " (" + r.getString(1) + ", " + r.getLong(2) + " row(s))");
      rows += r.getLong(2);
    }
    String warning =
        rows
            + " quarantine row(s) of "
            + files.size()
            + " file(s) quarantined whole were left as they are: a whole-file reason cannot be"
            + " re-validated row by row. Deliver a corrected file under a new name (or replace"
            + " it): the next incremental run or --mode sweep reads it. "
            + files;
    LOG.warn(warning);
    run.warnings.add(warning);
  }

  /**
   * The selected record-level rows rebuilt from their original values into the normalized shape
   * ({@link Cols}), classified with the current settings and ranked per key among the valid ones.
   */
  private Dataset<Row> revalidate(Dataset<Row> records) {
    Map<String, DataType> types = tables.curatedTypes();
    String marker = spec.changeMarker().column();
    String op = spec.operationColumn();
    // Keys and marker as text (a JSON number comes back as its digits), as the raw reader sees a
    // text column; compared columns with the curated table's types.
    StructType json = new StructType();
    Map<String, DataType> fields = new LinkedHashMap<>();
    spec.keyColumns().forEach(k -> fields.put(k, DataTypes.StringType));
    spec.comparedColumns().forEach(c -> fields.putIfAbsent(c, types.get(c)));
    fields.put(marker, DataTypes.StringType);
    if (op != null) {
      fields.putIfAbsent(op, DataTypes.StringType);
    }
    for (Map.Entry<String, DataType> f : fields.entrySet()) {
      json = json.add(f.getKey(), f.getValue());
    }
    Column parsed = col(PARSED);
    List<Column> select = new ArrayList<>();
    spec.keyColumns().forEach(k -> select.add(parsed.getField(k).as(k)));
    spec.comparedColumns().forEach(c -> select.add(parsed.getField(c).as(c)));
    select.add(parsed.getField(marker).isNotNull().as(Cols.MARKER_PRESENT));
    select.add(
        parsed
            .getField(marker)
            .try_cast(
                spec.changeMarker().type() == ChangeMarkerType.TIMESTAMP
                    ? DataTypes.TimestampType
                    : DataTypes.LongType)
            .as(Cols.MARKER));
    select.add(
        (op == null
                ? lit(DatasetSpec.OPERATION_UPSERT)
                : coalesce(parsed.getField(op), lit(DatasetSpec.OPERATION_UPSERT)))
            .as(Cols.OP));
    select.add(col("source_file").as(Cols.SOURCE_FILE));
    select.add(col("row_number").as(Cols.ROW_INDEX));
    select.add(col("original_values").as(Cols.ORIGINAL));
    select.add(lit(true).as(Cols.NEW_FILE));
    select.add(col("reason").as(ORIGINAL_REASON));
    select.add(col("batch_id").as(ORIGINAL_BATCH));
    Dataset<Row> normalized =
        records
            .withColumn(PARSED, from_json(col("original_values"), json))
            .select(select.toArray(Column[]::new));
    Column futureLimit =
        spec.changeMarker().type() == ChangeMarkerType.TIMESTAMP
            ? lit(Timestamp.from(settings.clock().instant().plus(settings.futureTolerance())))
            : null;
    return Dedup.rank(
        Validation.classify(normalized, spec.keyColumns(), futureLimit),
        spec.keyColumns(),
        col(Cols.REASON).isNull());
  }

  /** Per original reason: [now valid, still invalid]. */
  private static Map<String, long[]> byReason(Dataset<Row> validated) {
    Map<String, long[]> out = new TreeMap<>();
    for (Row r :
        validated
            .groupBy(col(ORIGINAL_REASON), col(Cols.REASON).isNull().as("valid"))
            .count()
            .collectAsList()) {
      out.computeIfAbsent(r.getString(0), k -> new long[2])[r.getBoolean(1) ? 0 : 1] +=
          r.getLong(2);
    }
    return out;
  }

  private static String summary(Map<String, long[]> byReason) {
    List<String> parts = new ArrayList<>();
    byReason.forEach(
        (reason, n) -> parts.add(reason + ": " + n[0] + " now valid, " + n[1] + " still invalid"));
    return String.join("; ", parts);
  }

  /** Dedups and plans the now-valid records against main's current state; pinned. */
  private Dataset<Row> plan(RunRecorder run, Dataset<Row> validated, long base, long validRows) {
    String markerColumn = spec.changeMarker().column();
    List<String> keyAndMarker = new ArrayList<>(spec.keyColumns());
    keyAndMarker.add(markerColumn);
    Dataset<Row> latest = validated.filter(col(Dedup.RANK).equalTo(1)).drop(Dedup.RANK);
    Dataset<Row> current =
        spark.sql(sql.curatedAsOf(base)).selectExpr(IngestSql.quoteAll(keyAndMarker));
    Dataset<Row> tombstones =
        spark.table(settings.tombstoneSparkName()).selectExpr(IngestSql.quoteAll(keyAndMarker));
    Dataset<Row> planned =
        run.pin(
            MergePlanner.plan(
                latest,
                current,
                tombstones,
                spec.keyColumns(),
                markerColumn,
                validRows <= MergePlanner.BROADCAST_MAX_KEYS));
    return planned;
  }

  private static Map<Action, Long> actions(Dataset<Row> planned) {
    Map<Action, Long> actions = new EnumMap<>(Action.class);
    for (Action a : Action.values()) {
      actions.put(a, 0L);
    }
    for (Row r : planned.groupBy(MergePlanner.ACTION).count().collectAsList()) {
      actions.put(Action.valueOf(r.getString(0)), r.getLong(1));
    }
    return actions;
  }

  private void dryRun(RunRecorder run, Map<String, long[]> byReason, IngestCounts c) {
    String plan =
        String.format(
            java.util.Locale.ROOT,
            "%s; replay batch %s would merge %d record(s) into %s (insert %d, update %d, delete %d,"
                + " unchanged %d, deletes of unknown keys %d, superseded %d) and mark them"
                + " replayed; %d stay quarantined; by reason: %s",
            DRY_RUN,
            run.batchId,
            c.recordsWritten() + c.recordsSuperseded(),
            settings.curatedSparkName(),
            c.recordsInserted(),
            c.recordsUpdated(),
            c.recordsDeleted(),
            c.recordsUnchanged(),
            c.deletesOfUnknownKeys(),
            c.recordsSuperseded(),
            c.recordsInvalid(),
            summary(byReason));
    LOG.info(plan);
    run.warnings.add(0, plan);
    run.status = IngestStatus.NOTHING_TO_DO;
  }

  /** Marks the now-valid rows replayed by this batch; rows already marked keep their mark. */
  private void mark(RunRecorder run, Dataset<Row> replayed) {
    Dataset<Row> marks =
        replayed.select(
            col(Cols.SOURCE_FILE).as("source_file"),
            col(Cols.ROW_INDEX).as("row_number"),
            lit(Timestamp.from(settings.clock().instant())).as(OutputTables.REPLAYED_AT),
            lit(run.batchId).as(OutputTables.REPLAY_BATCH_ID));
    spark.sql(sql.quarantineMarkReplayed(run.view(marks)));
    LOG.info(
        "Marked the replayed rows of batch {} in {} (kept for audit)",
        run.batchId,
        settings.quarantineSparkName());
  }

  private void alreadyCommitted(RunRecorder run, long snapshotId) {
    run.status = IngestStatus.ALREADY_COMMITTED;
    run.snapshotId = snapshotId;
    // The commit's own counts (in its snapshot summary and report) account for the records.
    run.counts = IngestCounts.ZERO;
    run.warnings.add(
        "Replay batch "
            + run.batchId
            + " was already committed (snapshot "
            + snapshotId
            + "); this run only marked its rows replayed and wrote no data");
  }

  private void nothingToDo(RunRecorder run, String message) {
    LOG.info(message);
    run.warnings.add(message);
    run.status = IngestStatus.NOTHING_TO_DO;
  }

  private Map<String, String> properties(RunRecorder run) {
    Map<String, String> props = new LinkedHashMap<>();
    props.put(CheckpointCodec.BATCH_ID, run.batchId);
    props.put(CheckpointCodec.RUN_ID, run.runId);
    props.put(CheckpointCodec.RUN_STARTED_AT, run.startedAt.toString());
    props.put(CheckpointCodec.MODE, IngestMode.REPLAY_QUARANTINE.name());
    props.put(CheckpointCodec.COUNTS, CheckpointCodec.compactJson(run.counts));
    return props;
  }

  /**
   * A 64-bit hash of a quarantine row's identity: the batch that quarantined it, its file and row
   * number (a row quarantined again later, by a full refresh, is a new identity).
   */
  private static Column identityHash() {
    return xxhash64(col(ORIGINAL_BATCH), col(Cols.SOURCE_FILE), col(Cols.ROW_INDEX));
  }

  /** The replay's deterministic batch id, from the now-valid rows' identities. */
  static String batchId(long rows, String xor, String sum) {
    MessageDigest sha;
    try {
      sha = MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
    String text =
        "tidemark-replay-v1\nmode="
            + IngestMode.REPLAY_QUARANTINE
            + "\nrows="
            + rows
            + "\nxor="
            + xor
            + "\nsum="
            + sum
            + "\n";
    return HexFormat.of()
        .formatHex(sha.digest(text.getBytes(StandardCharsets.UTF_8)))
        .substring(0, 32);
  }

  /**
   * The selection as a phrase that follows "row(s)": {@code not yet replayed with reason X,
   * quarantined by batch B, from file F}.
   */
  private static String describe(OperatorOptions o) {
    List<String> f = new ArrayList<>();
    f.add("not yet replayed");
    if (o.reason() != null) {
      f.add(" with reason " + o.reason());
    }
    if (o.batchId() != null) {
      f.add((f.size() > 1 ? "," : "") + " quarantined by batch " + o.batchId());
    }
    if (o.file() != null) {
      f.add((f.size() > 1 ? "," : "") + " from file " + o.file());
    }
    return String.join("", f);
  }

  private static long number(Row r, int i) {
    Object v = r.get(i);
    return v == null ? 0 : ((Number) v).longValue();
  }
}
