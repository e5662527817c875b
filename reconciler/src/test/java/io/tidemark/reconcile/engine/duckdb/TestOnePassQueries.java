package io.tidemark.reconcile.engine.duckdb;

import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.reconcile.engine.athena.JdbcQueryRunner;
import io.tidemark.reconcile.engine.sql.ReconciliationSql;
import io.tidemark.reconcile.engine.sql.Sql;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.duckdb.DuckDBConnection;
import org.junit.jupiter.api.Test;

/**
 * A query service reads a table again for every subquery that names it, so the Athena engine's
 * queries read each layer once where they can. Here, on DuckDB, each is held to the answer of the
 * queries it replaces.
 */
class TestOnePassQueries {
  private static final ReconciliationSql SQL = DuckDbDialect.SQL;
  private static final int SAMPLE = 5;

  @Test
  void theOneQueryFindsWhatEachMeasuresQueryFinds() throws SQLException {
    try (Connection c = DriverManager.getConnection("jdbc:duckdb:");
        Statement s = c.createStatement()) {
      keyTables(s);
      // expected live and in curated, the same: found by no measure
      expect(s, "same", 10, false, "h");
      curated(s, "same", 10, "h");
      // expected live, not in curated: missing (more than the sample)
      for (int i = 0; i < 8; i++) {
        expect(s, "missing-" + i, 10, false, "h");
      }
      // in curated, not expected: unexpected; expected deleted but in curated: unexpected
      curated(s, "invented", 10, "h");
      expect(s, "deleted-kept", 12, true, "h");
      curated(s, "deleted-kept", 10, "h");
      // expected deleted and gone: found by no measure
      expect(s, "deleted-gone", 12, true, "h");
      // two curated rows of one key, one of them the expected: duplicate
      expect(s, "twice", 10, false, "h");
      curated(s, "twice", 10, "h");
      curated(s, "twice", 9, "old");
      // another version in curated: stale, either way
      expect(s, "older", 20, false, "h");
      curated(s, "older", 10, "h");
      expect(s, "newer", 10, false, "h");
      curated(s, "newer", 20, "h");
      // the expected version with other values: a value mismatch
      expect(s, "other-values", 10, false, "h");
      curated(s, "other-values", 10, "x");
      // a curated row without a marker is no version: neither stale nor mismatched
      expect(s, "no-marker", 10, false, "h");
      s.execute("INSERT INTO cur_rows VALUES ('no-marker', NULL, 'h')");
      // a key with a separator in it shows as its parts
      expect(s, "a\u001fb", 10, false, "h");
      s.execute("CREATE TABLE cur AS " + ReconciliationSql.CHECKED_CURATED);

      Map<Long, List<List<String>>> onePass = new TreeMap<>();
      for (List<String> row : rows(c, SQL.keyMeasuresInOnePass(SAMPLE))) {
        onePass
            .computeIfAbsent(Long.parseLong(row.get(0)), k -> new ArrayList<>())
            .add(row.subList(1, 3));
      }
      List<ReconciliationSql.KeyMeasure> measures = SQL.keyMeasures();
      long found = 0;
      for (int i = 0; i < measures.size(); i++) {
        List<List<String>> own =
            rows(
                c,
                ReconciliationSql.countAndSample(new Sql().append(measures.get(i).keys()), SAMPLE));
        assertThat(onePass.getOrDefault((long) i, List.of()))
            .as("measure %d (%s)", i, measures.get(i).label())
            .isEqualTo(own);
        found += own.isEmpty() ? 0 : 1;
      }
      assertThat(found).as("measures that found keys").isEqualTo(measures.size());
      assertThat(onePass.get(1L))
          .as("missing: the total, the first %d keys", SAMPLE)
          .hasSize(SAMPLE);
      assertThat(onePass.get(1L).get(0)).containsExactly("9", "a|b");
    }
  }

