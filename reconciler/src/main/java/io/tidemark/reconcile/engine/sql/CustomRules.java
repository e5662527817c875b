package io.tidemark.reconcile.engine.sql;

import io.tidemark.model.config.CustomSql;
import io.tidemark.model.config.RuleKind;
import io.tidemark.model.config.RuleSpec;
import io.tidemark.model.contract.DatasetContract;
import io.tidemark.reconcile.engine.Finding;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

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
   *
   * @param quarantine the {@code quarantine} relation's query ({@link
   *     ReconciliationSql#quarantineRows}), or null when the dataset has no quarantine table; asked
   *     only when a rule's query names {@code quarantine}
   */
  public static Map<String, Finding> measure(
      ReconciliationSql sql,
      DatasetContract contract,
      Sql cap,
      int sampleSize,
      ValueDiffs.Rows rows,
      Supplier<String> quarantine) {
    Map<String, Finding> out = new LinkedHashMap<>();
    for (RuleSpec rule : of(contract)) {
      String what = "Custom rule " + rule.id();
      Sql query;
      try {
        query =
            sql.custom(
                contract,
                cap,
                rule.sql(),
                Math.min(sampleSize, rule.sampleSize()),
                CustomSql.names(rule.sql(), "quarantine") ? quarantine.get() : null);
      } catch (RuntimeException e) {
        out.put(rule.id(), Finding.failed(what + " could not run its query: " + e.getMessage()));
        continue;
      }
      out.put(rule.id(), RuleQueries.run(what, rule, query, rows));
    }
    return out;
  }
}
