package io.tidemark.model.config;

import io.tidemark.model.json.Checks;
import io.tidemark.model.json.InvalidDocumentException;

/**
 * One configured reconciliation rule.
 *
 * @param id the rule id, unique per dataset; default: the kind's id
 * @param kind what the rule checks
 * @param threshold the rule fails when its observed value is greater; default: the kind's default
 * @param tolerance for {@code count_match} only: ABSOLUTE (default) or RATIO
 * @param severity CRITICAL (default) or WARNING
 * @param sampleSize how many offending keys a result carries, 1..1000, default 20
 * @param dynamic a threshold learned from the rule's history, which replaces {@code threshold} once
 *     enough history exists; null: the static threshold always applies
 */
public record RuleSpec(
    String id,
    RuleKind kind,
    Double threshold,
    ToleranceMode tolerance,
    Severity severity,
    Integer sampleSize,
    DynamicThreshold dynamic) {

  public static final int SAMPLE_SIZE_DEFAULT = 20;
  public static final int SAMPLE_SIZE_MAX = 1000;

  public RuleSpec {
    Checks.required("kind", kind);
    id = Checks.identifier("id", id == null ? kind.id() : id);
    threshold =
        Checks.finiteNonNegative(
            "threshold", threshold == null ? kind.defaultThreshold() : threshold);
    if (tolerance != null && kind != RuleKind.COUNT_MATCH) {
      throw new InvalidDocumentException("tolerance", tolerance, "applies to count_match only");
    }
    tolerance =
        kind == RuleKind.COUNT_MATCH && tolerance == null ? ToleranceMode.ABSOLUTE : tolerance;
    severity = severity == null ? Severity.CRITICAL : severity;
    sampleSize = sampleSize == null ? SAMPLE_SIZE_DEFAULT : sampleSize;
    if (sampleSize < 1 || sampleSize > SAMPLE_SIZE_MAX) {
      throw new InvalidDocumentException(
          "sampleSize", sampleSize, "must be between 1 and " + SAMPLE_SIZE_MAX);
    }
  }

  /** A rule with a static threshold only. */
  public RuleSpec(
      String id,
      RuleKind kind,
      Double threshold,
      ToleranceMode tolerance,
      Severity severity,
      Integer sampleSize) {
    this(id, kind, threshold, tolerance, severity, sampleSize, null);
  }

  /** A rule of the given kind with every default. */
  public static RuleSpec of(RuleKind kind) {
    return new RuleSpec(null, kind, null, null, null, null);
  }

  /** The same rule judged by another threshold (a dynamic threshold, once learned). */
  public RuleSpec withThreshold(double learned) {
    return new RuleSpec(id, kind, learned, tolerance, severity, sampleSize, dynamic);
  }

  /** One rule of every kind, with defaults: what a dataset gets when none are configured. */
  public static java.util.List<RuleSpec> defaults() {
    return java.util.Arrays.stream(RuleKind.values()).map(RuleSpec::of).toList();
  }
}
