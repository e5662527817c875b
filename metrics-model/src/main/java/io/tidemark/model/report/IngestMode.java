package io.tidemark.model.report;

/** What an ingest run processes. */
public enum IngestMode {
  /** Only new and changed raw records since the checkpoint (the default). */
  INCREMENTAL,
  /** Rebuild the table from all raw data: the baseline for comparisons and for recovery. */
  FULL_REFRESH,
  /**
   * Re-read the raw partitions of a date range and merge them with the version guard, without
   * moving the checkpoint or its processed-file list.
   */
  BACKFILL,
  /** Re-validate selected quarantined records and merge the ones now valid. */
  REPLAY_QUARANTINE,
  /**
   * List every partition and process the raw files in no committed batch (late beyond the lookback,
   * partitions discovery no longer lists) as a normal batch would.
   */
  SWEEP,
  /**
   * Rewrite the job's tables' small data files and delete files, expire old snapshots and remove
   * orphan files; no raw file is read, and the checkpoint stays readable (its snapshot is tagged).
   */
  MAINTAIN;

  /**
   * Whether the mode's commits carry the job's checkpoint. Backfill and quarantine replay commit
   * data with a batch id (for retries and run accounting) but leave the checkpoint where it was;
   * maintenance rewrites files without changing a row.
   */
  public boolean movesCheckpoint() {
    return this != BACKFILL && this != REPLAY_QUARANTINE && this != MAINTAIN;
  }

  /** Whether the mode reads raw records and writes them: every mode but maintenance. */
  public boolean writesRecords() {
    return this != MAINTAIN;
  }

  /** The mode as the command line spells it, e.g. {@code replay-quarantine}. */
  public String cliName() {
    return name().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
  }
}
