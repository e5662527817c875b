package io.tidemark.model.report;

/** How an incremental run finds its input. */
public enum DiscoveryMode {
  /** New files in the candidate partitions; every record of a new file is a candidate. */
  FILES,
  /** Re-read candidate partitions, keep records whose marker is after watermark minus lookback. */
  WATERMARK
}
