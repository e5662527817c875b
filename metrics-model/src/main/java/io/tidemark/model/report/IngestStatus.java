package io.tidemark.model.report;

/** How an ingest run ended. */
public enum IngestStatus {
  /** The batch was committed. */
  SUCCEEDED,
  /** Nothing new to process; nothing was committed. */
  NOTHING_TO_DO,
  /** The batch's id was already committed (a retry): nothing was written again. */
  ALREADY_COMMITTED,
  /**
   * Another run held the table's run lease (object-store state roots): this run did nothing and
   * left the batch to that run (exit code 0); the report's warnings name the holder.
   */
  LEASE_HELD,
  /** The validation policy rejected the batch (exit code 4); nothing was committed. */
  REJECTED,
  /** Any other failure (exit code 1 or 2); nothing was committed by this run. */
  FAILED;

  /**
   * Whether the run ended as planned: it left the table correct and up to date with its input, or
   * left its input to the run that holds the lease.
   */
  public boolean successful() {
    return this == SUCCEEDED
        || this == NOTHING_TO_DO
        || this == ALREADY_COMMITTED
        || this == LEASE_HELD;
  }
}
