package io.tidemark.ingest.commit;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.lit;

import io.tidemark.ingest.audit.AuditException;
import io.tidemark.ingest.audit.VerifiedPublish;
import io.tidemark.ingest.checkpoint.CheckpointCodec;
import io.tidemark.ingest.checkpoint.CheckpointLog;
import io.tidemark.ingest.config.IngestSettings;
import io.tidemark.ingest.config.IngestSpark;
import io.tidemark.ingest.kernel.Cols;
import io.tidemark.ingest.kernel.FailurePoint;
import io.tidemark.ingest.kernel.FailurePoints;
import io.tidemark.ingest.kernel.IngestException;
import io.tidemark.ingest.kernel.RunLog;
import io.tidemark.ingest.kernel.RunResources;
import io.tidemark.ingest.lease.Lease;
import io.tidemark.ingest.merge.Action;
import io.tidemark.ingest.merge.MergePlanner;
import io.tidemark.ingest.tables.OutputTables;
import io.tidemark.model.audit.AuditRequest;
import io.tidemark.model.report.BatchAudit;
import io.tidemark.model.report.IngestCounts;
import io.tidemark.model.report.IngestErrorCode;
import io.tidemark.model.report.ReconciliationStatus;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.spark.CommitMetadata;
import org.apache.spark.network.util.JavaUtils;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * Commits a batch's data and checkpoint to the run's branch, created at the snapshot the batch was
 * planned on, then fast-forwards main to it (see {@link RunBranches}); throws {@link
 * ConcurrentCommit} (or Iceberg's commit failure) when main moved.
 *
 * <p>An incremental batch with new and updated keys and deletes is two commits on the branch: the
 * new rows appended (new keys' and updated keys'; no checkpoint), then, carrying the checkpoint, a
 * row delta that deletes the rows the updates and deletes replace by their file and position, which
 * the plan read ({@link PositionDeletes}): the table is read once a batch, by the plan. With only
 * one kind, one commit. A batch of more than {@link IngestSpark#POSITION_DELETES_MAX_ROWS} changes,
 * or a table that cannot take position-delete files, has its updates and deletes MERGEd instead
 * (the new keys still appended first), the MERGE reading the table again. Main moves to both
 * commits at once, so no reader of main and no checkpoint ever sees one without the other; the
 * planner decided each key's action against the same snapshot the branch starts at, so splitting
 * the writes changes nothing the version guard would have done.
 *
 * @param failurePoints the run's failure points, reached as the commit goes
 * @param lease confirmed just before the branch is written and again just before main moves
 */
record CuratedCommit(
    SparkSession spark,
    IngestSettings settings,
    CommitSql sql,
    OutputTables tables,
    FailurePoints failurePoints,
    Lease lease,
    RunResources resources) {
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
   * What the branch gets: the rows appended (as a view) and either the MERGE's source (as a view)
   * or the positions of the rows deleted.
   *
   * @param appended the rows appended: the new keys', and with position deletes the updated keys'
   *     new rows too
   * @param deletes with position deletes, the rows they delete; null otherwise
   */
  private record Writes(
      Dataset<Row> appended,
      String appendView,
      String matchedView,
      List<PositionDeletes.Position> deletes,
      boolean full) {
    /** The append carries the checkpoint when nothing follows it. */
    boolean appendOnly() {
      return !full && appendView != null && matchedView == null && deletes == null;
    }
  }

  /**
   * Writes the batch to the run's branch and publishes it; with verified publish, only once the
   * reconciler's audit of the branch passed.
   *
   * @return the audit; null without verified publish
   * @throws AuditException when the audit failed (the branch is then held) or gave no verdict
   */
  BatchAudit commit(CommitRequest batch) {
    Writes writes = writes(batch);
    BatchAudit audit;
    String branch = RunBranches.name(batch.run().runId(), batch.run().startedAt());
    String target = RunBranches.sparkName(settings.curatedSparkName(), branch);
    long start = branchStart(batch.baseSnapshot(), batch.run().runId());
    RunBranches.create(tables::loadCurated, branch, start);
    try {
      failurePoints.reached(FailurePoint.BEFORE_COMMIT, batch.batchId());
      lease.confirm();
      writeBranch(batch, writes, branch, target, start);
      failurePoints.reached(FailurePoint.BEFORE_PUBLISH, batch.batchId());
      audit = audit(batch, branch);
      if (audit != null) {
        // The audit may take long: a stop asked meanwhile stops the run before it publishes.
        failurePoints.reached(FailurePoint.BEFORE_PUBLISH, batch.batchId());
      }
      lease.confirm();
      // Published and dropped in one metadata commit. Not in a finally: after a crash (an Error)
      // nothing more happens, as in a real one; a later run drops the branch once it is stale.
      publish(branch, batch.baseSnapshot(), audit == null ? null : audit.snapshotId());
    } catch (Exception e) {
      dropRunBranch(branch);
      throw e;
    }
    return audit;
  }

  /**
   * With verified publish, the reconciler's audit of the branch's head: PASSED lets the batch be
   * published; FAILED holds the branch (see {@link HeldBranches}) and fails the run; no verdict
   * fails the run and the branch is dropped. Without verified publish, null.
   */
  private BatchAudit audit(CommitRequest batch, String branch) {
    VerifiedPublish verified = settings.publish();
    if (!verified.on()) {
      return null;
    }
    long head = HeldBranches.head(tables.loadCurated(), branch);
    AuditRequest request =
        new AuditRequest(
            batch.run().runId(),
            batch.batchId(),
            branch,
            head,
            batch.rawArrivedBy() == null ? Instant.now() : batch.rawArrivedBy(),
            batch.now());
    RunLog.LOG.info(
        "Batch {}: asking {} to audit branch {} (snapshot {}) before publishing it",
        batch.batchId(),
        verified.where(),
        branch,
        head);
    BatchAudit audit = BranchAuditing.ask(verified, settings.dataset().name(), request);
    if (audit.status() == ReconciliationStatus.PASSED) {
      RunLog.LOG.info(
          "Batch {}: audit {} PASSED; publishing it to main",
          batch.batchId(),
          audit.reconciliationId());
      return audit;
    }
    if (audit.status() != ReconciliationStatus.FAILED) {
      throw BranchAuditing.noVerdict(batch.batchId(), settings.curatedSparkName(), audit);
    }
    // Only the run that holds the lease keeps a branch that blocks the runs after it.
    lease.confirm();
    String held = HeldBranches.hold(tables::loadCurated, branch);
    BatchAudit heldAudit = audit.heldAs(held);
    throw new AuditException(
        IngestErrorCode.AUDIT_FAILED,
        "Batch "
            + batch.batchId()
            + " failed its audit "
            + audit.reconciliationId()
            + ": "
            + audit.describeFailures()
            + "; nothing was published to "
            + settings.curatedSparkName()
            + "'s main. The batch is held on branch "
            + held
            + " (snapshot "
            + head
            + ") for inspection; rerun with --held-batch retry to audit it again and publish it"
            + " if it passes, or --held-batch discard to drop it and ingest its files again",
        heldAudit,
        null);
  }

  private Writes writes(CommitRequest batch) {
    IngestCounts counts = batch.counts();
    boolean full = batch.fullRefresh();
    long changes = counts.recordsUpdated() + counts.recordsDeleted();
    List<PositionDeletes.Position> deletes =
        full || changes == 0 || changes > IngestSpark.positionDeletesMaxRows(spark)
            ? null
            : positions(batch.planned(), changes);
    // With position deletes, an updated key's new row is appended beside the new keys' rows.
    List<String> appendedActions =
        deletes == null
            ? List.of(Action.INSERTED.name())
            : List.of(Action.INSERTED.name(), Action.UPDATED.name());
    List<Column> rowCols = new ArrayList<>();
    for (String c : tables.curatedColumns()) {
      rowCols.add(
          c.equals(settings.dataset().changeMarker().column()) ? col(Cols.MARKER).as(c) : col(c));
    }
    Dataset<Row> appended =
        batch
            .planned()
            .filter(col(MergePlanner.ACTION).isin(appendedActions.toArray()))
            .select(rowCols.toArray(Column[]::new));
    boolean appends =
        counts.recordsInserted() > 0 || (deletes != null && counts.recordsUpdated() > 0);
    String appendView = full || !appends ? null : resources.view(appended);
    // The MERGE writes the changes that are not deleted by position; a batch that changes nothing
    // and appends nothing still commits (an empty MERGE), so that its checkpoint lands.
    String matchedView =
        full || deletes != null || (appends && changes == 0)
            ? null
            : resources.view(changed(batch.planned()));
    return new Writes(appended, appendView, matchedView, deletes, full);
  }

  /**
   * The data files and positions of the rows the batch's updates and deletes replace, as the plan
   * found them; null (the MERGE then writes them) when the table cannot take position deletes, when
   * its columns are not the batch's (a MERGE keeps a column it does not set), or when the positions
   * are not one distinct row per change (a changed record without one, or a key twice in the table,
   * which the MERGE refuses loudly).
   */
  private List<PositionDeletes.Position> positions(Dataset<Row> planned, long changes) {
    Table table = tables.loadCurated();
    if (!List.of(planned.columns()).contains(MergePlanner.CURRENT_FILE)
        || !PositionDeletes.apply(table)
        || table.schema().columns().size() != tables.curatedColumns().size()) {
      return null;
    }
    Set<PositionDeletes.Position> positions = new LinkedHashSet<>();
    Map<String, String> paths = new HashMap<>();
    for (Row r :
        planned
            .filter(col(MergePlanner.ACTION).isin(Action.UPDATED.name(), Action.DELETED.name()))
            .select(col(MergePlanner.CURRENT_FILE), col(MergePlanner.CURRENT_POS))
            .collectAsList()) {
      if (r.isNullAt(0) || r.isNullAt(1)) {
        return null;
      }
      // One string per data file, however many of its rows change.
      String path = paths.computeIfAbsent(r.getString(0), p -> p);
      positions.add(new PositionDeletes.Position(path, r.getLong(1)));
    }
    // A position seen twice leaves the set short of the changes.
    return positions.size() == changes ? new ArrayList<>(positions) : null;
  }

  private void writeBranch(
      CommitRequest batch, Writes writes, String branch, String target, long base) {
    boolean thenMore = writes.matchedView() != null || writes.deletes() != null;
    if (writes.appendView() != null && thenMore) {
      CommitMetadata.withCommitProperties(
          Map.of(CheckpointCodec.RUN_ID, batch.run().runId()),
          () -> spark.sql(sql.curatedInsert(writes.appendView(), target)),
          RuntimeException.class);
      failurePoints.reached(FailurePoint.AFTER_INSERTS, batch.batchId());
    }
    if (writes.deletes() != null) {
      PositionDeletes.commit(
          tables.loadCurated(), branch, base, writes.deletes(), batch.properties());
      return;
    }
    CommitMetadata.withCommitProperties(
        batch.properties(),
        () -> {
          if (writes.full()) {
            overwriteAll(writes.appended(), target);
          } else if (writes.appendOnly()) {
            spark.sql(sql.curatedInsert(writes.appendView(), target));
          } else {
            withBroadcastUpTo(
                MERGE_BROADCAST_MAX_BYTES,
                () -> spark.sql(sql.curatedMerge(writes.matchedView(), target)));
          }
          return null;
        },
        RuntimeException.class);
  }

  private void publish(String branch, long base, Long audited) {
    try {
      RunBranches.fastForwardMain(tables::loadCurated, branch, audited, true);
    } catch (RunBranches.BranchMovedException e) {
      throw new IngestException(
          IngestErrorCode.AUDIT_UNAVAILABLE,
          "Cannot publish: " + e.getMessage() + "; rerunning is safe",
          e);
    } catch (IllegalArgumentException e) {
      throw new ConcurrentCommit(
          new CommitOutcome.Conflict(
              settings.curatedSparkName(), base, OutputTables.snapshotId(tables.loadCurated()), e));
    }
  }

  /**
   * The batch's updates and deletes: the MERGE's source (the version guard would leave the other
   * records alone), cached so that Spark knows its real size and can broadcast it: the MERGE then
   * streams the table once against it instead of shuffling every row of the table.
   */
  private Dataset<Row> changed(Dataset<Row> planned) {
    List<Column> cols = new ArrayList<>();
    settings.dataset().keyColumns().forEach(k -> cols.add(col(k)));
    settings.dataset().payloadColumns().forEach(c -> cols.add(col(c)));
    cols.add(col(Cols.MARKER));
    cols.add(col(Cols.OP));
    Dataset<Row> changed =
        resources.cache(
            planned
                .filter(col(MergePlanner.ACTION).isin(Action.UPDATED.name(), Action.DELETED.name()))
                .select(cols.toArray(Column[]::new)));
    changed.count();
    return changed;
  }

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
   * another run's batch got there first. It carries the run's id, as every commit of the job does.
   */
  private long branchStart(long base, String runId) {
    if (base >= 0) {
      return base;
    }
    Table t = tables.loadCurated();
    if (t.currentSnapshot() == null) {
      t.newFastAppend().set(CheckpointCodec.RUN_ID, runId).commit();
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
      RunLog.LOG.warn(
          "Cannot drop this run's branch {} of {} (a run {} later drops it): {}",
          branch,
          settings.curatedSparkName(),
          RunBranches.STALE_AFTER,
          e.toString());
    }
  }

  /** Replaces a table's rows in one commit (a full refresh). */
  static void overwriteAll(Dataset<Row> rows, String table) {
    try {
      rows.writeTo(table).overwrite(lit(true));
    } catch (org.apache.spark.sql.catalyst.analysis.NoSuchTableException e) {
      throw new IngestException(
          IngestErrorCode.INTERNAL_ERROR, "Cannot overwrite " + table + ": it does not exist", e);
    }
  }
}
