package io.tidemark.reconcile.engine.sql;

import java.util.List;
import java.util.Optional;

/**
 * What truly differs between the SQL engines' dialects; {@link ReconciliationSql} writes every
 * statement once over it. Expressions named {@code column} are a raw or curated row's own column,
 * already rendered by {@link #column}.
 */
public interface SqlDialect {
  /**
   * A column of the row being read, quoted; the name passed {@code Checks.IDENTIFIER} (anything
   * else is refused).
   */
  String column(String name);

  /** How a column of this engine's type name counts. */
  ColumnKind kind(String typeName);

  /** Whether {@code text} matches the regular expression {@code pattern}, a bound value. */
  Sql regexMatches(String text, String pattern);

  /**
   * Epoch microseconds of a timestamp expression as a BIGINT, at the precision both layers can be
   * read at on this engine.
   */
  String epochMicros(String timestamp);

  /** A timestamp (UTC) of epoch microseconds, what {@link #epochMicros} gave. */
  String timestampOfMicros(String micros);

  /** A date column as a timestamp at midnight UTC, as {@link #epochMicros} takes it. */
  String dateAsTimestamp(String date);

  /** An ISO-8601 text parsed as a timestamp with zone; NULL when it does not parse. */
  String parseTimestamp(String text);

  /** A binary column as text. */
  String binaryAsText(String column);

  /**
   * A hash of texts that are never NULL, equal for equal lists; a constant for no text. The rules
   * only compare hashes of one engine with each other.
   */
  String hash(List<String> texts);

  /** Which of {@code buckets} buckets a text key falls in. */
  String bucket(String key, int buckets);

  /** An aggregate of rows that does not depend on their order: equal sets sum alike. */
  String checksum(List<String> values);

  /** A date value, bound, comparable with the raw versions' {@code part_date}. */
  Sql date(String isoDate);

  /** The column holding a raw row's source file path. */
  String fileColumn();

  /**
   * The column holding a raw row's position in its file; empty where the engine cannot see it (a
   * Hive table on Athena or Trino): versions of one key tied on everything else then stay tied, and
   * any of them is accepted.
   */
  Optional<String> rowPositionColumn();

  /** How an error names where the columns were looked for: "the files have" or "the table has". */
  String columnsOwner();

  /** The value of the row with the largest {@code by}, as an aggregate. */
  String argMax(String value, String by);

  /**
   * A signed integer type of at least 128 bits with shifts ({@code >>}) and masks ({@code &}), for
   * {@link VersionRank}; needed only by a dialect with a {@link #rowPositionColumn()}.
   */
  String wideIntegerType();
}
