package io.tidemark.ingest.kernel;

import java.util.List;

/**
 * Identifiers in Spark SQL. Column names come from validated config (letters, digits, underscores)
 * and are quoted anyway, in every statement and expression the job builds.
 */
public final class SqlNames {
  private SqlNames() {}

  /** Quotes one identifier for Spark SQL: {@code a`b} becomes {@code `a``b`}. */
  public static String quote(String identifier) {
    return "`" + identifier.replace("`", "``") + "`";
  }

  /** Each identifier quoted, for {@code Dataset.selectExpr}. */
  public static String[] quoteAll(List<String> identifiers) {
    return identifiers.stream().map(SqlNames::quote).toArray(String[]::new);
  }
}
