package io.tidemark.model.report;

import io.tidemark.model.json.Checks;
import io.tidemark.model.json.InvalidDocumentException;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;

/**
 * A person's acknowledgement of a failing rule: while it holds, the rule's failure does not alert
 * ({@code RuleAlerting} is 0, so its alarm and the dataset's composite stay quiet), though the rule
 * still fails in every report, metric and verdict. It holds only while the rule fails on what was
 * acknowledged: at most the observed value then, and no sample key (or run, file, column, commit
 * the rule names) that was not among those then. A failure that grows or names anything new breaks
 * it and alerts again; a pass clears it.
 *
 * @param ruleId the rule
 * @param reconciliationId the reconciliation whose failure was acknowledged
 * @param by who acknowledged it, as they gave it
 * @param note why, as they gave it; may be empty
 * @param at when
 * @param observed the rule's observed value in that reconciliation: the most a later failure may
 *     observe for the acknowledgement to hold
 * @param keys the sample keys (or what the rule names) of that failure: a later failure may name
 *     only these
 */
public record Acknowledgement(
    String ruleId,
    String reconciliationId,
    String by,
    String note,
    Instant at,
    double observed,
    List<String> keys) {

  /** The longest {@code by} and {@code note} taken. */
  public static final int TEXT_MAX = 500;

  public Acknowledgement {
    Checks.identifier("ruleId", ruleId);
    Checks.name("reconciliationId", reconciliationId);
    by = text("by", by);
    if (by.isEmpty()) {
      throw new InvalidDocumentException("by", by, "must say who acknowledges");
    }
    note = text("note", note);
    Checks.required("at", at);
    keys = keys == null ? List.of() : List.copyOf(keys);
  }

  private static String text(String field, String value) {
    String v = value == null ? "" : value.strip();
    if (v.length() > TEXT_MAX) {
      throw new InvalidDocumentException(field, v.length() + " characters", "at most " + TEXT_MAX);
    }
    if (v.chars().anyMatch(c -> c < 0x20 && c != '\t')) {
      throw new InvalidDocumentException(field, v, "must be one line of text");
    }
    return v;
  }

  /** The acknowledgement of a failed result of a reconciliation. */
  public static Acknowledgement of(
      ReconciliationReport report, RuleResult failed, String by, String note, Instant at) {
    if (failed.status() != RuleStatus.FAIL || failed.observed() == null) {
      throw new InvalidDocumentException(
          "rule", failed.ruleId(), "is " + failed.status() + ", not FAIL: nothing to acknowledge");
    }
    return new Acknowledgement(
        failed.ruleId(), report.id(), by, note, at, failed.observed(), failed.sampleKeys());
  }

  /** Whether this acknowledgement holds for a later result of its rule. */
  public boolean covers(RuleResult r) {
    return r.ruleId().equals(ruleId)
        && r.status() == RuleStatus.FAIL
        && r.observed() != null
        && r.observed() <= observed
        && new HashSet<>(keys).containsAll(r.sampleKeys());
  }

  /** What a later result names that this acknowledgement did not: why it no longer holds. */
  public String whyNot(RuleResult r) {
    if (r.status() != RuleStatus.FAIL) {
      return "the rule is " + r.status();
    }
    if (r.observed() == null || r.observed() > observed) {
      return "it now observes " + r.observed() + ", more than the " + observed + " acknowledged";
    }
    List<String> unseen =
        r.sampleKeys().stream().filter(k -> !new HashSet<>(keys).contains(k)).limit(5).toList();
    return "it now names " + unseen + (unseen.size() == 5 ? "…" : "") + ", not acknowledged";
  }
}
