package io.tidemark.ingest.audit;

/** What a run does when it finds a batch held by a failed audit on the curated table. */
public enum HeldBatch {
  /** Fail with HELD_BATCH, naming the branch and the two choices below (the default). */
  REFUSE,
  /** Audit the held branch again and, on PASSED, publish it to main (the run ends there). */
  RETRY,
  /** Drop the held branch; the run then ingests as usual, reading the batch's files again. */
  DISCARD
}
