package io.tidemark.ingest.kernel;

import io.tidemark.model.report.IngestErrorCode;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;

/**
 * A request to stop a run before it ends on its own, e.g. from SIGTERM (an operator's stop, a
 * scheduler's timeout). The run checks it at each {@link FailurePoint}: before its batch is
 * published it stops there and reports {@link IngestErrorCode#STOPPED_BY_SIGTERM}; after, the batch
 * is committed and the run finishes and says so. What the run registers with {@link #onRequest} (it
 * cancels its Spark jobs) runs when the request comes, so that a long step ends early.
 */
public final class StopRequest {
  private final CountDownLatch requested = new CountDownLatch(1);
  private final List<Runnable> actions = new CopyOnWriteArrayList<>();
  private volatile String signal;

  /**
   * Requests the stop; false when it was requested already.
   *
   * @param signal what asked, e.g. {@code SIGTERM}
   */
  public boolean request(String signal) {
    Objects.requireNonNull(signal, "signal is null");
    synchronized (this) {
      if (this.signal != null) {
        return false;
      }
      this.signal = signal;
    }
    requested.countDown();
    for (Runnable a : actions) {
      try {
        a.run();
      } catch (RuntimeException e) {
        // Best effort: the run still stops at its next point.
      }
    }
    return true;
  }

  /** Whether a stop was requested. */
  public boolean requested() {
    return signal != null;
  }

  /** What requested the stop; null when none did. */
  public String signal() {
    return signal;
  }

  /** Runs {@code action} when the stop is requested (at once if it was already). */
  public void onRequest(Runnable action) {
    Objects.requireNonNull(action, "action is null");
    actions.add(action);
    if (requested()) {
      action.run();
    }
  }

  /** Blocks until a stop is requested. */
  public void await() throws InterruptedException {
    requested.await();
  }
}
