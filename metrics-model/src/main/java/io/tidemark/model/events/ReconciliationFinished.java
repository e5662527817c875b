package io.tidemark.model.events;

import io.tidemark.model.report.ReconciliationReport;
import io.tidemark.model.report.RuleResult;
import io.tidemark.model.report.RuleStatus;
import java.time.Instant;
import java.util.List;

/**
 * The detail of the EventBridge event a reconciler puts when a reconciliation finishes: source
 * {@value #SOURCE}, detail type {@value #DETAIL_TYPE}. An event rule matches on any field, e.g.
 * {@code {"source": ["tidemark"], "detail-type": ["Tidemark Reconciliation Finished"], "detail":
 * {"status": ["FAILED", "ERROR"]}}}.
 *
 * @param deployment the reconciler's deployment (the stack's DeploymentName), so that rules of
 *     several deployments in one account each match their own; null when not configured
 * @param pipeline the pipeline
 * @param dataset the dataset
 * @param reconciliationId the reconciliation's id
 * @param mode WINDOW or FULL
 * @param status PASSED, FAILED or ERROR
 * @param trigger what started it: {@code api}, {@code schedule}…
 * @param failingRules the rules that did not pass (FAIL or ERROR), in the report's order
 * @param windowFrom the window's start; null for FULL or a first run
 * @param windowTo the window's end
 * @param curatedSnapshot the curated snapshot it checked; null when the table had none
 * @param startedAt when it began
 * @param finishedAt when it ended
 * @param report the report's path on the reconciler's API ({@code /api/reconciliations/{id}})
 * @param error why it could not check, for an ERROR
 */
public record ReconciliationFinished(
    String deployment,
    String pipeline,
    String dataset,
    String reconciliationId,
    String mode,
    String status,
    String trigger,
    List<String> failingRules,
    Instant windowFrom,
    Instant windowTo,
    Long curatedSnapshot,
    Instant startedAt,
    Instant finishedAt,
    String report,
    String error) {
  public static final String SOURCE = "tidemark";
  public static final String DETAIL_TYPE = "Tidemark Reconciliation Finished";

  public ReconciliationFinished {
    failingRules = List.copyOf(failingRules);
  }

  /** The event of a finished reconciliation of a deployment (null: none named). */
  public static ReconciliationFinished of(ReconciliationReport r, String deployment) {
    return new ReconciliationFinished(
        deployment,
        r.pipeline(),
        r.dataset(),
        r.id(),
        r.mode().name(),
        r.status().name(),
        r.trigger(),
        r.results().stream()
            .filter(x -> x.status() != RuleStatus.PASS)
            .map(RuleResult::ruleId)
            .toList(),
        r.windowFrom(),
        r.windowTo(),
        r.curatedSnapshot() == null ? null : r.curatedSnapshot().id(),
        r.startedAt(),
        r.finishedAt(),
        "/api/reconciliations/" + r.id(),
        r.error());
  }
}
