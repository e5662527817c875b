package io.tidemark.reconcile.rules;

import io.tidemark.model.report.IngestCounts;
import io.tidemark.model.report.IngestRunReport;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Checks the ingest run reports of a window: every successful run accounts for each changed record
 * (changed = written + invalid + superseded; written = applied + unchanged + deletes of unknown
 * keys) and each discovered file (discovered = new + skipped; quarantined files among the new).
 * Failed and rejected runs committed nothing, so their counts are not held to the identities.
 */
public final class RunAccounting {
  private RunAccounting() {}

  /**
   * The outcome over a set of reports.
   *
   * @param runsChecked successful runs checked
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
