package io.tidemark.reconcile.engine.sql;

import io.tidemark.model.config.RuleKind;
import io.tidemark.model.config.RuleSpec;
import io.tidemark.model.contract.DatasetContract;
import io.tidemark.model.contract.DatasetSpecs;
import io.tidemark.reconcile.engine.Finding;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;

/**
 * Runs the contract's {@code referential_integrity} rules, for every engine: each rule's {@link
 * ReconciliationSql#brokenReferences} over the curated rows the engine gives and the referenced
 * dataset's keys it gives. The check reads curated alone (what readers of the table see), on every
 * reconciliation and over every row: a key deleted from the referenced dataset breaks rows of any
 * age.
 */
public final class ReferenceRules {
  private ReferenceRules() {}

  /** The contract's referential rules. */
  public static List<RuleSpec> of(DatasetContract contract) {
    return contract.reconcile().rules().stream()
        .filter(r -> r.kind() == RuleKind.REFERENTIAL_INTEGRITY)
        .toList();
  }

  /**
   * The types by lower-case name of a contract's declared columns, as {@link
   * ReconciliationSql#referencedKeys} takes them for a table read by its contract.
   */
  public static Map<String, String> declaredTypes(DatasetContract contract) {
    Map<String, String> out = new LinkedHashMap<>();
    contract.columns().forEach((c, t) -> out.put(c.toLowerCase(Locale.ROOT), t.toString()));
    return out;
  }

  /**
   * Each referential rule's finding by rule id: how many curated rows name no referenced key, and
   * the first {@code sampleSize} of their keys, or why the query failed.
   *
   * @param curatedTypes the column types of {@code curated}
   * @param curated the referencing dataset's curated rows (a relation of the engine); null when the
   *     table holds none, so that no row can break a reference
   * @param referencedKeys per rule, the query of the keys it references ({@link
   *     ReconciliationSql#referencedKeys} over the engine's relation of that dataset)
   */
  public static Map<String, Finding> measure(
      ReconciliationSql sql,
      DatasetContract contract,
      Map<String, String> curatedTypes,
      String curated,
      Function<RuleSpec, String> referencedKeys,
      int sampleSize,
      ValueDiffs.Rows rows) {
    Map<String, Finding> out = new LinkedHashMap<>();
    for (RuleSpec rule : of(contract)) {
      String what = "Referential rule " + rule.id();
      Sql query;
      try {
        String keys = referencedKeys.apply(rule); // read even when no row can break it
        if (curated == null) {
          out.put(rule.id(), Finding.of(0, List.of()));
          continue;
        }
        query =
            sql.brokenReferences(
                DatasetSpecs.of(contract),
                curatedTypes,
                curated,
                rule.columns(),
                keys,
                Math.min(sampleSize, rule.sampleSize()));
      } catch (RuntimeException e) {
        out.put(rule.id(), Finding.failed(what + " could not run its query: " + e.getMessage()));
        continue;
      }
      out.put(rule.id(), RuleQueries.run(what, rule, query, rows));
    }
    return out;
  }
}
