package io.tidemark.e2e;

import io.tidemark.ingest.kernel.FailurePoint;
import io.tidemark.ingest.kernel.FailurePoints;

/** A crash at one failure point: an Error, so nothing after it runs, as when a JVM dies. */
public final class SimulatedCrash extends Error {
  public SimulatedCrash(FailurePoint point) {
    super("simulated crash at " + point);
  }

  /** A hook that crashes the run when it reaches {@code at}. */
  public static FailurePoints at(FailurePoint at) {
    return point -> {
      if (point == at) {
        throw new SimulatedCrash(point);
      }
    };
  }
}
