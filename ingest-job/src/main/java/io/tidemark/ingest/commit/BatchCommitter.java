package io.tidemark.ingest.commit;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.lit;

import io.tidemark.ingest.checkpoint.CheckpointLog;
import io.tidemark.ingest.config.IngestSettings;
import io.tidemark.ingest.kernel.Causes;
import io.tidemark.ingest.kernel.Cols;
import io.tidemark.ingest.kernel.FailurePoint;
import io.tidemark.ingest.kernel.FailurePoints;
import io.tidemark.ingest.kernel.IngestException;
import io.tidemark.ingest.kernel.RunLog;
import io.tidemark.ingest.kernel.RunPhases;
import io.tidemark.ingest.kernel.RunResources;
import io.tidemark.ingest.lease.Lease;
import io.tidemark.ingest.merge.MergePlanner;
import io.tidemark.ingest.tables.OutputTables;
import io.tidemark.model.contract.DatasetContract;
import io.tidemark.model.report.IngestCounts;
import io.tidemark.model.report.IngestErrorCode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.sql.Timestamp;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.exceptions.CommitStateUnknownException;
import org.apache.iceberg.exceptions.ValidationException;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.spark.SparkWriteOptions;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.DataFrameWriterV2;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;

/**
 * The commit stage: writes a planned batch, quarantine rows and remembered deletes first, then data
 * and checkpoint through the run's branch ({@link CuratedCommit}), published to main only if main
 * is still at the snapshot the batch was planned on. Losing a race is an outcome, not a failure:
 * see {@link CommitOutcome}.
 */
public final class BatchCommitter {
  /** How Iceberg's refusal to delete part of a file by a row filter begins. */
  private static final String PARTLY_MATCHED =
      "Cannot delete file where some, but not all, rows match filter";

  private final SparkSession spark;
  private final IngestSettings settings;
  private final DatasetContract spec;
  private final CommitSql sql;
  private final OutputTables tables;
  private final FailurePoints failurePoints;
  private final Lease lease;
  private final RunResources resources;

  /**
   * @param failurePoints the run's failure points ({@link FailurePoint}), reached as the commit
   *     goes
   * @param lease confirmed just before the batch is written to the run's branch and again just
   *     before it is published
   */
  public BatchCommitter(
      SparkSession spark,
      IngestSettings settings,
      OutputTables tables,
      FailurePoints failurePoints,
      Lease lease,
      RunResources resources) {
    this.spark = spark;
    this.settings = settings;
    this.spec = settings.dataset();
    this.sql = new CommitSql(settings);
    this.tables = tables;
    this.failurePoints = failurePoints;
    this.lease = lease;
    this.resources = resources;
  }

  /**
   * Commits the batch.
   *
   * @throws IngestException when the catalog cannot tell whether the commit landed and it did not
   * @throws LandedUnseenException when the batch landed but is not found in main's history after
   */
  public CommitOutcome commit(CommitRequest batch) {
    String batchId = batch.batchId();
    RunPhases phases = resources.phases();
    io.tidemark.model.report.BatchAudit[] audit = new io.tidemark.model.report.BatchAudit[1];
    try {
      if (batch.quarantine() != null) {
        phases.time(
            "quarantine",
            () -> writing(settings.quarantineSparkName(), q -> writeQuarantine(batch, q)));
        failurePoints.reached(FailurePoint.AFTER_QUARANTINE_WRITE, batchId);
      }
      phases.time(
          "tombstones", () -> writing(settings.tombstoneSparkName(), t -> writeTombstones(batch)));
      phases.time(
          "commit",
          () ->
              audit[0] =
                  new CuratedCommit(spark, settings, sql, tables, failurePoints, lease, resources)
                      .commit(batch));
    } catch (Exception e) {
      // Exception, not RuntimeException: Spark's Scala code throws checked exceptions.
      if (!isConflict(e) && !Causes.has(e, CommitStateUnknownException.class)) {
        throw e;
      }
      Optional<CommitOutcome> outcome = outcomeOf(e, batch);
      if (outcome.isPresent()) {
        return outcome.get();
      }
      // The catalog could not say, but the batch is in the history: it landed.
    }
    Snapshot mine =
        phases
            .time("commit", () -> CheckpointLog.findBatch(tables.loadCurated(), batchId))
            .orElseThrow(
                () ->
                    new LandedUnseenException(
                        "Cannot find batch "
                            + batchId
                            + " in the history of "
                            + settings.curatedSparkName()
                            + " after committing it"));
    return new CommitOutcome.Committed(mine.snapshotId(), audit[0]);
  }

