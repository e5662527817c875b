package io.tidemark.reconcile.report;

import io.tidemark.model.report.ReconciliationReport;
import io.tidemark.model.report.ReconciliationStatus;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A report store that keeps every report it loaded or saved in memory, by id, and answers queries
 * from there; subclasses say where reports live ({@link #save}, and loading them into {@link #byId}
 * when they start).
 */
abstract class IndexedReportStore implements ReportStore {
  private static final Logger LOG = LoggerFactory.getLogger(IndexedReportStore.class);

  /** Every report of the store, by id. */
  protected final Map<String, ReconciliationReport> byId = new ConcurrentHashMap<>();

  /** The reports that did not parse, by location. */
  private final Map<String, UnreadableReport> unreadable = new ConcurrentHashMap<>();

  /** Leaves a report that does not parse out, and names it. */
  protected final void unreadable(String location, RuntimeException e) {
    UnreadableReport u = UnreadableReport.of(UnreadableReport.RECONCILIATION, location, e);
    unreadable.put(location, u);
    LOG.warn("{}", u.message());
  }

  @Override
  public final List<UnreadableReport> unreadable() {
    return unreadable.values().stream()
        .sorted(Comparator.comparing(UnreadableReport::location))
        .toList();
  }

  @Override
  public final Optional<ReconciliationReport> find(String id) {
    return Optional.ofNullable(byId.get(id));
  }

  @Override
  public final List<ReconciliationReport> list(Optional<String> dataset, int limit) {
    return byId.values().stream()
        .filter(r -> dataset.isEmpty() || dataset.get().equals(r.dataset()))
        .sorted(
            Comparator.comparing(ReconciliationReport::startedAt)
                .thenComparing(ReconciliationReport::id)
                .reversed())
        .limit(limit)
        .toList();
  }

  @Override
  public final Optional<Instant> lastPassedWindowEnd(String dataset) {
    return byId.values().stream()
        .filter(r -> r.dataset().equals(dataset) && r.windowClean())
        .map(ReconciliationReport::windowTo)
        .filter(Objects::nonNull)
        .max(Comparator.naturalOrder());
  }

  @Override
  public final List<ReconciliationReport> abandonRunning(Instant now) {
    List<ReconciliationReport> out = new ArrayList<>();
    for (ReconciliationReport r : List.copyOf(byId.values())) {
      if (r.status() != ReconciliationStatus.RUNNING) {
        continue;
      }
      Instant end = now.isBefore(r.startedAt()) ? r.startedAt() : now;
      ReconciliationReport abandoned =
          r.withOutcome(
              ReconciliationStatus.ABANDONED,
              end,
              r.results(),
              r.bytesScanned(),
              "The service stopped while this run was RUNNING; marked ABANDONED at the next start");
      save(abandoned);
      LOG.warn(
          "Reconciliation {} of {} was cut off by a shutdown: marked ABANDONED",
          r.id(),
          r.dataset());
      out.add(abandoned);
    }
    return out;
  }
}
