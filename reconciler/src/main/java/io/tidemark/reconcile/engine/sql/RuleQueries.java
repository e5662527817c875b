package io.tidemark.reconcile.engine.sql;

import io.tidemark.model.config.RuleSpec;
import io.tidemark.reconcile.engine.Finding;
import java.util.ArrayList;
import java.util.List;

/**
 * Runs the query of a rule that has one of its own ({@code custom_sql}, {@code
 * referential_integrity}): rows whose first column is the sample and whose last is the number of
 * rows. A query that fails is that rule's ERROR, naming it; it never stops the other rules.
 */
final class RuleQueries {
  private RuleQueries() {}

  /**
   * The rule's finding: how many rows its query returned and the first column of those it kept.
   *
   * @param what the rule as a message names it, e.g. {@code "Custom rule my_check"}
   */
  static Finding run(String what, RuleSpec rule, Sql query, ValueDiffs.Rows rows) {
    try {
      List<List<String>> result = rows.run(what.toLowerCase(java.util.Locale.ROOT), query);
      long count = 0;
      List<String> sample = new ArrayList<>();
      for (List<String> row : result) {
        count = KeySamples.number(row.get(row.size() - 1));
        sample.add(row.get(0) == null ? "NULL" : row.get(0));
      }
      return Finding.of(count, sample);
    } catch (Exception e) {
      return Finding.failed(
          what
              + " could not run its query: "
              + (e.getMessage() == null ? e.toString() : e.getMessage()));
    }
  }
}
