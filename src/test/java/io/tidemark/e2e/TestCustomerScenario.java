package io.tidemark.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The generated scenario holds every situation the demo promises, deterministically. */
class TestCustomerScenario {
  private static final LocalDate LAST = LocalDate.parse("2026-10-08");

  @Test
  void theSameSeedGivesTheSameData() {
    assertThat(new CustomerScenario(2_000, 7, LAST).deliveries())
        .isEqualTo(new CustomerScenario(2_000, 7, LAST).deliveries());
    assertThat(new CustomerScenario(2_000, 8, LAST).deliveries())
        .isNotEqualTo(new CustomerScenario(2_000, 7, LAST).deliveries());
  }

  @Test
  void deliveriesCarryEverySituation() {
    List<Delivery> days = new CustomerScenario(10_000, 42, LAST).deliveries();
    assertThat(days).hasSize(CustomerScenario.DAYS);
    assertThat(days.get(0).rows()).isEqualTo(10_003);
    for (Delivery d : days.subList(1, days.size())) {
      long changes =
          d.files().stream()
              .filter(f -> f.fileName().startsWith("changes-"))
              .mapToLong(f -> f.rows().size())
              .sum();
      assertThat(changes).as("day %d volume", d.day()).isBetween(100L + 78, 200L + 3 + 75);
      assertThat(d.files().stream().flatMap(f -> f.rows().stream()).filter(r -> "D".equals(r.op())))
          .isNotEmpty();
    }
    Delivery lateDay = days.get(CustomerScenario.DAY_OF_LATE_FILE - 1);
    assertThat(lateDay.files())
        .anyMatch(
            f -> f.partition().isBefore(lateDay.runDate()) && f.fileName().startsWith("late-"));
    Delivery again = days.get(CustomerScenario.DAY_OF_REDELIVERY - 1);
    RawFile redelivered =
        again.files().stream()
            .filter(f -> f.fileName().startsWith("redelivered-"))
            .findFirst()
            .orElseThrow();
    assertThat(days.get(CustomerScenario.DAY_OF_REDELIVERY - 2).files())
        .anyMatch(
            f ->
                f.rows().equals(redelivered.rows())
                    && !f.fileName().equals(redelivered.fileName()));
  }

  @Test
  void expectedStateTakesTheLatestValidVersionAndDropsDeletes() {
    List<RawFile> files = new ArrayList<>();
    Instant t = Instant.parse("2026-10-01T00:00:00Z");
    LocalDate p = LocalDate.parse("2026-10-01");
    files.add(
        new RawFile(
            p,
            "a.parquet",
            List.of(
                new RawRecord("C1", "Ada", "a1@x", t, "U"),
                new RawRecord("C1", "Ada L", "a2@x", t.plusSeconds(5), "U"),
                new RawRecord("C2", "Bob", "b@x", t, "U"),
                new RawRecord("C3", "Cy", "c@x", t, null),
                new RawRecord("", "Blank", "x@x", t, "U"),
                new RawRecord("C4", "Op", "x@x", t, "X"),
                new RawRecord("C5", "Future", "x@x", Instant.parse("2099-01-01T00:00:00Z"), "U"))));
    files.add(
        new RawFile(
            p.plusDays(1),
            "b.parquet",
            List.of(
                new RawRecord("C2", null, null, t.plusSeconds(1), "D"),
                new RawRecord("C1", "Old", "old@x", t.plusSeconds(2), "U"))));

    Map<String, ExpectedState.Row> state =
        ExpectedState.of(files, Instant.parse("2026-10-02T00:00:00Z"), Duration.ofHours(1));

    assertThat(state).containsOnlyKeys("C1", "C3");
    assertThat(state.get("C1").email()).isEqualTo("a2@x");
  }

  @Test
  void rawFilesRoundTripThroughParquetWithNullsAndBlanksIntact(@TempDir Path dir) throws Exception {
    Instant t = Instant.parse("2026-10-01T12:34:56.789012Z");
    RawFile file =
        new RawFile(
            LocalDate.parse("2026-10-01"),
            "x.parquet",
            List.of(
                new RawRecord("C1", "Ada, \"the\" first", "a@x", t, "U"),
                new RawRecord(null, "No key", null, null, null),
                new RawRecord("  ", "Blank", "b@x", t, "D")));
    Path written;
    try (RawWriter writer = new RawWriter()) {
      written = writer.write(dir, file);
    }
    assertThat(written).isEqualTo(dir.resolve("ingest_date=2026-10-01/x.parquet"));
    try (Connection c = DriverManager.getConnection("jdbc:duckdb:");
        ResultSet rs =
            c.createStatement()
                .executeQuery(
                    "SELECT customer_id, customer_name, email, epoch_us(updated_at), op, typeof(updated_at) FROM read_parquet('"
                        + written
                        + "')")) {
      List<String> rows = new ArrayList<>();
      while (rs.next()) {
        rows.add(
            rs.getString(1)
                + "|"
                + rs.getString(2)
                + "|"
                + rs.getString(3)
                + "|"
                + rs.getString(4)
                + "|"
                + rs.getString(5)
                + "|"
                + rs.getString(6));
      }
      long us = java.time.temporal.ChronoUnit.MICROS.between(Instant.EPOCH, t);
      assertThat(rows)
          .containsExactly(
              "C1|Ada, \"the\" first|a@x|" + us + "|U|TIMESTAMP WITH TIME ZONE",
              "null|No key|null|null|null|TIMESTAMP WITH TIME ZONE",
              "  |Blank|b@x|" + us + "|D|TIMESTAMP WITH TIME ZONE");
    }
  }
}
