package io.tidemark.ingest.checkpoint;

import org.apache.iceberg.Table;

/**
 * The curated table as a run finds it: the checkpoint its history holds and the snapshot a batch is
 * planned and counted against.
 *
 * @param curated the curated table; null when it does not exist yet
 * @param checkpoint the latest checkpoint in main's history; null when there is none
 * @param baseSnapshot the table's current snapshot; -1 when it has none
 */
public record TableState(Table curated, Checkpoint checkpoint, long baseSnapshot) {
  /** The state of the table as loaded. */
  public static TableState of(Table curated) {
    Checkpoint cp = curated == null ? null : CheckpointLog.latest(curated).orElse(null);
    long base =
        curated == null || curated.currentSnapshot() == null
            ? -1
            : curated.currentSnapshot().snapshotId();
    return new TableState(curated, cp, base);
  }

  /** The watermark the checkpoint holds; null when none. */
  public String watermark() {
    return checkpoint == null ? null : checkpoint.watermark();
  }
}
