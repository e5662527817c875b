package io.tidemark.ingest.checkpoint;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotRef;
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
 *
 * <p>Every publish that carries a checkpoint also points the tag {@value #TAG} at its snapshot, in
 * the same metadata commit. Snapshot expiry keeps a tagged snapshot, so when maintenance (AWS
 * Glue's optimizers, an operator's {@code expire_snapshots}) has expired every snapshot the job
 * wrote from {@code main}'s history, the checkpoint is still read, from the tag.
 */
public final class CheckpointLog {
  /** The tag on the snapshot that carries the newest published checkpoint. */
  public static final String TAG = "tidemark_checkpoint";

  private CheckpointLog() {}

  /** The newest checkpoint in the table's history; empty when there is none. */
  public static Optional<Checkpoint> latest(Table table) {
    for (Snapshot s : history(table)) {
      Optional<Checkpoint> c = CheckpointCodec.decode(s.snapshotId(), s.summary());
      if (c.isPresent()) {
        return c;
      }
    }
    return Optional.empty();
  }

  /** The snapshot in the table's history that committed the batch, if any. */
  public static Optional<Snapshot> findBatch(Table table, String batchId) {
    for (Snapshot s : history(table)) {
      if (batchId.equals(s.summary().get(CheckpointCodec.BATCH_ID))) {
        return Optional.of(s);
      }
    }
    return Optional.empty();
  }

  /**
   * The snapshots that may carry the job's commits, newest first: the current snapshot's retained
   * ancestry, then, when expiry cut that ancestry short, the snapshot {@value #TAG} holds if it is
   * older than every snapshot retained (an expired ancestor, not one a rollback left behind).
   */
  public static List<Snapshot> history(Table table) {
    List<Snapshot> out = new ArrayList<>();
    Snapshot current = table.currentSnapshot();
    if (current == null) {
      return out;
    }
    for (Snapshot s : SnapshotUtil.ancestorsOf(current.snapshotId(), table::snapshot)) {
      out.add(s);
    }
    Snapshot oldest = out.get(out.size() - 1);
    SnapshotRef tag = table.refs().get(TAG);
    if (oldest.parentId() != null && tag != null && tag.isTag()) {
      Snapshot tagged = table.snapshot(tag.snapshotId());
      if (tagged != null && tagged.sequenceNumber() < oldest.sequenceNumber()) {
        out.add(tagged);
      }
    }
    return out;
  }
}