  /**
   * Freshness's markers: the newest curated marker and the raw range up to the window end, each
   * layer named once, with the answers of a query per value.
   */
  @Test
  void freshnessReadsEachLayerOnce() throws SQLException {
    Sql cap = new Sql().append("marker <= ").param(30L);
    Sql markers = ReconciliationSql.markers(cap);
    assertThat(markers.text().split("raw_versions", -1)).as("raw_versions named once").hasSize(2);
    assertThat(markers.text().split("curated_rows", -1)).as("curated_rows named once").hasSize(2);
    try (Connection c = DriverManager.getConnection("jdbc:duckdb:");
        Statement s = c.createStatement()) {
      s.execute("CREATE TABLE curated_rows AS SELECT * FROM (VALUES (25), (7), (NULL)) t(marker)");
      s.execute("CREATE TABLE raw_versions AS SELECT * FROM (VALUES (5), (20), (40)) t(marker)");
      assertThat(rows(c, markers)).containsExactly(List.of("25", "20", "5"));
      s.execute("DELETE FROM raw_versions WHERE marker <= 30");
      assertThat(rows(c, markers))
          .as("no raw version up to the window end")
          .containsExactly(java.util.Arrays.asList("25", null, null));
    }
  }

  /**
   * The first query of every observation: the bucket sums' row, then freshness's markers, each as
   * its own query gives them, healthy or not.
   */
  @Test
  void bucketSumsAndMarkersInOneQuery() throws SQLException {
    Sql cap = new Sql().append("marker <= ").param(30L);
    Sql both = ReconciliationSql.withMarkers(SQL.checkedBucketsDiffering(), cap);
    try (Connection c = DriverManager.getConnection("jdbc:duckdb:");
        Statement s = c.createStatement()) {
      keyTables(s);
      s.execute("CREATE TABLE curated_rows AS SELECT * FROM (VALUES (25), (7)) t(marker)");
      s.execute("CREATE TABLE raw_versions AS SELECT * FROM (VALUES (5), (20), (40)) t(marker)");
      for (int i = 0; i < 20; i++) {
        expect(s, "k" + i, 10, false, "h");
        curated(s, "k" + i, 10, "h");
      }
      List<List<String>> own = rows(c, new Sql().append(SQL.checkedBucketsDiffering()));
      assertThat(own).containsExactly(List.of("0", "20", "20"));
      assertThat(rows(c, both)).containsExactly(List.of("0", "20", "20", "25", "20", "5"));

      s.execute("DELETE FROM cur_rows WHERE key IN ('k3', 'k4')");
      own = rows(c, new Sql().append(SQL.checkedBucketsDiffering()));
      List<String> expected = new ArrayList<>(own.get(0));
      expected.addAll(rows(c, ReconciliationSql.markers(cap)).get(0));
      assertThat(own.get(0).get(2)).isEqualTo("18");
      assertThat(rows(c, both)).containsExactly(expected);
    }
  }

  /** The checked keys' two sides, as the prelude makes them: expected versions and curated rows. */
  private static void keyTables(Statement s) throws SQLException {
    s.execute(
        "CREATE TABLE exp (key VARCHAR, marker BIGINT, is_delete BOOLEAN, row_hash VARCHAR,"
            + " hashes VARCHAR[])");
    s.execute("CREATE TABLE cur_rows (key VARCHAR, marker BIGINT, row_hash VARCHAR)");
  }

  private static void expect(Statement s, String key, long marker, boolean delete, String hash)
      throws SQLException {
    s.execute(
        "INSERT INTO exp VALUES ('"
            + key
            + "', "
            + marker
            + ", "
            + delete
            + ", '"
            + hash
            + "', ['"
            + hash
            + "'])");
  }

  private static void curated(Statement s, String key, long marker, String hash)
      throws SQLException {
    s.execute("INSERT INTO cur_rows VALUES ('" + key + "', " + marker + ", '" + hash + "')");
  }

  /** The rows of {@code sql} as the Athena engine's runner reads them, on {@code c}'s database. */
  private static List<List<String>> rows(Connection c, Sql sql) {
    try (JdbcQueryRunner runner =
        new JdbcQueryRunner(
            () -> {
              try {
                return ((DuckDBConnection) c).duplicate();
              } catch (SQLException e) {
                throw new IllegalStateException(e);
              }
            })) {
      return runner.run("test", sql.text(), sql.params()).rows();
    }
  }
}
