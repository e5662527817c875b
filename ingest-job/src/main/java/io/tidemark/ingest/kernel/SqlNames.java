package io.tidemark.ingest.kernel;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.util.HexFormat;
import java.util.List;
import java.util.Objects;

/**
 * Identifiers in Spark SQL. Column names come from validated config (letters, digits, underscores)
 * and are quoted anyway, in every statement and expression the job builds. Values go in as
 * parameters or through the Dataset API; where a statement cannot take a parameter, {@link
 * #stringLiteral} writes the value as bytes no parser setting can change.
 */
public final class SqlNames {
  private SqlNames() {}

  /** Quotes one identifier for Spark SQL: {@code a`b} becomes {@code `a``b`}. */
  public static String quote(String identifier) {
    return "`" + identifier.replace("`", "``") + "`";
  }

  /**
   * A string value as a Spark SQL expression, for a statement that cannot take it as a parameter
   * (Iceberg's rewrite of a MERGE leaves parameter markers in its condition unbound): its UTF-8
   * bytes as a hexadecimal binary literal, cast to a string. No character of the value reaches the
   * parser, so it reads back as itself whatever it holds and whatever the session's string-literal
   * settings ({@code spark.sql.parser.escapedStringLiterals}); Spark folds the cast to a plain
   * string constant before it pushes a filter down, so a table scan can still be pruned by it.
   */
  public static String stringLiteral(String value) {
    return "CAST(X'"
        + HexFormat.of().formatHex(Objects.requireNonNull(value, "value is null").getBytes(UTF_8))
        + "' AS STRING)";
  }

  /** Each identifier quoted, for {@code Dataset.selectExpr}. */
  public static String[] quoteAll(List<String> identifiers) {
    return identifiers.stream().map(SqlNames::quote).toArray(String[]::new);
  }
}
