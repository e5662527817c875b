package io.tidemark.reconcile.engine.duckdb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tidemark.model.config.ChangeMarkerType;
import io.tidemark.model.config.DatasetSpec;
import io.tidemark.model.json.InvalidDocumentException;
import io.tidemark.reconcile.engine.sql.ReconciliationSql;
import io.tidemark.reconcile.engine.sql.Sql;
import io.tidemark.reconcile.engine.sql.Window;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Identifiers only from validated names; values only as parameters. */
class TestDuckDbDialect {
  @Test
  void quoteRefusesAnythingButAnIdentifier() {
    assertThat(DuckDbDialect.quote("customer_id")).isEqualTo("\"customer_id\"");
    for (String hostile : List.of("a\"b", "x; DROP TABLE t", "a b", "1abc", "", "a--", "a.b")) {
      assertThatThrownBy(() -> DuckDbDialect.quote(hostile))
          .isInstanceOf(InvalidDocumentException.class)
          .hasMessageStartingWith("field 'identifier' has invalid value");
    }
  }

  @Test
  void windowBoundsAndFileListsAreBoundNotSpliced() {
    Sql window =
        DuckDbDialect.SQL.rawWindow(
            ChangeMarkerType.TIMESTAMP, new Window(10L, 20L, null, "2026-03-10"));
    assertThat(window.text()).isEqualTo("(marker > ? AND marker <= ?)");
    assertThat(window.params()).containsExactly(10L, 20L);

    Sql load = DuckDbFiles.readParquet(List.of("/x/it's.parquet"));
    assertThat(load.text()).doesNotContain("it's").contains("read_parquet(?");
    assertThat(load.params()).containsExactly(List.of("/x/it's.parquet"));

    Sql raw =
        DuckDbDialect.rawVersions(
            io.tidemark.reconcile.fixtures.Contracts.customers(
                "customers", "/raw", "curated.customers"),
            Map.of(
                "customer_id", "VARCHAR",
                "customer_name", "VARCHAR",
                "email", "VARCHAR",
                "updated_at", "TIMESTAMP",
                "op", "VARCHAR"),
            42L);
    assertThat(raw.text()).endsWith("AND marker <= ?");
    assertThat(raw.params()).endsWith(42L);

    Sql sample = ReconciliationSql.sample(new Sql().append(ReconciliationSql.MISSING), 5);
    assertThat(sample.text()).endsWith("LIMIT ?");
    assertThat(sample.params()).containsExactly("|", 5);
  }

  @Test
  void aViewReadsItsBoundValuesFromVariablesNeverFromItsText(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("it's [a]?.parquet");
    try (Connection c = DuckDbEngine.open();
        Statement s = c.createStatement()) {
      s.execute(
          "COPY (SELECT 42 AS answer) TO '"
              + file.toString().replace("'", "''")
              + "' (FORMAT parquet)");
      DuckDbEngine.createView(c, "v", DuckDbFiles.readParquet(List.of(file.toString())));
      try (ResultSet rs = s.executeQuery("SELECT answer, filename FROM v")) {
        assertThat(rs.next()).isTrue();
        assertThat(rs.getInt(1)).isEqualTo(42);
        assertThat(rs.getString(2)).isEqualTo(file.toString());
      }
      try (ResultSet rs = s.executeQuery("SELECT sql FROM duckdb_views() WHERE view_name = 'v'")) {
        assertThat(rs.next()).isTrue();
        assertThat(rs.getString(1)).contains("getvariable(").doesNotContain("it's");
      }
    }
  }

