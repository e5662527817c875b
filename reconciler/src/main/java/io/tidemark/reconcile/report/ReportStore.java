package io.tidemark.reconcile.report;

import io.tidemark.model.report.ReconciliationReport;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/** Where reconciliation reports live. Implementations are safe for concurrent use. */
public interface ReportStore {
  /** Writes (or replaces) a report atomically. */
  void save(ReconciliationReport report);

  Optional<ReconciliationReport> find(String id);

  /** The newest reports first (by start time), optionally of one dataset. */
  List<ReconciliationReport> list(Optional<String> dataset, int limit);

  /**
   * The end of the newest window found clean for a dataset ({@link
   * ReconciliationReport#windowClean}): where the next window starts.
   */
  Optional<Instant> lastPassedWindowEnd(String dataset);

  /**
   * Rewrites every RUNNING report as ABANDONED: called at start-up, when no run of this process can
   * be running yet.
   *
   * @return the reports rewritten
   */
  List<ReconciliationReport> abandonRunning(Instant now);

  /** The stored reports that did not parse when the store read its history; they are left out. */
  List<UnreadableReport> unreadable();
}
