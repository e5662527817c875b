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
 * @param carriedOverFrom the id of the FULL reconciliation whose failure this result repeats: a
 *     WINDOW run sees only what changed in its window, so it cannot clear damage a FULL run found
 *     (only a FULL run that passes can); null for a result of the run's own observations
 * @param diff what the failing rule's keys hold on each side, column by column; null for a passing
 *     rule, a rule that does not sample keys, or an engine that could not say
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
    long bytesScanned,
    String carriedOverFrom,
    @com.fasterxml.jackson.annotation.JsonInclude(
            com.fasterxml.jackson.annotation.JsonInclude.Include.NON_NULL)
        ValueDiff diff) {

  /** The prefix of a carried-over result's reason. */
  public static final String CARRIED_OVER = "carried over from FULL reconciliation ";

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
    if (carriedOverFrom != null && status != RuleStatus.FAIL) {
      throw new InvalidDocumentException(
          "carriedOverFrom", carriedOverFrom, "only a FAIL result can be carried over");
    }
    if (diff != null && status != RuleStatus.FAIL) {
      throw new InvalidDocumentException("diff", status, "only a FAIL result shows a difference");
    }
  }

  /** A result without a difference. */
  public RuleResult(
      String ruleId,
      RuleKind kind,
      Severity severity,
      Double observed,
      double threshold,
      RuleStatus status,
      String reason,
      List<String> sampleKeys,
      long bytesScanned,
      String carriedOverFrom) {
    this(
        ruleId,
        kind,
        severity,
        observed,
        threshold,
        status,
        reason,
        sampleKeys,
        bytesScanned,
        carriedOverFrom,
        null);
  }

  /** The same result showing this difference. */
  public RuleResult withDiff(ValueDiff d) {
    return new RuleResult(
        ruleId,
        kind,
        severity,
        observed,
        threshold,
        status,
        reason,
        sampleKeys,
        bytesScanned,
        carriedOverFrom,
        d);
  }

  /** The same result saying {@code reason} instead. */
  public RuleResult withReason(String reason) {
    return with(reason, sampleKeys);
  }

  /** The same result with other sample keys (masked ones, say). */
  public RuleResult withSampleKeys(List<String> keys) {
    return with(reason, keys);
  }

  private RuleResult with(String reason, List<String> keys) {
    return new RuleResult(
        ruleId,
        kind,
        severity,
        observed,
        threshold,
        status,
        reason,
        keys,
        bytesScanned,
        carriedOverFrom,
        diff);
  }

  /**
   * A FULL run's failure repeated by a later WINDOW run, which cannot see the damage (its window
   * holds only what changed) and so must not report the rule clear.
   *
   * @param fullFailure the failing result of the FULL run
   * @param fullReportId that FULL run's id
   */
  public static RuleResult carriedOver(RuleResult fullFailure, String fullReportId) {
    if (fullFailure.status() != RuleStatus.FAIL) {
      throw new IllegalArgumentException(
          "Cannot carry over rule " + fullFailure.ruleId() + ": it is " + fullFailure.status());
    }
    String origin =
        fullFailure.carriedOverFrom() != null ? fullFailure.carriedOverFrom() : fullReportId;
    String reason = fullFailure.reason() == null ? "" : fullFailure.reason();
    if (reason.startsWith(CARRIED_OVER)) {
      reason = reason.substring(reason.indexOf(": ") + 2);
    }
    return new RuleResult(
        fullFailure.ruleId(),
        fullFailure.kind(),
        fullFailure.severity(),
        fullFailure.observed(),
        fullFailure.threshold(),
        RuleStatus.FAIL,
        CARRIED_OVER + origin + " (only a FULL run that passes clears it): " + reason,
        fullFailure.sampleKeys(),
        0,
        origin,
        fullFailure.diff());
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
        bytesScanned,
        null);
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
        0,
        null);
  }
}
