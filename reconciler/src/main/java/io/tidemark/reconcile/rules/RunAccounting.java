package io.tidemark.reconcile.rules;

import io.tidemark.model.contract.IngestCommit;
import io.tidemark.model.report.IngestCounts;
import io.tidemark.model.report.IngestRunReport;
import io.tidemark.model.report.IngestStatus;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * Checks the ingest run reports of a window: every successful run accounts for each changed record
 * (changed = written + invalid + superseded; written = applied + unchanged + deletes of unknown
 * keys) and each discovered file (discovered = new + skipped; quarantined files among the new).
 * Failed and rejected runs committed nothing, so their counts are not held to the identities.
 *
 * <p>With the curated table's history ({@link #check(List, Ledger)}), reports and commits are also
 * matched both ways, so that a deleted report, or a report of a commit that is not on the table,
 * cannot go unnoticed: every ingest commit up to the window end has a report of its run (or of a
 * retry that found its batch committed), and every SUCCEEDED report up to the window end has its
 * batch on the table's main history (unless that part of the history was expired). The matching
 * covers the whole ledger, not only the window: main rolled back behind a run that finished before
 * the window starts takes that run's batch out of the history, and only the whole ledger shows it.
 * It costs one pass over the reports and the commits, which the caller has read anyway (the
 * unprocessed-files check needs every report too): no reads of its own, linear in their number.
 */
public final class RunAccounting {
  private RunAccounting() {}

  /**
   * The outcome over a set of reports.
   *
   * @param runsChecked runs checked: the successful runs whose counts were checked, and with a
   *     ledger every run a SUCCEEDED report or an ingest commit up to the window end names
   * @param unaccounted records plus files the reports do not account for
   * @param offendingRuns run ids whose counts break an identity, in run-id order
   * @param errors what each offending run breaks, e.g. {@code run-7: recordsChanged 10 != ...}
   */
  public record Outcome(
      int runsChecked, long unaccounted, List<String> offendingRuns, List<String> errors) {
    public Outcome {
      offendingRuns = List.copyOf(offendingRuns);
      errors = List.copyOf(errors);
    }
  }

  /**
   * What matching commits with reports needs.
   *
   * @param commits the ingest commits on the table's main history, all retained
   * @param retainedSince when the history was expired, the oldest retained snapshot's time; null
   *     when the history is complete
   * @param allReports every run report of the dataset, whenever it finished
   * @param from the window start, exclusive; null for the beginning (the counts of the reports that
   *     finished in the window are checked; the matching looks at the whole ledger)
   * @param to the window end, inclusive: later commits and reports are not matched yet
   */
  public record Ledger(
      List<IngestCommit> commits,
      Instant retainedSince,
      List<IngestRunReport> allReports,
      Instant from,
      Instant to) {
    public Ledger {
      commits = List.copyOf(commits);
      allReports = List.copyOf(allReports);
    }

    /** Whether a time falls in the window {@code (from, to]}. */
    public boolean inWindow(Instant t) {
      return (from == null || t.isAfter(from)) && !t.isAfter(to);
    }
  }

  /** The identities over the window's reports, and reports matched with commits both ways. */
  public static Outcome check(List<IngestRunReport> reports, Ledger ledger) {
    Outcome counts = check(reports);
    Set<String> reportedRuns = new HashSet<>();
    Set<String> retriedBatches = new HashSet<>();
    for (IngestRunReport r : ledger.allReports()) {
      reportedRuns.add(r.runId());
      if (r.status() == IngestStatus.ALREADY_COMMITTED && r.batchId() != null) {
        retriedBatches.add(r.batchId());
      }
    }
    Set<String> committedBatches = new HashSet<>();
    ledger.commits().forEach(c -> committedBatches.add(c.batchId()));

    Set<String> offending = new TreeSet<>(counts.offendingRuns());
    Set<String> checked = new HashSet<>();
    reports.stream().filter(r -> r.status().successful()).forEach(r -> checked.add(r.runId()));
    List<String> errors = new ArrayList<>(counts.errors());
    long unaccounted = counts.unaccounted();
    for (IngestCommit c : ledger.commits()) {
      if (c.committedAt().isAfter(ledger.to())) {
        continue;
      }
      String run = c.runId() == null ? "batch-" + c.batchId() : c.runId();
      checked.add(run);
      boolean reported =
          (c.runId() != null && reportedRuns.contains(c.runId()))
              || retriedBatches.contains(c.batchId());
      if (!reported) {
        offending.add(run);
        errors.add(
            run
                + ": committed batch "
                + c.batchId()
                + " at "
                + c.committedAt()
                + " (snapshot "
                + c.snapshotId()
                + ") but no run report of it exists");
        unaccounted++;
      }
    }
    for (IngestRunReport r : ledger.allReports()) {
      if (r.status() != IngestStatus.SUCCEEDED
          || r.batchId() == null
          || r.finishedAt().isAfter(ledger.to())) {
        continue;
      }
      checked.add(r.runId());
      boolean expired =
          ledger.retainedSince() != null && r.finishedAt().isBefore(ledger.retainedSince());
      if (!committedBatches.contains(r.batchId()) && !expired) {
        offending.add(r.runId());
        errors.add(
            r.runId()
                + ": reports batch "
                + r.batchId()
                + " committed, but no commit on the curated table's main history holds it");
        unaccounted++;
      }
    }
    return new Outcome(checked.size(), unaccounted, List.copyOf(offending), errors);
  }

  public static Outcome check(List<IngestRunReport> reports) {
    List<IngestRunReport> checked =
        reports.stream()
            .filter(r -> r.status().successful())
            .sorted(Comparator.comparing(IngestRunReport::runId))
            .toList();
    long unaccounted = 0;
    List<String> offending = new ArrayList<>();
    List<String> errors = new ArrayList<>();
    for (IngestRunReport r : checked) {
      List<String> broken = r.counts().accountingErrors();
      if (broken.isEmpty()) {
        continue;
      }
      offending.add(r.runId());
      broken.forEach(e -> errors.add(r.runId() + ": " + e));
      unaccounted += Math.max(broken.size(), unaccounted(r.counts()));
    }
    return new Outcome(checked.size(), unaccounted, offending, errors);
  }

  /** Records plus files a run's counts leave unexplained. */
  static long unaccounted(IngestCounts c) {
    long files =
        Math.abs(c.filesDiscovered() - c.filesNew() - c.filesSkipped())
            + Math.max(0, c.filesQuarantined() - c.filesNew());
    long records =
        Math.abs(
                c.recordsChanged()
                    - c.recordsWritten()
                    - c.recordsInvalid()
                    - c.recordsSuperseded())
            + Math.abs(
                c.recordsWritten()
                    - c.recordsApplied()
                    - c.recordsUnchanged()
                    - c.deletesOfUnknownKeys())
            + Math.max(0, c.recordsChanged() - c.recordsRead());
    return files + records;
  }
}
