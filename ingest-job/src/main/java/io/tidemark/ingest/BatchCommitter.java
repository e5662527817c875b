package io.tidemark.ingest;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.lit;

import io.tidemark.ingest.checkpoint.CheckpointCodec;
import io.tidemark.ingest.checkpoint.CheckpointLog;
import io.tidemark.ingest.config.IngestSettings;
import io.tidemark.ingest.merge.Action;
import io.tidemark.ingest.merge.MergePlanner;
import io.tidemark.ingest.merge.OutputTables;
import io.tidemark.ingest.merge.RunBranches;
import io.tidemark.ingest.sql.IngestSql;
import io.tidemark.ingest.validate.Cols;
import io.tidemark.model.config.DatasetSpec;
import io.tidemark.model.report.IngestCounts;
import io.tidemark.model.report.IngestErrorCode;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.exceptions.CommitStateUnknownException;
import org.apache.iceberg.exceptions.ValidationException;
import org.apache.iceberg.spark.CommitMetadata;
import org.apache.spark.network.util.JavaUtils;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes a planned batch: quarantine rows, remembered deletes, then data and checkpoint to the
 * run's branch (the checkpoint in the commit that completes the batch's data), published to main
 * only if main is still at the snapshot the batch was planned on (see {@link RunBranches}). Losing
 * a race is an outcome, not a failure: see {@link CommitOutcome}.
 */
final class BatchCommitter {
  private static final Logger LOG = LoggerFactory.getLogger(IngestJob.class);

  private final SparkSession spark;
  private final IngestSettings settings;
  private final DatasetSpec spec;
  private final IngestSql sql;
  private final OutputTables tables;
  private final FailurePoints failurePoints;

  BatchCommitter(
      SparkSession spark,
      IngestSettings settings,
      OutputTables tables,
      FailurePoints failurePoints) {
    this.spark = spark;
    this.settings = settings;
    this.spec = settings.dataset();
    this.sql = new IngestSql(settings);
    this.tables = tables;
    this.failurePoints = failurePoints;
  }

  /**
   * Commits the batch.
   *
   * @param invalidRows the batch's invalid candidate records, in the validated shape
   * @param problemRows quarantine rows of files quarantined whole; null when none
   * @param planned the deduplicated records with the action the version guard takes
   * @param properties the checkpoint and run properties that go into the commit
   * @throws IngestException when the catalog cannot tell whether the commit landed and it did not
   */
  CommitOutcome commit(
      RunRecorder run,
      BatchPlan plan,
      Dataset<Row> invalidRows,
      Dataset<Row> problemRows,
      Dataset<Row> planned,
      Map<String, String> properties,
      Instant now) {
    String batchId = plan.batchId();
    return commitWith(
        run,
        plan,
        () -> {
          writing(
              settings.quarantineSparkName(),
              () -> writeQuarantine(run, invalidRows, problemRows, batchId, now));
          failurePoints.reached(FailurePoint.AFTER_QUARANTINE_WRITE, batchId);
          writing(
              settings.tombstoneSparkName(),
              () -> writeTombstones(run, planned, batchId, plan.fullRefresh()));
          commitCurated(run, planned, properties, plan.baseSnapshot(), plan.fullRefresh());
        });
  }

  /**
   * Commits a quarantine replay's records: remembered deletes, then the data through the run's
   * branch as {@link #commit} does, with the same outcomes. Nothing is written to the quarantine
   * table here (the replay marks its rows once this returned), and the properties carry no
   * checkpoint.
   */
  CommitOutcome commitReplay(
      RunRecorder run, BatchPlan plan, Dataset<Row> planned, Map<String, String> properties) {
    String batchId = plan.batchId();
    return commitWith(
        run,
        plan,
        () -> {
          writing(
              settings.tombstoneSparkName(), () -> writeTombstones(run, planned, batchId, false));
          commitCurated(run, planned, properties, plan.baseSnapshot(), false);
        });
  }

  /** Runs the writes; a refused or unknown commit becomes an outcome as {@link #commit} says. */
  private CommitOutcome commitWith(RunRecorder run, BatchPlan plan, Runnable writes) {
    String batchId = plan.batchId();
    try {
      writes.run();
    } catch (Exception e) {
      if (isConflict(e)) {
        Table current = tables.loadCurated();
        Optional<Snapshot> mine =
            current == null ? Optional.empty() : CheckpointLog.findBatch(current, batchId);
        if (mine.isPresent()) {
          return new CommitOutcome.AlreadyCommitted(mine.get().snapshotId());
        }
        return Causes.find(e, ConcurrentCommit.class)
            .map(ConcurrentCommit::conflict)
            .orElseGet(
                () ->
                    new CommitOutcome.Conflict(
                        settings.curatedSparkName(),
                        plan.baseSnapshot(),
                        OutputTables.snapshotId(current),
                        e));
      }
      if (!Causes.has(e, CommitStateUnknownException.class)) {
        throw e;
      }
      if (CheckpointLog.findBatch(tables.loadCurated(), batchId).isEmpty()) {
        throw new IngestException(
            IngestErrorCode.COMMIT_STATE_UNKNOWN,
            "Cannot tell whether batch "
                + batchId
                + " was committed to "
                + settings.curatedSparkName()
                + ": "
                + e.getMessage()
                + "; it is not in the table's history now, so rerunning is safe",
            e);
      }
      // The catalog could not say, but the batch is in the history: it landed.
    }
    run.committed = true;
    Snapshot mine =
        CheckpointLog.findBatch(tables.loadCurated(), batchId)
            .orElseThrow(
                () ->
                    new IngestException(
                        IngestErrorCode.INTERNAL_ERROR,
                        "Cannot find batch "
                            + batchId
                            + " in the history of "
                            + settings.curatedSparkName()
                            + " after committing it"));
    return new CommitOutcome.Committed(mine.snapshotId());
  }

