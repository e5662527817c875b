package io.tidemark.reconcile.service;

import io.tidemark.model.report.CuratedSnapshot;
import io.tidemark.model.report.ReconciliationMode;
import io.tidemark.model.report.ReconciliationReport;
import io.tidemark.model.report.ReconciliationStatus;
import io.tidemark.model.report.RuleResult;
import io.tidemark.model.report.RuleStatus;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * Whether the curated table as readers see it now is proven equal to raw: its current snapshot is
 * the one the latest finished FULL reconciliation checked, and that reconciliation passed. A WINDOW
 * run checks only what changed, so it proves no snapshot; a commit after the proof (the next ingest
 * run, someone's UPDATE) leaves the table unproven until the next FULL run checks it.
 *
 * @param dataset the dataset
 * @param verified true when the current snapshot is proven
 * @param currentSnapshot the curated table's current snapshot, read from the catalog now; null when
 *     it has none
 * @param verifiedSnapshot the snapshot the latest passing FULL reconciliation proved (the one to
 *     pin when the current one is not proven); null when no FULL run has passed
 * @param verifiedBy that reconciliation's id
 * @param verifiedAt when it finished
 * @param tag the Iceberg tag that passing FULL runs move to the snapshot they proved; null when the
 *     contract turned it off
 * @param taggedSnapshot where that tag points in the catalog now; null when it does not exist yet
 * @param latestFull the latest FULL reconciliation that judged the table (PASSED or FAILED; one
 *     that ended in ERROR could not check and judges nothing); null when none did
 * @param reason the verdict in a sentence
 */
public record Verdict(
    String dataset,
    boolean verified,
    CuratedSnapshot currentSnapshot,
    CuratedSnapshot verifiedSnapshot,
    String verifiedBy,
    Instant verifiedAt,
    String tag,
    Long taggedSnapshot,
    String latestFull,
    String reason) {

  /**
   * Judges a dataset.
   *
   * @param current the curated table's current snapshot; null when it has none
   * @param tag the contract's verified tag; null when off
   * @param taggedSnapshot where the tag points; null when it does not exist
   * @param newestFirst the dataset's reconciliations, newest first
   */
  public static Verdict of(
      String dataset,
      CuratedSnapshot current,
      String tag,
      Long taggedSnapshot,
      List<ReconciliationReport> newestFirst) {
    Optional<ReconciliationReport> latest =
        newestFirst.stream().filter(r -> finishedFull(r)).findFirst();
    Optional<ReconciliationReport> passed = lastProof(newestFirst);
    CuratedSnapshot proved = passed.map(ReconciliationReport::curatedSnapshot).orElse(null);
    boolean verified =
        current != null
            && latest.isPresent()
            && latest.get().status() == ReconciliationStatus.PASSED
            && proved != null
            && proved.id() == current.id();
    return new Verdict(
        dataset,
        verified,
        current,
        proved,
        passed.map(ReconciliationReport::id).orElse(null),
        passed.map(ReconciliationReport::finishedAt).orElse(null),
        tag,
        taggedSnapshot,
        latest.map(ReconciliationReport::id).orElse(null),
        reason(current, latest.orElse(null), passed.orElse(null), verified));
  }

  /** Whether a reconciliation proved the snapshot it read: a FULL run that passed and names it. */
  public static boolean proves(ReconciliationReport r) {
    return r.mode() == ReconciliationMode.FULL
        && r.status() == ReconciliationStatus.PASSED
        && r.curatedSnapshot() != null;
  }

  /** The newest reconciliation that proved a snapshot; empty when none did. */
  public static Optional<ReconciliationReport> lastProof(List<ReconciliationReport> newestFirst) {
    return newestFirst.stream().filter(Verdict::proves).findFirst();
  }

  /**
   * A FULL run that judged the table: PASSED or FAILED. One that ended in ERROR could not check (a
   * file or the catalog unreadable), so it neither proves nor disproves a snapshot.
   */
  private static boolean finishedFull(ReconciliationReport r) {
    return r.mode() == ReconciliationMode.FULL
        && (r.status() == ReconciliationStatus.PASSED || r.status() == ReconciliationStatus.FAILED);
  }

  private static String reason(
      CuratedSnapshot current,
      ReconciliationReport latest,
      ReconciliationReport passed,
      boolean verified) {
    if (current == null) {
      return "The curated table has no snapshot yet: nothing to prove";
    }
    if (verified) {
      return "FULL reconciliation "
          + passed.id()
          + " proved snapshot "
          + current.id()
          + " (committed "
          + current.committedAt()
          + ") equal to raw";
    }
    if (latest == null) {
      return "No FULL reconciliation has judged the table: snapshot "
          + current.id()
          + " is not proven";
    }
    if (latest.status() == ReconciliationStatus.FAILED) {
      return "The latest FULL reconciliation, "
          + latest.id()
          + ", FAILED rule(s) "
          + latest.results().stream()
              .filter(r -> r.status() == RuleStatus.FAIL)
              .map(RuleResult::ruleId)
              .collect(Collectors.joining(", "))
          + lastProof(passed);
    }
    if (latest.curatedSnapshot() == null) {
      return "The latest FULL reconciliation, "
          + latest.id()
          + ", names no curated snapshot (it ran before snapshots were recorded): snapshot "
          + current.id()
          + " is not proven";
    }
    return "Snapshot "
        + current.id()
        + " (committed "
        + current.committedAt()
        + ") is not the one FULL reconciliation "
        + latest.id()
        + " proved ("
        + latest.curatedSnapshot().id()
        + "): main moved since, and is not proven until the next FULL run";
  }

  private static String lastProof(ReconciliationReport passed) {
    return passed == null
        ? "; no FULL reconciliation has passed"
        : "; the last proven snapshot is "
            + passed.curatedSnapshot().id()
            + " (FULL reconciliation "
            + passed.id()
            + ")";
  }
}
