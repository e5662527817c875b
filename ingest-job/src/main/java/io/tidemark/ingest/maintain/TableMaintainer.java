package io.tidemark.ingest.maintain;

import io.tidemark.ingest.checkpoint.CheckpointCodec;
import io.tidemark.ingest.checkpoint.CheckpointLog;
import io.tidemark.ingest.kernel.RunLog;
import io.tidemark.model.report.TableMaintenance;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.time.Instant;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.actions.DeleteOrphanFiles;
import org.apache.iceberg.actions.RewriteDataFiles;
import org.apache.iceberg.actions.RewritePositionDeleteFiles;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.spark.actions.SparkActions;
import org.apache.spark.sql.SparkSession;

/**
 * Keeps one of the job's Iceberg tables bounded, as AWS Glue's table optimizers would: compaction
 * of small data files and of data files mostly deleted (Iceberg's thresholds), a merge of small
 * position-delete files, expiry of the snapshots older than the retention, and removal of the files
 * under the table's location that no snapshot references and that are older than the orphan age.
 *
 * <p>Every step is one of Iceberg's Spark actions, so what it does is what {@code CALL
 * system.rewrite_data_files(...)} and its siblings do. The rewrites commit {@code replace}
 * snapshots, which change no row: the reconciler does not count them as foreign commits. Expiry
 * keeps the last snapshot, every branch head and every tag, among them {@link CheckpointLog#TAG},
 * so the checkpoint survives it.
 */
public final class TableMaintainer {
  private final SparkSession spark;
  private final String runId;

  public TableMaintainer(SparkSession spark, String runId) {
    this.spark = spark;
    this.runId = runId;
  }

  /**
   * Maintains the table.
   *
   * @param name the table's Spark name, for the report
   * @param now the run's time
   * @param retention snapshots committed within this before {@code now} are kept
   * @param orphanAge files younger than this are never removed (a writer may be about to commit
   *     them)
   * @param rowsRemoved rows removed before, as no longer needed (see {@link RememberedDeletes})
   */
  public TableMaintenance maintain(
      String name,
      Table table,
      Instant now,
      Duration retention,
      Duration orphanAge,
      long rowsRemoved) {
    SparkActions actions = SparkActions.get(spark);
    RewriteDataFiles.Result data =
        actions.rewriteDataFiles(table).snapshotProperty(CheckpointCodec.RUN_ID, runId).execute();
    table.refresh();
    RewritePositionDeleteFiles.Result deletes =
        actions
            .rewritePositionDeletes(table)
            .snapshotProperty(CheckpointCodec.RUN_ID, runId)
            .execute();
    table.refresh();
    int before = snapshots(table);
    actions
        .expireSnapshots(table)
        .expireOlderThan(now.minus(retention).toEpochMilli())
        .retainLast(1)
        .execute();
    table.refresh();
    int after = snapshots(table);
    DeleteOrphanFiles.Result orphans =
        actions.deleteOrphanFiles(table).olderThan(now.minus(orphanAge).toEpochMilli()).execute();
    LiveFiles live = LiveFiles.of(table);
    TableMaintenance done =
        new TableMaintenance(
            name,
            data.rewrittenDataFilesCount(),
            data.addedDataFilesCount(),
            data.removedDeleteFilesCount() + deletes.rewrittenDeleteFilesCount(),
            deletes.addedDeleteFilesCount(),
            Math.max(0, before - after),
            size(orphans.orphanFileLocations()),
            rowsRemoved,
            live.dataFiles(),
            live.deleteFiles(),
            after);
    RunLog.LOG.info("Maintained {}", done.describe());
    return done;
  }

  /** The data files the table's current snapshot reads, and the delete files applied to them. */
  public record LiveFiles(long dataFiles, long deleteFiles) {
    /** Planned from the table's metadata: no data file is opened. */
    public static LiveFiles of(Table table) {
      if (table.currentSnapshot() == null) {
        return new LiveFiles(0, 0);
      }
      java.util.Set<String> deleteFiles = new java.util.HashSet<>();
      long dataFiles = 0;
      try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
        for (FileScanTask t : tasks) {
          dataFiles++;
          t.deletes().forEach(d -> deleteFiles.add(d.location()));
        }
      } catch (IOException e) {
        throw new UncheckedIOException("Cannot list the files of " + table.name(), e);
      }
      return new LiveFiles(dataFiles, deleteFiles.size());
    }
  }

  /** The snapshots the table's metadata keeps. */
  public static int snapshots(Table table) {
    return size(table.snapshots());
  }

  private static int size(Iterable<?> items) {
    int n = 0;
    for (Object ignored : items) {
      n++;
    }
    return n;
  }
}
