package io.tidemark.reconcile.engine.sql;

import io.tidemark.model.config.ChangeMarkerType;
import io.tidemark.reconcile.engine.EngineRequest;
import io.tidemark.reconcile.engine.Finding;
import io.tidemark.reconcile.engine.Freshness;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * Measures freshness the same way on every SQL engine, from the queries of {@link
 * ReconciliationSql} an engine runs for it ({@link Queries}).
 */
public final class FreshnessMeasure {
  private FreshnessMeasure() {}

  /**
   * The newest curated marker and the newest and oldest valid raw markers up to the window end, in
   * marker units; each null when there is none.
   */
  public record Markers(Long newestCurated, Long newestRaw, Long oldestRaw) {}

  /** A freshness query that failed; its message is freshness's error. */
  public static final class Failed extends Exception {
    public Failed(String message) {
      super(message);
    }
  }

  /** The queries freshness needs, as an engine runs them. */
  public interface Queries {
    Markers markers() throws Failed;

    /** {@link ReconciliationSql#pendingKeys}' count and sample. */
    Finding pendingKeys(long newerThan) throws Failed;

    /** {@link ReconciliationSql#pendingFiles}' files, as the engine names them. */
    List<String> pendingFiles(long newerThan) throws Failed;

    /** The bytes the queries run so far scanned; 0 when the engine does not count per measure. */
    long bytesScanned();
  }

  /**
   * Freshness of a request.
   *
   * @param arrivals when each raw file read arrived, by its name in {@link Queries#pendingFiles}
   */
  public static Freshness measure(Queries q, EngineRequest r, Map<String, Instant> arrivals) {
    boolean timestamps = r.dataset().changeMarker().type() == ChangeMarkerType.TIMESTAMP;
    try {
      Markers m = q.markers();
      Long curated = m.newestCurated();
      Long raw = m.newestRaw();
      // An empty curated table while raw holds versions is behind by everything raw holds: since
      // the oldest raw version, every key waits.
      Long behindSince = curated != null ? curated : raw == null ? null : m.oldestRaw();
      long newerThan = curated != null ? curated : Long.MIN_VALUE;
      // Only a raw version newer than curated's newest can wait: when raw has none, no query looks
      // for one (a healthy table's freshness is then its markers' query alone).
      boolean newerInRaw = raw != null && raw > newerThan;
      Finding pending = newerInRaw ? q.pendingKeys(newerThan) : Finding.of(0, List.of());
      Double lagNow = null;
      if (timestamps && behindSince != null) {
        lagNow = Math.max(0, (Window.micros(r.now()) - behindSince) / 1e6);
      } else if (!timestamps) {
        // A sequence carries no time: how long the oldest file curated has not caught up with
        // has been waiting.
        List<String> waiting = newerInRaw ? q.pendingFiles(newerThan) : List.of();
        lagNow = sinceOldestArrival(waiting, arrivals, r.now());
      }
      return new Freshness(
          curated == null ? null : marker(curated, timestamps),
          raw == null ? null : marker(raw, timestamps),
          lagNow,
          pending,
          null,
          q.bytesScanned());
    } catch (Failed e) {
      return Freshness.failed(e.getMessage(), q.bytesScanned());
    }
  }

  private static double sinceOldestArrival(
      List<String> waiting, Map<String, Instant> arrivals, Instant now) throws Failed {
    try {
      return Freshness.sinceOldestArrival(waiting, arrivals, now);
    } catch (IllegalStateException e) {
      throw new Failed(e.getMessage());
    }
  }

  /** A marker in {@link Freshness}' units: seconds for timestamps, the sequence itself. */
  private static double marker(long value, boolean timestamps) {
    return timestamps ? value / 1e6 : value;
  }
}
