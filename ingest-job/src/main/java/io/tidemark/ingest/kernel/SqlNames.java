package io.tidemark.ingest.kernel;

import java.util.List;
import java.util.Objects;
import org.apache.spark.sql.catalyst.expressions.Literal;
import org.apache.spark.sql.types.DataTypes;

/**
 * Identifiers in Spark SQL. Column names come from validated config (letters, digits, underscores)
 * and are quoted anyway, in every statement and expression the job builds. Values go in as
 * parameters or through the Dataset API; where a statement cannot take a parameter, {@link
 * #stringLiteral} writes the value as Spark itself writes a literal.
 */
public final class SqlNames {
  private SqlNames() {}

  /** Quotes one identifier for Spark SQL: {@code a`b} becomes {@code `a``b`}. */
  public static String quote(String identifier) {
    return "`" + identifier.replace("`", "``") + "`";
  }

  /**
   * A string value as a Spark SQL literal, written by Spark's own {@code Literal} (quotes and
   * backslashes escaped), for a statement that cannot take it as a parameter: Iceberg's rewrite of
   * a MERGE leaves parameter markers in its condition unbound.
   */
  public static String stringLiteral(String value) {
    return Literal.create(Objects.requireNonNull(value, "value is null"), DataTypes.StringType)
        .sql();
  }

  /** Each identifier quoted, for {@code Dataset.selectExpr}. */
  public static String[] quoteAll(List<String> identifiers) {
    return identifiers.stream().map(SqlNames::quote).toArray(String[]::new);
  }
}
