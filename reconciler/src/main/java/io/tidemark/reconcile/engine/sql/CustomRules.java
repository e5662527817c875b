package io.tidemark.reconcile.engine.sql;

import io.tidemark.model.config.RuleKind;
import io.tidemark.model.config.RuleSpec;
import io.tidemark.model.contract.DatasetContract;
import io.tidemark.reconcile.engine.Finding;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Runs the contract's {@code custom_sql} rules, for every engine: each rule's query inside {@link
 * ReconciliationSql#custom}, which gives it the same relations on DuckDB and on Athena. Every rule
 * runs on every reconciliation (a custom rule may check what both layers agree on, such as a
 * negative amount), and a query that fails is that rule's ERROR, naming it.
 */
public final class CustomRules {
  private CustomRules() {}

  /** The contract's custom rules. */
  public static List<RuleSpec> of(DatasetContract contract) {
    return contract.reconcile().rules().stream()
        .filter(r -> r.kind() == RuleKind.CUSTOM_SQL)
        .toList();
  }

  /**
   * Each custom rule's finding by rule id: how many rows its query returned and the first column of
   * the first {@code sampleSize} of them (ordered by it), or why the query failed.
   */
  public static Map<String, Finding> measure(
      ReconciliationSql sql,
      DatasetContract contract,
      Sql cap,
      int sampleSize,
      ValueDiffs.Rows rows) {
    Map<String, Finding> out = new LinkedHashMap<>();
    for (RuleSpec rule : of(contract)) {
      try {
        List<List<String>> result =
            rows.run(
                "custom rule " + rule.id(),
                sql.custom(contract, cap, rule.sql(), Math.min(sampleSize, rule.sampleSize())));
        long count = 0;
        List<String> sample = new ArrayList<>();
        for (List<String> row : result) {
          count = KeySamples.number(row.get(row.size() - 1));
          sample.add(row.get(0) == null ? "NULL" : row.get(0));
        }
        out.put(rule.id(), Finding.of(count, sample));
      } catch (Exception e) {
        out.put(
            rule.id(),
            Finding.failed(
                "Custom rule "
                    + rule.id()
                    + " could not run its query: "
                    + (e.getMessage() == null ? e.toString() : e.getMessage())));
      }
    }
    return out;
  }
}
