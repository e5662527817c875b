package io.tidemark.model.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tidemark.model.json.InvalidDocumentException;
import org.junit.jupiter.api.Test;

/**
 * A custom rule's query reads the relations every engine gives it, and nothing else: the check at
 * the contract refuses a write, a setting, another table, a file and a nested WITH, naming why.
 */
class TestCustomSql {
  private static String check(String sql) {
    return CustomSql.check("sql", sql);
  }

  private static void refused(String sql, String because) {
    assertThatThrownBy(() -> check(sql))
        .as(sql)
        .isInstanceOf(InvalidDocumentException.class)
        .hasMessageContaining(because);
  }

  @Test
  void queriesOfTheGivenRelationsAndTheirOwnWithNamesPass() {
    assertThat(check("  SELECT key FROM curated WHERE amount < 0  "))
        .isEqualTo("SELECT key FROM curated WHERE amount < 0");
    check(
        "WITH late AS (SELECT key, change_marker FROM raw_versions WHERE deleted)"
            + " SELECT c.key FROM curated c JOIN late l ON l.key = c.key");
    check(
        "select r.key from raw_latest r, curated as c where r.key = c.key and r.amount <> c.amount");
    check("SELECT key FROM curated WHERE key NOT IN (SELECT key FROM raw_latest)");
    check("SELECT key, 'from x; drop table y' AS note FROM \"curated\" -- a comment: FROM secret");
    check("SELECT count(*) AS n FROM curated GROUP BY key HAVING count(*) > 1");
    check(
        "SELECT source_file FROM quarantine WHERE reason = 'UNKNOWN_OPERATION' AND replayed_at IS"
            + " NULL");
  }

  /** A WITH query may not take the name of a relation the engine provides: it would collide. */
  @Test
  void aWithQueryNamedLikeAGivenRelationIsRefused() {
    refused(
        "WITH quarantine AS (SELECT key FROM curated) SELECT key FROM quarantine",
        "names a WITH query 'quarantine', a relation the engine provides; give it another name");
    refused(
        "WITH late AS (SELECT 1 AS x), raw_latest AS (SELECT key FROM curated) SELECT key FROM"
            + " raw_latest",
        "names a WITH query 'raw_latest'");
  }

  /** The engine gives a query the quarantine only when it names it: no table read for nothing. */
  @Test
  void aQueryNamesTheQuarantineOnlyWhenItReadsIt() {
    assertThat(CustomSql.names("SELECT source_file FROM \"quarantine\" q", "quarantine")).isTrue();
    assertThat(CustomSql.names("SELECT key FROM curated -- not the quarantine", "quarantine"))
        .isFalse();
    assertThat(CustomSql.names("SELECT key FROM curated WHERE note = 'quarantine'", "quarantine"))
        .isFalse();
  }

  @Test
  void writesSettingsAndMoreStatementsAreRefused() {
    refused("DELETE FROM curated", "must be a SELECT or WITH ... SELECT query");
    refused("SELECT 1; DROP TABLE curated", "must be one statement, without ';'");
    refused(
        "SELECT key FROM curated UNION SELECT * FROM (DELETE FROM x)", "'DELETE' is not allowed");
    refused("WITH x AS (SELECT 1) INSERT INTO curated SELECT * FROM x", "'INSERT' is not allowed");
    refused(
        "SELECT key FROM curated WHERE current_setting('x') = ''",
        "may not call current_setting()");
    refused("", "is required");
  }

  @Test
  void otherTablesFilesAndTableFunctionsAreRefused() {
    refused("SELECT * FROM glue_db.secrets", "it reads 'glue_db'");
    refused("SELECT * FROM curated JOIN orders_raw o ON true", "it reads 'orders_raw'");
    refused("SELECT * FROM curated, secrets", "it reads 'secrets'");
    refused("SELECT * FROM '/etc/passwd'", "it reads a string as a table");
    refused("SELECT * FROM read_csv('/etc/passwd')", "it reads 'read_csv'");
    refused("SELECT read_text('/etc/passwd') AS key", "may not call read_text()");
    refused("SELECT * FROM curated c, raw_latest(1)", "it reads raw_latest(...");
    refused("SELECT * FROM \"raw_latest\".x", "it reads raw_latest....");
    refused(
        "SELECT * FROM (WITH s AS (SELECT 1) SELECT * FROM s) a JOIN s ON true",
        "may use WITH only at its start");
    refused("SELECT 'open", "has a string that does not end");
  }
}
