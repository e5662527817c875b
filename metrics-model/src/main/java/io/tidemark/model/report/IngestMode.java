package io.tidemark.model.report;

/** What an ingest run processes. */
public enum IngestMode {
  /** Only new and changed raw records since the checkpoint (the default). */
  INCREMENTAL,
  /** Rebuild the table from all raw data: the baseline for comparisons and for recovery. */
  FULL_REFRESH
}
