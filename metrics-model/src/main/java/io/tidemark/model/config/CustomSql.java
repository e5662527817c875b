package io.tidemark.model.config;

import io.tidemark.model.json.InvalidDocumentException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The query of a {@code custom_sql} rule, checked where it is declared: one {@code SELECT} (or
 * {@code WITH ... SELECT}) that reads only the relations every engine provides ({@link #RELATIONS})
 * and its own {@code WITH} names. It may not write, change a setting, name a table of a catalog or
 * schema, read a file, or call a table function: the check refuses every statement keyword but
 * {@code SELECT} and {@code WITH}, a relation that is not one of those names (a qualified name, a
 * string, a function call) and the functions that read outside the query. The engine then runs it
 * inside a query of its own, so it is one expression of rows either way.
 */
public final class CustomSql {
  /** What a custom query reads: the same relations on every engine. */
  public static final List<String> RELATIONS =
      List.of("raw_latest", "raw_versions", "curated", "quarantine");

  /**
   * The columns of the {@code quarantine} relation: the ingest job's quarantine table without the
   * rows' original values (which may hold the values of sensitive columns). {@code replayed_at} is
   * set on rows a quarantine replay has ingested since (NULL on a table no replay has touched).
   */
  public static final List<String> QUARANTINE_COLUMNS =
      List.of(
          "source_file",
          "row_number",
          "reason",
          "detail",
          "quarantined_at",
          "batch_id",
          "run_id",
          "replayed_at");

  private static final Set<String> STATEMENTS =
      Set.of(
          "insert",
          "update",
          "delete",
          "merge",
          "create",
          "drop",
          "alter",
          "attach",
          "detach",
          "copy",
          "install",
          "load",
          "pragma",
          "set",
          "reset",
          "call",
          "export",
          "import",
          "grant",
          "revoke",
          "truncate",
          "execute",
          "prepare",
          "deallocate",
          "vacuum",
          "checkpoint",
          "use",
          "commit",
          "rollback",
          "begin",
          "describe",
          "show",
          "summarize",
          "explain",
          "analyze");

  /** Functions that read files, the environment or other databases (DuckDB's and Trino's). */
  private static final List<String> READING_PREFIXES =
      List.of("read_", "parquet_", "iceberg_", "delta_", "sqlite_", "postgres_", "mysql_", "pg_");

  private static final Set<String> READING =
      Set.of("getenv", "glob", "sniff_csv", "query", "query_table", "current_setting", "system");

  /** Words that end a FROM list. */
  private static final Set<String> CLAUSES =
      Set.of(
          "where",
          "group",
          "order",
          "limit",
          "having",
          "union",
          "intersect",
          "except",
          "join",
          "left",
          "right",
          "inner",
          "full",
          "cross",
          "on",
          "using",
          "window",
          "qualify",
          "offset",
          "natural",
          "fetch",
          "lateral");

  private CustomSql() {}

  /**
   * The query, trimmed, when it passes; otherwise an {@link InvalidDocumentException} on {@code
   * field} that names what it may not do.
   */
  public static String check(String field, String sql) {
    if (sql == null || sql.isBlank()) {
      throw new InvalidDocumentException(field, sql, "is required: a SELECT of offending rows");
    }
    List<String> tokens = tokens(field, sql);
    String first = tokens.get(0);
    if (!first.equals("select") && !first.equals("with")) {
      throw new InvalidDocumentException(field, sql, "must be a SELECT or WITH ... SELECT query");
    }
    Set<String> named = new HashSet<>(RELATIONS);
    if (first.equals("with")) {
      withList(field, sql, tokens, named);
    }
    for (int i = 1; i < tokens.size(); i++) {
      if (tokens.get(i).equals("with")) {
        // A WITH inside would name queries only its own scope sees, and a sibling scope would
        // then read a table of that name.
        throw new InvalidDocumentException(
            field, sql, "may use WITH only at its start, where its names hold for the whole query");
      }
    }
    for (int i = 0; i < tokens.size(); i++) {
      String t = tokens.get(i);
      if (t.equals(";")) {
        throw new InvalidDocumentException(field, sql, "must be one statement, without ';'");
      }
      if (STATEMENTS.contains(t)) {
        throw new InvalidDocumentException(
            field, sql, "may only read: '" + t.toUpperCase(Locale.ROOT) + "' is not allowed");
      }
      boolean call = i + 1 < tokens.size() && tokens.get(i + 1).equals("(");
      if (call && (READING.contains(t) || READING_PREFIXES.stream().anyMatch(t::startsWith))) {
        throw new InvalidDocumentException(
            field, sql, "may not call " + t + "(): it reads outside the relations it is given");
      }
      if (t.equals("from") || t.equals("join")) {
        i = relations(field, sql, tokens, i + 1, named, t.equals("from"));
      }
    }
    return sql.strip();
  }

  /**
   * Whether a query that passed {@link #check} names {@code relation}: the engine gives it the
   * relations it names only, so that a query reads no table it does not use.
   */
  public static boolean names(String sql, String relation) {
    return tokens("sql", sql).contains(relation);
  }

  /**
   * Reads the leading {@code WITH name [(columns)] AS (...), ...} into {@code named}; the index of
   * the token after it.
   */
  private static int withList(String field, String sql, List<String> tokens, Set<String> named) {
    int i = 1;
    if (i < tokens.size() && tokens.get(i).equals("recursive")) {
      i++;
    }
    while (true) {
      if (i >= tokens.size() || !isWord(tokens.get(i))) {
        throw new InvalidDocumentException(field, sql, "has a WITH list that names no query");
      }
      if (RELATIONS.contains(tokens.get(i))) {
        throw new InvalidDocumentException(
            field,
            sql,
            "names a WITH query '"
                + tokens.get(i)
                + "', a relation the engine provides; give it another name");
      }
      named.add(tokens.get(i++));
      if (i < tokens.size() && tokens.get(i).equals("(")) {
        i = closing(field, sql, tokens, i) + 1;
      }
      if (i + 1 >= tokens.size() || !tokens.get(i).equals("as") || !tokens.get(i + 1).equals("(")) {
        throw new InvalidDocumentException(field, sql, "has a WITH query without AS (...)");
      }
      i = closing(field, sql, tokens, i + 1) + 1;
      if (i < tokens.size() && tokens.get(i).equals(",")) {
        i++;
        continue;
      }
      return i;
    }
  }

  /** The index of the parenthesis that closes the one at {@code open}. */
  private static int closing(String field, String sql, List<String> tokens, int open) {
    int depth = 0;
    for (int i = open; i < tokens.size(); i++) {
      if (tokens.get(i).equals("(")) {
        depth++;
      } else if (tokens.get(i).equals(")") && --depth == 0) {
        return i;
      }
    }
    throw new InvalidDocumentException(field, sql, "has a parenthesis that does not close");
  }

  /** Checks the relation list after FROM (or the one relation after JOIN); the last index read. */
  private static int relations(
      String field, String sql, List<String> tokens, int at, Set<String> named, boolean list) {
    int i = at;
    while (i < tokens.size()) {
      String t = tokens.get(i);
      if (t.equals("(")) {
        return i - 1; // a subquery: its own FROM is checked when reached
      }
      if (!isWord(t) || !named.contains(t)) {
        throw readsOther(field, sql, shown(t));
      }
      if (i + 1 < tokens.size()
          && (tokens.get(i + 1).equals(".") || tokens.get(i + 1).equals("("))) {
        throw readsOther(field, sql, t + tokens.get(i + 1) + "...");
      }
      i++;
      // an alias: [AS] name
      if (i < tokens.size() && tokens.get(i).equals("as")) {
        i++;
      }
      if (i < tokens.size() && isWord(tokens.get(i)) && !CLAUSES.contains(tokens.get(i))) {
        i++;
      }
      if (list && i < tokens.size() && tokens.get(i).equals(",")) {
        i++;
        continue;
      }
      return i - 1;
    }
    return i;
  }

  private static InvalidDocumentException readsOther(String field, String sql, String what) {
    return new InvalidDocumentException(
        field,
        sql,
        "may only read "
            + String.join(", ", RELATIONS)
            + " and its own WITH queries; it reads "
            + what);
  }

  private static String shown(String token) {
    return token.startsWith("'") ? "a string as a table" : "'" + token + "'";
  }

  private static boolean isWord(String t) {
    char c = t.charAt(0);
    return Character.isLetter(c) || c == '_';
  }

  /**
   * The query's tokens, lower-cased: words, quoted identifiers (as their name), string literals (as
   * {@code '}), numbers and single punctuation; comments dropped.
   */
  static List<String> tokens(String field, String sql) {
    List<String> out = new ArrayList<>();
    int i = 0;
    int n = sql.length();
    while (i < n) {
      char c = sql.charAt(i);
      if (Character.isWhitespace(c)) {
        i++;
      } else if (c == '-' && i + 1 < n && sql.charAt(i + 1) == '-') {
        while (i < n && sql.charAt(i) != '\n') {
          i++;
        }
      } else if (c == '/' && i + 1 < n && sql.charAt(i + 1) == '*') {
        int end = sql.indexOf("*/", i + 2);
        if (end < 0) {
          throw new InvalidDocumentException(field, sql, "has a comment that does not end");
        }
        i = end + 2;
      } else if (c == '\'') {
        int j = i + 1;
        while (true) {
          if (j >= n) {
            throw new InvalidDocumentException(field, sql, "has a string that does not end");
          }
          if (sql.charAt(j) == '\'') {
            if (j + 1 < n && sql.charAt(j + 1) == '\'') {
              j += 2;
              continue;
            }
            break;
          }
          j++;
        }
        out.add("'");
        i = j + 1;
      } else if (c == '"') {
        int end = sql.indexOf('"', i + 1);
        if (end < 0) {
          throw new InvalidDocumentException(field, sql, "has a quoted name that does not end");
        }
        String name = sql.substring(i + 1, end).toLowerCase(Locale.ROOT);
        out.add(name.isEmpty() ? "\"\"" : (isWord(name) ? name : "\"" + name + "\""));
        i = end + 1;
      } else if (Character.isLetter(c) || c == '_') {
        int j = i;
        while (j < n
            && (Character.isLetterOrDigit(sql.charAt(j))
                || sql.charAt(j) == '_'
                || sql.charAt(j) == '$')) {
          j++;
        }
        out.add(sql.substring(i, j).toLowerCase(Locale.ROOT));
        i = j;
      } else if (Character.isDigit(c)) {
        int j = i;
        while (j < n && (Character.isLetterOrDigit(sql.charAt(j)) || sql.charAt(j) == '.')) {
          j++;
        }
        out.add("0");
        i = j;
      } else {
        out.add(String.valueOf(c));
        i++;
      }
    }
    if (out.isEmpty()) {
      throw new InvalidDocumentException(field, sql, "is required: a SELECT of offending rows");
    }
    return out;
  }
}
