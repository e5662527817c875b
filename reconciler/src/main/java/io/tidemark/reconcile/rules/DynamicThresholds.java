package io.tidemark.reconcile.rules;

import io.tidemark.model.config.DynamicThreshold;
import io.tidemark.model.config.RuleSpec;
import io.tidemark.model.report.ReconciliationMode;
import io.tidemark.model.report.ReconciliationReport;
import io.tidemark.model.report.ReconciliationStatus;
import io.tidemark.model.report.RuleResult;
import io.tidemark.model.report.RuleStatus;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Learns the thresholds of rules that declare one ({@link DynamicThreshold}) from the dataset's
 * stored reports, before the rules are evaluated, and says on each such rule's result how its
 * threshold was set. Pure: the caller reads the reports.
 *
 * <p>A rule learns from the values it observed in the last finished (PASSED or FAILED)
 * reconciliations of the same mode, newest first, whatever each verdict was: a WINDOW run observes
 * what changed in its window, a FULL run the whole table, so the two never mix. A result carried
 * over from another run, or one that could not be evaluated (ERROR), observed nothing of its own.
 * Until the rule has that many values it is learning, and its static threshold applies.
 */
public final class DynamicThresholds {
  private DynamicThresholds() {}

  /**
   * The rules to evaluate, and for each dynamic one the note its result carries.
   *
   * @param rules the rules, with their thresholds as learned so far
   * @param notes by rule id: how the threshold was set, or that the rule is learning
   */
  public record Applied(List<RuleSpec> rules, Map<String, String> notes) {
    public Applied {
      rules = List.copyOf(rules);
      notes = Map.copyOf(notes);
    }
  }

  /**
   * The rules with their learned thresholds.
   *
   * @param mode the mode of the run the rules judge
   * @param history the dataset's reports, newest first; the run's own (still RUNNING) is skipped
   */
  public static Applied apply(
      List<RuleSpec> rules, ReconciliationMode mode, List<ReconciliationReport> history) {
    List<RuleSpec> out = new ArrayList<>();
    Map<String, String> notes = new LinkedHashMap<>();
    for (RuleSpec rule : rules) {
      DynamicThreshold dynamic = rule.dynamic();
      if (dynamic == null) {
        out.add(rule);
        continue;
      }
      List<Double> values = observed(rule.id(), mode, history, dynamic.last());
      String runs = mode.name() + " runs";
      if (values.size() < dynamic.last()) {
        out.add(rule);
        notes.put(
            rule.id(),
            "learning its threshold: "
                + values.size()
                + " of the "
                + dynamic.last()
                + " "
                + runs
                + " it learns from so far; the static threshold "
                + DynamicThreshold.number(rule.threshold())
                + " applies until then");
        continue;
      }
      out.add(rule.withThreshold(dynamic.threshold(values)));
      notes.put(rule.id(), dynamic.describe(values, "the last " + dynamic.last() + " " + runs));
    }
    return new Applied(out, notes);
  }

  /** The results, each dynamic rule's carrying its note first (PASS or FAIL alike). */
  public static List<RuleResult> annotate(List<RuleResult> results, Map<String, String> notes) {
    List<RuleResult> out = new ArrayList<>();
    for (RuleResult r : results) {
      String note = notes.get(r.ruleId());
      out.add(
          note == null ? r : r.withReason(r.reason() == null ? note : note + "; " + r.reason()));
    }
    return out;
  }

  /** The rule's last {@code n} observed values in runs of {@code mode}, newest first. */
  static List<Double> observed(
      String ruleId, ReconciliationMode mode, List<ReconciliationReport> history, int n) {
    List<Double> values = new ArrayList<>();
    for (ReconciliationReport report : history) {
      if (values.size() == n) {
        break;
      }
      if (report.mode() != mode
          || (report.status() != ReconciliationStatus.PASSED
              && report.status() != ReconciliationStatus.FAILED)) {
        continue;
      }
      Optional<RuleResult> result =
          report.results().stream().filter(r -> r.ruleId().equals(ruleId)).findFirst();
      result
          .filter(r -> r.status() != RuleStatus.ERROR && r.carriedOverFrom() == null)
          .map(RuleResult::observed)
          .ifPresent(values::add);
    }
    return values;
  }
}
