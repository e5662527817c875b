package io.tidemark.ingest.kernel;

import java.util.Objects;
import java.util.function.BiConsumer;

/**
 * A hook the job calls at each {@link FailurePoint}. Production uses {@link #none()}; tests throw
 * from it to simulate a crash at that exact point (fault injection, not mocking), or block on it to
 * line two runs up.
 */
@FunctionalInterface
public interface FailurePoints {
  /** Called when the run reaches the point. */
  void reached(FailurePoint point);

  /**
   * What the job calls: the point and the (deterministic) id of the batch the run is working on.
   * Forwards to {@link #reached(FailurePoint)} unless the hook was made with {@link #withBatchId}.
   */
  default void reached(FailurePoint point, String batchId) {
    reached(point);
  }

  /** The production hook: does nothing. */
  static FailurePoints none() {
    return point -> {};
  }

  /** A hook that also sees the batch id, e.g. to find the crashed batch's commit later. */
  static FailurePoints withBatchId(BiConsumer<FailurePoint, String> hook) {
    Objects.requireNonNull(hook, "hook is null");
    return new FailurePoints() {
      @Override
      public void reached(FailurePoint point) {
        hook.accept(point, null);
      }

      @Override
      public void reached(FailurePoint point, String batchId) {
        hook.accept(point, batchId);
      }
    };
  }
}