  private void writeQuarantine(
      RunRecorder run,
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
            col("original_values"),
            lit(null).cast(DataTypes.TimestampType).as(OutputTables.REPLAYED_AT),
            lit(null).cast(DataTypes.StringType).as(OutputTables.REPLAY_BATCH_ID));
    spark.sql(sql.quarantineMerge(run.view(rows)));
    LOG.info(
        "Quarantined {} record(s) and {} file(s) of batch {} into {}",
        run.counts.recordsInvalid(),
        run.filesQuarantined,
        batchId,
        settings.quarantineSparkName());
  }

  private void writeTombstones(
      RunRecorder run, Dataset<Row> planned, String batchId, boolean full) {
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
   *
   * <p>An incremental batch with new keys and changed ones is two commits on the branch: the new
   * keys' rows appended (no checkpoint), then the MERGE of the updates and deletes, carrying the
   * checkpoint; with only one kind, one commit. Main moves to both at once, so no reader of main
   * and no checkpoint ever sees one without the other; the planner decided each key's action
   * against the same snapshot the branch starts at, so splitting the inserts out changes nothing
   * the version guard would have done.
   */
  private void commitCurated(
      RunRecorder run,
      Dataset<Row> planned,
      Map<String, String> properties,
      long base,
      boolean full) {
    List<Column> rowCols = new ArrayList<>();
    for (String c : tables.curatedColumns()) {
      rowCols.add(c.equals(spec.changeMarker().column()) ? col(Cols.MARKER).as(c) : col(c));
    }
    Dataset<Row> inserted =
        planned
            .filter(col(MergePlanner.ACTION).equalTo(Action.INSERTED.name()))
            .select(rowCols.toArray(Column[]::new));
    IngestCounts counts = run.counts;
    boolean merges = counts.recordsUpdated() + counts.recordsDeleted() > 0;
    boolean inserts = counts.recordsInserted() > 0;
    // The insert carries the checkpoint when no MERGE follows; a batch that changes nothing still
    // commits (an empty MERGE), so that its checkpoint lands.
    boolean insertOnly = !full && inserts && !merges;
    String insertView = full || !inserts ? null : run.view(inserted);
    String matchedView = full || insertOnly ? null : run.view(changed(run, planned));
    String branch = RunBranches.name(run.runId, run.startedAt);
    String target = RunBranches.sparkName(settings.curatedSparkName(), branch);
    RunBranches.create(tables::loadCurated, branch, branchStart(base));
    try {
      failurePoints.reached(FailurePoint.BEFORE_COMMIT, run.batchId);
      if (insertView != null && !insertOnly) {
        CommitMetadata.withCommitProperties(
            Map.of(CheckpointCodec.RUN_ID, run.runId),
            () -> spark.sql(sql.curatedInsert(insertView, target)),
            RuntimeException.class);
        failurePoints.reached(FailurePoint.AFTER_INSERTS, run.batchId);
      }
      CommitMetadata.withCommitProperties(
          properties,
          () -> {
            if (full) {
              overwriteAll(inserted, target);
            } else if (insertOnly) {
              spark.sql(sql.curatedInsert(insertView, target));
            } else {
              withBroadcastUpTo(
                  MERGE_BROADCAST_MAX_BYTES,
                  () -> spark.sql(sql.curatedMerge(matchedView, target)));
            }
            return null;
          },
          RuntimeException.class);
      failurePoints.reached(FailurePoint.BEFORE_PUBLISH, run.batchId);
      try {
        RunBranches.fastForwardMain(tables::loadCurated, branch);
      } catch (IllegalArgumentException e) {
        throw new ConcurrentCommit(
            new CommitOutcome.Conflict(
                settings.curatedSparkName(),
                base,
                OutputTables.snapshotId(tables.loadCurated()),
                e));
      }
    } catch (Exception e) {
      dropRunBranch(branch);
      throw e;
    }
    // Not in a finally: after a crash (an Error) nothing more happens, as in a real one; a later
    // run drops the branch once it is stale.
    dropRunBranch(branch);
  }

  /**
   * The batch's updates and deletes: the MERGE's source (the version guard would leave the other
   * records alone), cached so that Spark knows its real size and can broadcast it: the MERGE then
   * streams the table once against it instead of shuffling every row of the table.
   */
  private Dataset<Row> changed(RunRecorder run, Dataset<Row> planned) {
    List<Column> cols = new ArrayList<>();
    spec.keyColumns().forEach(k -> cols.add(col(k)));
    spec.comparedColumns().forEach(c -> cols.add(col(c)));
    cols.add(col(Cols.MARKER));
    cols.add(col(Cols.OP));
    Dataset<Row> changed =
        run.cache(
            planned
                .filter(col(MergePlanner.ACTION).isin(Action.UPDATED.name(), Action.DELETED.name()))
                .select(cols.toArray(Column[]::new)));
    changed.count();
    return changed;
  }

  /**
   * The largest MERGE source, as cached (compressed, by column), that is broadcast to the
   * executors; the broadcast copy, built on the driver as uncompressed rows, is several times
   * larger, so this stays well under the driver's default result limit (1 GB). A hint is not
   * enough: Spark drops it when it rewrites a MERGE with both DELETE and UPDATE actions, so the
   * MERGE runs with Spark's size threshold raised to this. A larger source is joined by shuffling,
   * as Spark plans it.
   */
  static final long MERGE_BROADCAST_MAX_BYTES = 64L << 20;

  private static final String BROADCAST_THRESHOLD = "spark.sql.autoBroadcastJoinThreshold";

  /**
   * Runs {@code statement} with Spark's broadcast threshold at least {@code bytes}, then puts the
   * session's setting back. A session that disabled broadcasting (0 or -1) keeps it disabled. The
   * setting is the session's: another job running in the same session meanwhile plans with it too
   * (only its speed can change).
   */
  private void withBroadcastUpTo(long bytes, Runnable statement) {
    String before = spark.conf().get(BROADCAST_THRESHOLD).trim();
    long current = before.startsWith("-") ? -1 : JavaUtils.byteStringAsBytes(before);
    if (current <= 0 || current >= bytes) {
      statement.run();
      return;
    }
    spark.conf().set(BROADCAST_THRESHOLD, Long.toString(bytes));
    try {
      statement.run();
    } finally {
      spark.conf().set(BROADCAST_THRESHOLD, before);
    }
  }

  /**
   * The snapshot the run's branch starts at: the one the batch was planned and counted against. A
   * table without a snapshot (the first batch) first gets an empty one on main, since a branch
   * needs a snapshot to start from; that snapshot must still hold no data and no checkpoint, or
   * another run's batch got there first.
   */
  private long branchStart(long base) {
    if (base >= 0) {
      return base;
    }
    Table t = tables.loadCurated();
    if (t.currentSnapshot() == null) {
      t.newFastAppend().commit();
      t.refresh();
    }
    Snapshot start = t.currentSnapshot();
    if (OutputTables.hasData(t) || CheckpointLog.latest(t).isPresent()) {
      throw new ConcurrentCommit(
          new CommitOutcome.Conflict(settings.curatedSparkName(), -1, start.snapshotId(), null));
    }
    return start.snapshotId();
  }

  private void dropRunBranch(String branch) {
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

  /**
   * Runs one write of a table other than the curated one; when Iceberg refuses it because another
   * run committed to that table meanwhile, says so with the table and its snapshots.
   */
  private void writing(String table, Runnable write) {
    long from = OutputTables.snapshotId(tables.load(table));
    try {
      write.run();
    } catch (Exception e) {
      if (isConflict(e) && !Causes.has(e, ConcurrentCommit.class)) {
        throw new ConcurrentCommit(
            new CommitOutcome.Conflict(
                table, from, OutputTables.snapshotId(tables.load(table)), e));
      }
      throw e;
    }
  }

  /** Replaces a table's rows in one commit (a full refresh). */
  private static void overwriteAll(Dataset<Row> rows, String table) {
    try {
      rows.writeTo(table).overwrite(lit(true));
    } catch (org.apache.spark.sql.catalyst.analysis.NoSuchTableException e) {
      throw new IngestException(
          IngestErrorCode.INTERNAL_ERROR, "Cannot overwrite " + table + ": it does not exist", e);
    }
  }

  private static boolean isConflict(Throwable e) {
    return Causes.has(e, ValidationException.class)
        || Causes.has(e, CommitFailedException.class)
        || Causes.has(e, ConcurrentCommit.class);
  }

  /** Carries a {@link CommitOutcome.Conflict} out of the writes that found it. */
  private static final class ConcurrentCommit extends RuntimeException {
    private final transient CommitOutcome.Conflict conflict;

    ConcurrentCommit(CommitOutcome.Conflict conflict) {
      super(conflict.describe(), conflict.cause());
      this.conflict = conflict;
    }

    CommitOutcome.Conflict conflict() {
      return conflict;
    }
  }
}
