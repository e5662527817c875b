package io.tidemark.ingest.checkpoint;

import java.util.Optional;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.util.SnapshotUtil;

/**
 * Reads checkpoints from a table's history: the snapshot ancestry of the current snapshot, newest
 * first. Snapshots written by others (compaction, manual fixes) carry no checkpoint and are walked
 * past.
 *
 * <p>The current snapshot is {@code main}'s head, so only published batches count: a commit left on
 * a run's branch (a run that crashed or lost the race before fast-forwarding {@code main}) is not
 * in this ancestry and is never read as a checkpoint, even though the table's metadata still lists
 * its snapshot.
 */
public final class CheckpointLog {
  private CheckpointLog() {}

  /** The newest checkpoint in the current snapshot's ancestry; empty when there is none. */
  public static Optional<Checkpoint> latest(Table table) {
    Snapshot current = table.currentSnapshot();
    if (current == null) {
      return Optional.empty();
    }
    for (Snapshot s : SnapshotUtil.ancestorsOf(current.snapshotId(), table::snapshot)) {
      Optional<Checkpoint> c = CheckpointCodec.decode(s.snapshotId(), s.summary());
      if (c.isPresent()) {
        return c;
      }
    }
    return Optional.empty();
  }

  /** The snapshot in the current ancestry that committed the batch, if any. */
  public static Optional<Snapshot> findBatch(Table table, String batchId) {
    Snapshot current = table.currentSnapshot();
    if (current == null) {
      return Optional.empty();
    }
    for (Snapshot s : SnapshotUtil.ancestorsOf(current.snapshotId(), table::snapshot)) {
      if (batchId.equals(s.summary().get(CheckpointCodec.BATCH_ID))) {
        return Optional.of(s);
      }
    }
    return Optional.empty();
  }
}
