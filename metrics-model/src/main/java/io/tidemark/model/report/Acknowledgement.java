package io.tidemark.model.report;

import io.tidemark.model.json.Checks;
import io.tidemark.model.json.InvalidDocumentException;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;

/**
 * A person's acknowledgement of a failing rule: while it holds, the rule's failure does not alert
 * ({@code RuleAlerting} is 0, so its alarm stays quiet), though the rule still fails in every
 * report, metric and verdict. It holds only while the rule fails on what was acknowledged (see
 * {@link #covers}): a failure that grows or names anything new breaks it and alerts again; a pass
 * clears it; an error neither holds nor clears it.
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

  /**
   * Whether this acknowledgement holds for a later result of its rule. A {@code freshness} failure
   * is one condition however long it lasts: it holds while the rule fails. Otherwise the result may
   * observe at most what was acknowledged, and, when the acknowledged sample was the whole failure
   * (no more keys failed than it held), name only keys it held; a failure larger than its sample is
   * compared by what it observes alone, since a partial repair shifts its sample.
   */
  public boolean covers(RuleResult r) {
    return whyNot(r) == null;
  }

  /** Why this acknowledgement does not hold for a later result; null when it does. */
  public String whyNot(RuleResult r) {
    if (!r.ruleId().equals(ruleId)) {
      return "it is another rule's";
    }
    if (r.status() != RuleStatus.FAIL) {
      return "the rule is " + r.status();
    }
    if (r.kind() == io.tidemark.model.config.RuleKind.FRESHNESS) {
      return null;
    }
    if (r.observed() == null || r.observed() > observed) {
      return "it now observes " + r.observed() + ", more than the " + observed + " acknowledged";
    }
    if (keys.size() < observed) {
      return null;
    }
    HashSet<String> known = new HashSet<>(keys);
    List<String> unseen = r.sampleKeys().stream().filter(k -> !known.contains(k)).toList();
    if (unseen.isEmpty()) {
      return null;
    }
    return "it now names "
        + unseen.subList(0, Math.min(5, unseen.size()))
        + (unseen.size() > 5 ? " and " + (unseen.size() - 5) + " more" : "")
        + ", not acknowledged";
  }
}
