package io.tidemark.model.alarms;

import io.tidemark.model.config.RuleKind;
import io.tidemark.model.config.RuleSpec;
import java.util.Arrays;
import java.util.List;

/**
 * The alarm that watches one reconciliation rule ({@code RuleAlerting} with {@code Rule} set to the
 * rule's id), named alike by the stack's templates and the service's own alarm board. The generic
 * template holds one per rule kind, watching the kind's id, the id a rule has unless the contract
 * names it; a rule under an id of its own (a {@code custom_sql} or {@code referential_integrity}
 * rule, a second {@code aggregate_match}) gets one more, or it would fail with no alarm to say so.
 */
public final class RuleAlarm {
  private RuleAlarm() {}

  /** The alarm's logical id: {@code my_check}: {@code RuleMyCheckFailing}. */
  public static String logicalId(String ruleId) {
    StringBuilder sb = new StringBuilder("Rule");
    for (String part : ruleId.split("_")) {
      if (!part.isEmpty()) {
        sb.append(Character.toUpperCase(part.charAt(0))).append(part.substring(1));
      }
    }
    return sb.append("Failing").toString();
  }

  /** A logical id as alarm names end: {@code RuleMyCheckFailing}: {@code rule-my-check-failing}. */
  public static String kebab(String pascal) {
    return pascal.replaceAll("(?<=.)(?=\\p{Upper})", "-").toLowerCase(java.util.Locale.ROOT);
  }

  /**
   * Checks that the rules of a dataset name their alarms apart: a rule id whose alarm would have
   * the logical id of another rule's or a kind's ({@code check_2} and {@code check2}, {@code
   * countMatch} and the kind {@code count_match}) is refused, naming both.
   *
   * @throws io.tidemark.model.json.InvalidDocumentException on the second rule's id
   */
  public static void checkApart(List<RuleSpec> rules) {
    java.util.Map<String, String> taken = new java.util.HashMap<>();
    for (RuleKind k : RuleKind.values()) {
      taken.put(logicalId(k.id()), k.id());
    }
    for (RuleSpec rule : rules) {
      String id = logicalId(rule.id());
      String other = taken.putIfAbsent(id, rule.id());
      if (other != null && !other.equals(rule.id())) {
        throw new io.tidemark.model.json.InvalidDocumentException(
            "reconcile.rules." + rule.id(),
            rule.id(),
            "would name its alarm " + id + ", as '" + other + "' does; give the rule another id");
      }
    }
  }

  /** The rules of a dataset that no kind's alarm watches: those under an id of their own. */
  public static List<RuleSpec> ownAlarms(List<RuleSpec> rules) {
    return rules.stream()
        .filter(r -> Arrays.stream(RuleKind.values()).noneMatch(k -> k.id().equals(r.id())))
        .toList();
  }

  /** What the alarm of a rule says. */
  public static String description(String ruleId, RuleKind kind) {
    return "Reconciliation rule "
        + ruleId
        + (ruleId.equals(kind.id()) ? "" : " (" + kind.id() + ")")
        + switch (kind) {
          case CUSTOM_SQL ->
              " is failing: its query returned rows. See the latest reconciliation report for the"
                  + " first of them.";
          case REFERENTIAL_INTEGRITY ->
              " is failing: curated rows name keys that the dataset they reference does not hold."
                  + " See the latest reconciliation report for sample keys.";
          default ->
              kind.samplesKeys()
                  ? " is failing: the curated table disagrees with raw. See the latest"
                      + " reconciliation report for sample keys."
                  : " is failing. See the latest reconciliation report for what it names (runs,"
                      + " files, columns or commits).";
        }
        + " An acknowledgement of the failure quiets it while the failure names nothing new.";
  }
}
