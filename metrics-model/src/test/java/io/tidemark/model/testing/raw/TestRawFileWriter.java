package io.tidemark.model.testing.raw;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The kit's raw files are what the tests say they are: types, values, blanks, order. */
class TestRawFileWriter {
  @TempDir Path dir;

  @Test
  void writesEachTypeAsDeclaredAndKeepsRowOrderNullsAndBlanks() throws Exception {
    List<RawColumn> columns =
        List.of(
            RawColumn.of("id", "VARCHAR"),
            RawColumn.of("at_utc", "TIMESTAMPTZ"),
            RawColumn.of("at_naive", "TIMESTAMP"),
            RawColumn.of("amount", "DECIMAL(12,2)"),
            RawColumn.of("line_nr", "INTEGER"),
            RawColumn.of("seq", "BIGINT"),
            RawColumn.of("day", "DATE"),
            RawColumn.of("paid", "BOOLEAN"));
    Instant at = Instant.parse("2024-03-01T10:15:30.123456Z");
    Path file =
        RawFileWriter.writeOnce(
            dir.resolve("ingest_date=2024-03-01/part-1.parquet"),
            columns,
            List.of(
                List.of(
                    "b", at, at, new BigDecimal("12.30"), 2, 9_000_000_000L, "2024-03-01", true),
                Arrays.asList("", null, null, null, null, null, null, null),
                Arrays.asList(
                    "a \"quoted\", text",
                    at,
                    at,
                    new BigDecimal("-0.05"),
                    1,
                    1L,
                    "2024-02-29",
                    false)));
    assertThat(file).exists();
    assertThat(Files.list(file.getParent())).containsExactly(file);
    try (Connection c = DriverManager.getConnection("jdbc:duckdb:");
        Statement s = c.createStatement()) {
      s.execute("SET TimeZone = 'UTC'");
      List<String> types = new ArrayList<>();
      try (ResultSet rs =
          s.executeQuery(
              "SELECT name, type, logical_type FROM parquet_schema('"
                  + file
                  + "') WHERE num_children IS NULL")) {
        while (rs.next()) {
          types.add(rs.getString(1) + " " + rs.getString(2) + " " + rs.getString(3));
        }
      }
      assertThat(types.get(1)).contains("INT64").contains("isAdjustedToUTC=1");
      assertThat(types.get(2)).contains("INT64").contains("isAdjustedToUTC=0");
      List<String> rows = new ArrayList<>();
      try (ResultSet rs =
          s.executeQuery(
              "SELECT id, CAST(at_utc AS VARCHAR), CAST(at_naive AS VARCHAR), amount, line_nr,"
                  + " seq, day, paid FROM read_parquet('"
                  + file
                  + "')")) {
        while (rs.next()) {
          List<String> row = new ArrayList<>();
          for (int i = 1; i <= 8; i++) {
            row.add(String.valueOf(rs.getObject(i)));
          }
          rows.add(String.join("|", row));
        }
      }
      assertThat(rows)
          .containsExactly(
              "b|2024-03-01 10:15:30.123456+00|2024-03-01 10:15:30.123456|12.30|2|9000000000|2024-03-01|true",
              "|null|null|null|null|null|null|null",
              "a \"quoted\", text|2024-03-01 10:15:30.123456+00|2024-03-01 10:15:30.123456|-0.05|1|1|2024-02-29|false");
    }
  }

  @Test
  void aRowOfTheWrongWidthIsRefusedNamingItsLineAndNoFileAppears() {
    Path target = dir.resolve("bad.parquet");
    assertThatThrownBy(
            () ->
                RawFileWriter.writeOnce(
                    target, RawColumn.CUSTOMERS, List.of(List.of("k1", "only two"))))
        .hasMessageContaining("row 1 of " + target)
        .hasMessageContaining("2 values for 5 columns");
    assertThat(target).doesNotExist();
  }

  @Test
  void aColumnNameThatIsNoIdentifierIsRefused() {
    assertThatThrownBy(() -> RawColumn.of("x'; DROP", "VARCHAR"))
        .hasMessageContaining("not an identifier");
  }

  @Test
  void aFileWhoseNameHoldsAQuoteIsWrittenWholeAndNothingIsLeftBesideIt() throws Exception {
    Path target = dir.resolve("ingest_date=2024-03-01").resolve("it's [a].parquet");
    RawFileWriter.writeOnce(
        target,
        List.of(RawColumn.of("id", "VARCHAR"), RawColumn.of("seen_at", "TIMESTAMP_MS")),
        List.of(List.of("k1", Instant.parse("2024-03-01T10:00:00.123Z"))));
    try (java.util.stream.Stream<Path> files = Files.list(target.getParent())) {
      assertThat(files).containsExactly(target);
    }
    try (Connection c = DriverManager.getConnection("jdbc:duckdb:");
        Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery(
                "SELECT id, CAST(seen_at AS VARCHAR) FROM read_parquet('"
                    + target.toString().replace("'", "''")
                    + "')")) {
      assertThat(rs.next()).isTrue();
      assertThat(rs.getString(1) + "|" + rs.getString(2)).isEqualTo("k1|2024-03-01 10:00:00.123");
    }
  }

  @Test
  void aQueryThatFailsLeavesNoHalfWrittenFile() {
    Path target = dir.resolve("ingest_date=2024-03-01").resolve("part-1.parquet");
    assertThatThrownBy(() -> RawFileWriter.writeQueryOnce(target, "SELECT no_such_column"))
        .hasMessageContaining("Cannot write raw file " + target);
    assertThat(target).doesNotExist();
    assertThat(target.resolveSibling(".part-1.parquet.tmp")).doesNotExist();
  }
}
