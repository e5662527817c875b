package io.tidemark.model.report;

import io.tidemark.model.config.RuleKind;
import io.tidemark.model.config.RuleSpec;
import io.tidemark.model.config.Severity;
import io.tidemark.model.json.Checks;
import io.tidemark.model.json.InvalidDocumentException;
import java.util.List;

/**
 * One rule's outcome in a reconciliation.
 *
 * @param ruleId the configured rule id
 * @param kind what the rule checks
 * @param severity how loud a failure is
 * @param observed the value observed; null when the rule errored
 * @param threshold the rule fails when observed is greater
 * @param status PASS, FAIL or ERROR
 * @param reason why it failed or errored, in words; null on PASS
 * @param sampleKeys up to the rule's sample size of offending keys (composite keys joined by '|')
 * @param bytesScanned bytes the engine scanned for this rule, 0 when unknown
 */
public record RuleResult(
    String ruleId,
    RuleKind kind,
    Severity severity,
    Double observed,
    double threshold,
    RuleStatus status,
    String reason,
    List<String> sampleKeys,
    long bytesScanned) {

  public RuleResult {
    Checks.identifier("ruleId", ruleId);
    Checks.required("kind", kind);
    severity = severity == null ? Severity.CRITICAL : severity;
    Checks.required("status", status);
    sampleKeys = sampleKeys == null ? List.of() : List.copyOf(sampleKeys);
    if (sampleKeys.size() > RuleSpec.SAMPLE_SIZE_MAX) {
      throw new InvalidDocumentException(
          "sampleKeys", sampleKeys.size() + " keys", "at most " + RuleSpec.SAMPLE_SIZE_MAX);
    }
    if (status == RuleStatus.ERROR && (reason == null || reason.isBlank())) {
      throw new InvalidDocumentException("reason", reason, "an ERROR result must say why");
    }
    if (status != RuleStatus.ERROR && observed == null) {
      throw new InvalidDocumentException("observed", null, "a " + status + " result needs a value");
    }
    Checks.nonNegative("bytesScanned", bytesScanned);
  }

  /** Evaluates an observed value against a rule: FAIL when greater than the threshold. */
  public static RuleResult evaluate(
      RuleSpec rule, double observed, String failReason, List<String> sample, long bytesScanned) {
    boolean fail = observed > rule.threshold();
    return new RuleResult(
        rule.id(),
        rule.kind(),
        rule.severity(),
        observed,
        rule.threshold(),
        fail ? RuleStatus.FAIL : RuleStatus.PASS,
        fail ? failReason : null,
        fail ? sample.stream().limit(rule.sampleSize()).toList() : List.of(),
        bytesScanned);
  }

  /** A rule that could not be evaluated. */
  public static RuleResult error(RuleSpec rule, String reason) {
    return new RuleResult(
        rule.id(),
        rule.kind(),
        rule.severity(),
        null,
        rule.threshold(),
        RuleStatus.ERROR,
        reason,
        List.of(),
        0);
  }
}
