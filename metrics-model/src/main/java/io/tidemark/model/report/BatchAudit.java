package io.tidemark.model.report;

import io.tidemark.model.audit.AuditRequest;
import io.tidemark.model.json.Checks;
import java.time.Instant;
import java.util.List;

/**
 * The reconciler's audit of a run's branch before the run publishes it to {@code main} (verified
 * publish): the same rules a reconciliation runs, over the branch's head against raw as the run
 * found it.
 *
 * @param reconciliationId the audit's id at the reconciler
 * @param engine the engine that ran its checks
 * @param branch the branch audited: the run's branch, or the held branch it was kept as when the
 *     audit failed
 * @param snapshotId the branch's head, the snapshot audited
 * @param status PASSED (the batch was published), FAILED (held) or ERROR (dropped: no verdict)
 * @param failedRules the rules that did not pass, with what they observed and sample keys
 * @param rawArrivedBy the raw the audit read: the files that had arrived by then (a retry of a held
 *     batch reads the same)
 * @param now the clock the audit judged change markers by (a marker later than it plus the
 *     contract's future tolerance is no version)
 */
public record BatchAudit(
    String reconciliationId,
    String engine,
    String branch,
    long snapshotId,
    ReconciliationStatus status,
    List<RuleResult> failedRules,
    Instant rawArrivedBy,
    Instant now) {
  public BatchAudit {
    Checks.nonBlank("reconciliationId", reconciliationId);
    Checks.nonBlank("engine", engine);
    Checks.nonBlank("branch", branch);
    Checks.required("status", status);
    failedRules = failedRules == null ? List.of() : List.copyOf(failedRules);
    Checks.required("rawArrivedBy", rawArrivedBy);
    Checks.required("now", now);
  }

  /** The audit of a reconciler's report of a branch. */
  public static BatchAudit of(ReconciliationReport report, AuditRequest request) {
    return new BatchAudit(
        report.id(),
        report.engine(),
        request.branch(),
        request.snapshotId(),
        report.status(),
        report.results().stream().filter(r -> r.status() != RuleStatus.PASS).toList(),
        request.rawArrivedBy(),
        request.now());
  }

  /** The same audit, of the branch it is now held as. */
  public BatchAudit heldAs(String heldBranch) {
    return new BatchAudit(
        reconciliationId, engine, heldBranch, snapshotId, status, failedRules, rawArrivedBy, now);
  }

  /**
   * The failed rules in words, e.g. {@code missing_keys (observed 2, threshold 0, e.g. 17, 42)}.
   */
  public String describeFailures() {
    if (failedRules.isEmpty()) {
      return "no rule failed";
    }
    StringBuilder sb = new StringBuilder();
    for (RuleResult r : failedRules) {
      if (!sb.isEmpty()) {
        sb.append("; ");
      }
      sb.append(r.ruleId()).append(' ').append(r.status());
      if (r.observed() != null) {
        sb.append(" (observed ").append(number(r.observed()));
        sb.append(", threshold ").append(number(r.threshold()));
        if (!r.sampleKeys().isEmpty()) {
          sb.append(", e.g. ")
              .append(
                  String.join(", ", r.sampleKeys().subList(0, Math.min(5, r.sampleKeys().size()))));
        }
        sb.append(')');
      } else if (r.reason() != null) {
        sb.append(" (").append(r.reason()).append(')');
      }
    }
    return sb.toString();
  }

  private static String number(double v) {
    return v == Math.rint(v) && Math.abs(v) < 1e15 ? Long.toString((long) v) : Double.toString(v);
  }
}
