package io.tidemark.reconcile.engine.duckdb;

import static io.tidemark.reconcile.fixtures.CustomersScenario.at;
import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.reconcile.fixtures.CuratedTable;
import io.tidemark.reconcile.fixtures.CustomersScenario;
import io.tidemark.reconcile.storage.IcebergTables;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.OffsetDateTime;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The embedded engine reads the curated table through its live data files with position deletes
 * anti-joined, and must see exactly what Iceberg's own generic reader sees.
 */
class TestDuckDbCuratedRead {
  @TempDir Path dir;

  @Test
  void liveRowsEqualAnIcebergGenericReadOfATableWithUpdatesAndDeletes() throws Exception {
    try (CustomersScenario s = CustomersScenario.clean(dir)) {
      // More history: an update, a delete, a re-insert of a deleted key, a row with nulls.
      s.curated.upsert(List.of(new CuratedTable.Row("k07", "updated", "k07@x.example", at(2))));
      s.curated.delete(List.of("k08", "k19"));
      s.curated.append(List.of(new CuratedTable.Row("k19", null, null, null)));
      s.curated.upsert(List.of(new CuratedTable.Row("k01", "again", "k01@x.example", at(1))));

      Table table = s.curated.table();
      IcebergTables.LiveFiles live = IcebergTables.liveFiles(table);
      assertThat(live.positionDeletes())
          .as("the fixture has position deletes")
          .hasSizeGreaterThan(2);

      List<String> expected = new ArrayList<>();
      try (CloseableIterable<Record> rows = IcebergGenerics.read(table).build()) {
        for (Record r : rows) {
          OffsetDateTime ts = (OffsetDateTime) r.getField("updated_at");
          expected.add(
              row(
                  r.getField("customer_id"),
                  r.getField("customer_name"),
                  r.getField("email"),
                  ts == null
                      ? null
                      : ChronoUnit.MICROS.between(
                          OffsetDateTime.parse("1970-01-01T00:00:00Z"), ts)));
        }
      }

      List<String> actual = new ArrayList<>();
      try (Connection c = DuckDbEngine.open()) {
        List<String> columns = DuckDbEngine.loadLive(c, live);
        assertThat(columns).containsExactly("customer_id", "customer_name", "email", "updated_at");
        try (Statement st = c.createStatement();
            ResultSet rs =
                st.executeQuery(
                    "SELECT customer_id, customer_name, email, epoch_us(updated_at)"
                        + " FROM curated_live")) {
          while (rs.next()) {
            Long micros = rs.getLong(4);
            actual.add(
                row(
                    rs.getString(1),
                    rs.getString(2),
                    rs.getString(3),
                    rs.wasNull() ? null : micros));
          }
        }
      }

      assertThat(expected).hasSize(18);
      assertThat(actual).containsExactlyInAnyOrderElementsOf(expected);
      assertThat(actual).contains(row("k01", "again", "k01@x.example", DuckDbEngine.micros(at(1))));
      assertThat(actual).contains(row("k19", null, null, null));
      assertThat(actual).noneMatch(r -> r.startsWith("k08|") || r.startsWith("k03|"));
    }
  }

  private static String row(Object... values) {
    StringBuilder sb = new StringBuilder();
    for (Object v : values) {
      sb.append(sb.isEmpty() ? "" : "|").append(v);
    }
    return sb.toString();
  }
}