  /**
   * What a refused write or an unknown commit state comes to: a conflict (or the batch committed by
   * another run) is an outcome; an unknown state that did not land fails the run; empty when it
   * landed after all.
   */
  private Optional<CommitOutcome> outcomeOf(Exception e, CommitRequest batch) {
    String batchId = batch.batchId();
    if (isConflict(e)) {
      Table current = tables.loadCurated();
      Optional<Snapshot> mine =
          current == null ? Optional.empty() : CheckpointLog.findBatch(current, batchId);
      if (mine.isPresent()) {
        return Optional.of(new CommitOutcome.AlreadyCommitted(mine.get().snapshotId()));
      }
      return Optional.of(
          Causes.find(e, ConcurrentCommit.class)
              .map(ConcurrentCommit::conflict)
              .orElseGet(
                  () ->
                      new CommitOutcome.Conflict(
                          settings.curatedSparkName(),
                          batch.baseSnapshot(),
                          OutputTables.snapshotId(current),
                          e)));
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
    return Optional.empty();
  }

  /**
   * Writes the batch's quarantine rows: appended when no row of {@code table} (the quarantine table
   * as loaded before the write) can name the batch's raw files, MERGEd otherwise.
   */
  private void writeQuarantine(CommitRequest batch, Table table) {
    CommitRequest.Quarantine quarantine = batch.quarantine();
    Dataset<Row> q =
        quarantine
            .invalidRows()
            .select(
                col(Cols.SOURCE_FILE).as("source_file"),
                col(Cols.ROW_INDEX).as("row_number"),
                col(Cols.REASON).as("reason"),
                col(Cols.DETAIL).as("detail"),
                col(Cols.ORIGINAL).as("original_values"));
    if (quarantine.problemRows() != null) {
      q = q.unionByName(quarantine.problemRows());
    }
    long invalid = batch.counts().recordsInvalid();
    if (invalid + quarantine.filesWithoutRows() == 0) {
      return;
    }
    Dataset<Row> rows =
        q.select(
            lit(batch.batchId()).as("batch_id"),
            lit(batch.run().runId()).as("run_id"),
            lit(Timestamp.from(batch.now())).as("quarantined_at"),
            col("source_file"),
            col("row_number"),
            col("reason"),
            col("detail"),
            col("original_values"),
            lit(null).cast(DataTypes.TimestampType).as(OutputTables.REPLAYED_AT),
            lit(null).cast(DataTypes.StringType).as(OutputTables.REPLAY_BATCH_ID));
    CommitRequest.FileRange range = quarantine.sourceFiles();
    Snapshot at = table == null ? null : table.currentSnapshot();
    boolean append = range != null && table != null && noRowsOf(table, at, range);
    failurePoints.reached(FailurePoint.QUARANTINE_CHECKED, batch.batchId());
    if (!append || !appendQuarantine(rows, range, at)) {
      spark.sql(sql.quarantineMerge(resources.view(rows), range));
    }
    RunLog.LOG.info(
        "Quarantined {} record(s) and {} file(s) of batch {} into {}",
        invalid,
        quarantine.files(),
        batch.batchId(),
        settings.quarantineSparkName());
  }

  /**
   * Whether no quarantine file of {@code at} can hold a row of the batch's source files (their
   * {@code source_file} bounds, kept whole, lie outside the range): the usual case, a batch's raw
   * files quarantined for the first time. False for a retried batch, a replay or a sweep that
   * rejects rows again, whose rows the MERGE must match.
   */
  private static boolean noRowsOf(Table table, Snapshot at, CommitRequest.FileRange range) {
    if (at == null) {
      return true;
    }
    try (CloseableIterable<FileScanTask> files =
        table
            .newScan()
            .useSnapshot(at.snapshotId())
            .filter(
                Expressions.and(
                    Expressions.greaterThanOrEqual("source_file", range.first()),
                    Expressions.lessThanOrEqual("source_file", range.last())))
            .planFiles()) {
      return !files.iterator().hasNext();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Appends the batch's quarantine rows when no quarantine row can name its source files, as an
   * overwrite of that range (which, by the check before, removes nothing) validated from {@code at}
   * at Iceberg's serializable isolation: a run of the same batch that added rows of the range
   * meanwhile makes this commit fail as a conflict, as the MERGE's would, so a race never
   * quarantines a row twice. It writes what the MERGE would, without its join.
   *
   * @return false, having written nothing, when a file committed since {@code at} by a rewrite
   *     (another engine's compaction, which the conflict check does not count) holds rows on both
   *     sides of the range, which an overwrite cannot take apart: the MERGE is the way then
   */
  private boolean appendQuarantine(Dataset<Row> rows, CommitRequest.FileRange range, Snapshot at) {
    DataFrameWriterV2<Row> write =
        rows.writeTo(settings.quarantineSparkName())
            .option(SparkWriteOptions.ISOLATION_LEVEL, "serializable");
    if (at != null) {
      write = write.option(SparkWriteOptions.VALIDATE_FROM_SNAPSHOT_ID, at.snapshotId());
    }
    try {
      write.overwrite(col("source_file").between(range.first(), range.last()));
      return true;
    } catch (org.apache.spark.sql.catalyst.analysis.NoSuchTableException e) {
      throw new IllegalStateException(settings.quarantineSparkName() + " is gone", e);
    } catch (RuntimeException e) {
      if (!straddled(e)) {
        throw e;
      }
      RunLog.LOG.info(
          "A file of {} rewritten since snapshot {} holds rows on both sides of the batch's raw"
              + " files; MERGEing its quarantine rows instead",
          settings.quarantineSparkName(),
          at == null ? "none" : at.snapshotId());
      return false;
    }
  }

  /** Iceberg's refusal to delete by a filter that some, but not all, rows of a file match. */
  private static boolean straddled(Throwable e) {
    return Causes.find(e, ValidationException.class)
        .filter(v -> String.valueOf(v.getMessage()).startsWith(PARTLY_MATCHED))
        .isPresent();
  }

  private void writeTombstones(CommitRequest batch) {
    List<Column> cols = new ArrayList<>();
    spec.keyColumns().forEach(k -> cols.add(col(k)));
    cols.add(col(Cols.MARKER));
    cols.add(lit(batch.batchId()).as("batch_id"));
    Dataset<Row> deletes =
        batch.planned().filter(MergePlanner.remembersDelete()).select(cols.toArray(Column[]::new));
    if (batch.fullRefresh()) {
      List<Column> out = new ArrayList<>();
      spec.keyColumns().forEach(k -> out.add(col(k)));
      out.add(col(Cols.MARKER).as(spec.changeMarker().column()));
      out.add(col("batch_id"));
      CuratedCommit.overwriteAll(
          deletes.select(out.toArray(Column[]::new)), settings.tombstoneSparkName());
      return;
    }
    IngestCounts c = batch.counts();
    if (c.recordsDeleted() + c.deletesOfUnknownKeys() + c.recordsUnchanged() == 0) {
      return;
    }
    spark.sql(sql.tombstoneAppend(resources.view(deletes)));
  }

  /**
   * Runs one write of a table other than the curated one, given the table as loaded before it; when
   * Iceberg refuses it because another run committed to that table meanwhile, says so with the
   * table and its snapshots.
   */
  private void writing(String table, Consumer<Table> write) {
    Table loaded = tables.load(table);
    long from = OutputTables.snapshotId(loaded);
    try {
      write.accept(loaded);
    } catch (Exception e) {
      if (isConflict(e) && !Causes.has(e, ConcurrentCommit.class)) {
        throw new ConcurrentCommit(
            new CommitOutcome.Conflict(
                table, from, OutputTables.snapshotId(tables.load(table)), e));
      }
      throw e;
    }
  }

  private static boolean isConflict(Throwable e) {
    return Causes.has(e, ValidationException.class)
        || Causes.has(e, CommitFailedException.class)
        || Causes.has(e, ConcurrentCommit.class);
  }

  /** Iceberg's own words for a refused commit, without the layers Spark wraps around them. */
  public static String refusal(Throwable e) {
    Throwable t = e;
    while (t.getCause() != null && t.getCause() != t) {
      if (t instanceof ValidationException || t instanceof CommitFailedException) {
        break;
      }
      t = t.getCause();
    }
    return t.getClass().getSimpleName() + ": " + t.getMessage();
  }
}
