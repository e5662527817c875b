package io.tidemark.ingest;

/**
 * A hook the job calls at each {@link FailurePoint}. Production uses {@link #none()}; tests throw
 * from it to simulate a crash at that exact point (fault injection, not mocking), or block on it to
 * line two runs up.
 */
@FunctionalInterface
public interface FailurePoints {
  /**
   * Called when the run reaches the point.
   *
   * @param batchId the batch the run is working on (its deterministic id)
   */
  void reached(FailurePoint point, String batchId);

  /** The production hook: does nothing. */
  static FailurePoints none() {
    return (point, batchId) -> {};
  }
}
