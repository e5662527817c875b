package io.tidemark.model.report;

import io.tidemark.model.json.Checks;
import io.tidemark.model.json.InvalidDocumentException;
import java.time.Instant;
import java.util.List;

/**
 * The record of one reconciliation, written as JSON to {@code
 * <state-root>/_reconciliation/dt=YYYY-MM-DD/<id>.json}.
 *
 * @param schemaVersion the document's schema version, {@value #SCHEMA_VERSION}
 * @param id unique per run
 * @param pipeline the pipeline name
 * @param dataset the dataset name
 * @param mode window or full
 * @param windowFrom start of the window (exclusive), null for full mode or a first run
 * @param windowTo end of the window (inclusive)
 * @param engine the query engine, e.g. {@code duckdb} or {@code athena}
 * @param trigger who started it: {@code api}, {@code schedule}, ...
 * @param status the run's state
 * @param startedAt when it started
 * @param finishedAt when it ended; null while RUNNING
 * @param results one per evaluated rule
 * @param bytesScanned bytes the engine scanned in all
 * @param scanCostUsd the engine's price for them in US dollars (Athena bills per TB scanned); 0 for
 *     the embedded engine, null in reports written before the field existed
 * @param error why the run itself failed, when it did
 * @param curatedSnapshot the curated snapshot every check of the run read (pinned when it began);
 *     null while RUNNING, when the table had no snapshot, or in reports written before the field
 *     existed
 * @param acknowledgements the acknowledgements of its failing rules that hold after it: carried
 *     from the dataset's previous reconciliation while they hold, or given since it finished; empty
 *     when none (and in reports written before the field existed)
 */
public record ReconciliationReport(
    int schemaVersion,
    String id,
    String pipeline,
    String dataset,
    ReconciliationMode mode,
    Instant windowFrom,
    Instant windowTo,
    String engine,
    String trigger,
    ReconciliationStatus status,
    Instant startedAt,
    Instant finishedAt,
    List<RuleResult> results,
    long bytesScanned,
    Double scanCostUsd,
    String error,
    CuratedSnapshot curatedSnapshot,
    // Left out when empty, so that a reconciler from before the field still reads the report.
    @com.fasterxml.jackson.annotation.JsonInclude(
            com.fasterxml.jackson.annotation.JsonInclude.Include.NON_EMPTY)
        List<Acknowledgement> acknowledgements) {

  public static final int SCHEMA_VERSION = 1;

  public ReconciliationReport {
    if (schemaVersion != SCHEMA_VERSION) {
      throw new InvalidDocumentException(
          "schemaVersion", schemaVersion, "this reader understands version " + SCHEMA_VERSION);
    }
    Checks.name("id", id);
    Checks.name("pipeline", pipeline);
    Checks.name("dataset", dataset);
    Checks.required("mode", mode);
    Checks.nonBlank("engine", engine);
    Checks.required("status", status);
    Checks.required("startedAt", startedAt);
    if (windowFrom != null && windowTo != null && windowFrom.isAfter(windowTo)) {
      throw new InvalidDocumentException("windowFrom", windowFrom, "is after windowTo " + windowTo);
    }
    if (status.finished() && finishedAt == null) {
      throw new InvalidDocumentException("finishedAt", null, "a " + status + " run needs it");
    }
    results = results == null ? List.of() : List.copyOf(results);
    Checks.nonNegative("bytesScanned", bytesScanned);
    if (scanCostUsd != null && !(scanCostUsd >= 0)) {
      throw new InvalidDocumentException("scanCostUsd", scanCostUsd, "must be 0 or more");
    }
    acknowledgements = acknowledgements == null ? List.of() : List.copyOf(acknowledgements);
  }

  /** The acknowledgement of a rule's failure that holds after this run, if any. */
  public java.util.Optional<Acknowledgement> acknowledgement(String ruleId) {
    return acknowledgements.stream().filter(a -> a.ruleId().equals(ruleId)).findFirst();
  }

  /** Whether a result of this run fails and no acknowledgement holds for it. */
  public boolean alerting(RuleResult r) {
    return r.status() != RuleStatus.PASS
        && acknowledgement(r.ruleId()).map(a -> !a.covers(r)).orElse(true);
  }

  /** A copy with these acknowledgements. */
  public ReconciliationReport withAcknowledgements(List<Acknowledgement> acks) {
    return new ReconciliationReport(
        schemaVersion,
        id,
        pipeline,
        dataset,
        mode,
        windowFrom,
        windowTo,
        engine,
        trigger,
        status,
        startedAt,
        finishedAt,
        results,
        bytesScanned,
        scanCostUsd,
        error,
        curatedSnapshot,
        acks);
  }

  /** The overall status that a finished set of results implies. */
  public static ReconciliationStatus statusOf(List<RuleResult> results) {
    return results.stream().allMatch(r -> r.status() == RuleStatus.PASS)
        ? ReconciliationStatus.PASSED
        : ReconciliationStatus.FAILED;
  }

  /**
   * Whether this run found its own window clean: PASSED, or FAILED only on results carried over
   * from a FULL run. The next WINDOW run starts where such a run's window ended.
   */
  public boolean windowClean() {
    if (status == ReconciliationStatus.PASSED) {
      return true;
    }
    return status == ReconciliationStatus.FAILED
        && results.stream()
            .allMatch(r -> r.status() == RuleStatus.PASS || r.carriedOverFrom() != null);
  }

  /** A copy in another state, e.g. finished or ABANDONED. */
  public ReconciliationReport withOutcome(
      ReconciliationStatus newStatus,
      Instant finished,
      List<RuleResult> newResults,
      long scanned,
      String newError) {
    return withOutcome(newStatus, finished, newResults, scanned, 0.0, newError);
  }

  /** A copy in another state, with what the engine charged for the bytes it scanned. */
  public ReconciliationReport withOutcome(
      ReconciliationStatus newStatus,
      Instant finished,
      List<RuleResult> newResults,
      long scanned,
      double costUsd,
      String newError) {
    return new ReconciliationReport(
        schemaVersion,
        id,
        pipeline,
        dataset,
        mode,
        windowFrom,
        windowTo,
        engine,
        trigger,
        newStatus,
        startedAt,
        finished,
        newResults,
        scanned,
        costUsd,
        newError,
        curatedSnapshot,
        acknowledgements);
  }

  /** A copy that names the curated snapshot its checks read. */
  public ReconciliationReport withCuratedSnapshot(CuratedSnapshot snapshot) {
    return new ReconciliationReport(
        schemaVersion,
        id,
        pipeline,
        dataset,
        mode,
        windowFrom,
        windowTo,
        engine,
        trigger,
        status,
        startedAt,
        finishedAt,
        results,
        bytesScanned,
        scanCostUsd,
        error,
        snapshot,
        acknowledgements);
  }
}
