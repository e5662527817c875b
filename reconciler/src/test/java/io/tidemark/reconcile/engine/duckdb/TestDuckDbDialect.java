package io.tidemark.reconcile.engine.duckdb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tidemark.model.config.ChangeMarkerType;
import io.tidemark.model.config.DatasetSpec;
import io.tidemark.model.json.InvalidDocumentException;
import io.tidemark.reconcile.engine.sql.Sql;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
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
        DuckDbDialect.rawWindowPredicate(ChangeMarkerType.TIMESTAMP, 10L, 20L, null, "2026-03-10");
    assertThat(window.text()).isEqualTo("(marker > ? AND marker <= ?)");
    assertThat(window.params()).containsExactly(10L, 20L);

    Sql load = DuckDbDialect.readParquet(List.of("/x/it's.parquet"));
    assertThat(load.text()).doesNotContain("it's").contains("read_parquet(?");
    assertThat(load.params()).containsExactly(List.of("/x/it's.parquet"));

    Sql raw =
        DuckDbDialect.rawVersions(
            DatasetSpec.customers("/raw", "curated.customers"),
            Map.of(
                "customer_id", "VARCHAR",
                "customer_name", "VARCHAR",
                "email", "VARCHAR",
                "updated_at", "TIMESTAMP",
                "op", "VARCHAR"),
            42L);
    assertThat(raw.text()).endsWith("AND marker <= ?");
    assertThat(raw.params()).endsWith(42L);

    Sql sample = DuckDbDialect.sample(DuckDbDialect.MISSING, 5);
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
      DuckDbEngine.createView(c, "v", DuckDbDialect.readParquet(List.of(file.toString())));
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
}