  /**
   * The WINDOW's curated keys and curated's newest marker are read through a condition on the
   * marker column itself (so row groups outside are skipped); it must not change which rows count,
   * at the window's bounds to the microsecond, for either kind of timestamp column; a text marker
   * column gets no such condition and the same answer.
   */
  @Test
  void curatedWindowKeysAndNewestMarkerAreExactAtTheBounds(@TempDir Path dir) throws Exception {
    long from = micros("2026-03-10T00:00:00Z");
    long to = micros("2026-03-11T00:00:00Z");
    DatasetSpec spec = io.tidemark.model.testing.DemoSpecs.customers("/raw", "curated.customers");
    for (String type : List.of("TIMESTAMPTZ", "TIMESTAMP", "VARCHAR")) {
      boolean timestamp = !type.equals("VARCHAR");
      try (Connection c = DuckDbEngine.open();
          Statement s = c.createStatement()) {
        // A month-old file, then one with rows on and beside each bound.
        Path old = dir.resolve(type + "-old.parquet");
        Path recent = dir.resolve(type + "-recent.parquet");
        s.execute(
            "COPY (SELECT 'old' || i AS customer_id, 'n' AS customer_name, 'e' AS email,"
                + " CAST(make_timestamp("
                + (from - 30L * 86_400_000_000L)
                + " + i) AS "
                + type
                + ") AS updated_at FROM range(1000) t(i)) TO '"
                + old
                + "' (FORMAT parquet)");
        s.execute(
            "COPY (SELECT * FROM (VALUES ('at_from', "
                + from
                + "), ('after_from', "
                + (from + 1)
                + "), ('at_to', "
                + to
                + "), ('after_to', "
                + (to + 1)
                + ")) v(customer_id, m)) TO '"
                + dir.resolve("v.parquet")
                + "' (FORMAT parquet)");
        s.execute(
            "COPY (SELECT customer_id, 'n' AS customer_name, 'e' AS email,"
                + " CAST(make_timestamp(m) AS "
                + type
                + ") AS updated_at FROM read_parquet('"
                + dir.resolve("v.parquet")
                + "')) TO '"
                + recent
                + "' (FORMAT parquet)");
        s.execute(
            "CREATE TEMP VIEW curated_live AS SELECT customer_id, customer_name, email, updated_at"
                + " FROM read_parquet(['"
                + old
                + "', '"
                + recent
                + "'])");
        Map<String, String> types = DuckDbEngine.columnTypes(c, "curated_live");
        s.execute(DuckDbDialect.createCuratedRows(spec, types));
        String onColumn = "s.\"updated_at\" > ";

        Sql window = DuckDbDialect.curatedWindowKeys(spec, types, new Window(from, to, null, ""));
        assertThat(window.text().contains(onColumn)).as(type).isEqualTo(timestamp);
        assertThat(keys(c, window)).as(type).containsExactlyInAnyOrder("after_from", "at_to");
        List<String> upTo =
            keys(c, DuckDbDialect.curatedWindowKeys(spec, types, new Window(null, to, null, "")));
        assertThat(upTo)
            .as(type)
            .hasSize(1003)
            .contains("at_from", "at_to")
            .doesNotContain("after_to");

        // From a marker some row holds, from the oldest, and from one past any timestamp DuckDB
        // can build (no condition on the column then): each finds the newest, after_to's.
        for (long atLeast : List.of(to, from - 30L * 86_400_000_000L, Long.MAX_VALUE / 2)) {
          Sql newest = DuckDbDialect.newestCurated(spec, types, atLeast);
          boolean bounded = timestamp && atLeast != Long.MAX_VALUE / 2;
          assertThat(newest.text().contains(onColumn))
              .as(type + " from " + atLeast)
              .isEqualTo(bounded);
          try (PreparedStatement ps = newest.prepare(c);
              ResultSet rs = ps.executeQuery()) {
            assertThat(rs.next()).isTrue();
            assertThat(rs.getLong(1)).as(type).isEqualTo(to + 1);
          }
        }
      }
    }
  }

  private static long micros(String instant) {
    return ChronoUnit.MICROS.between(Instant.EPOCH, Instant.parse(instant));
  }

  private static List<String> keys(Connection c, Sql sql) throws Exception {
    List<String> out = new ArrayList<>();
    try (PreparedStatement ps = sql.prepare(c);
        ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        out.add(rs.getString(1));
      }
    }
    return out;
  }
}
