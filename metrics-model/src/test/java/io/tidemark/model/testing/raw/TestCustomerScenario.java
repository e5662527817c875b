package io.tidemark.model.testing.raw;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
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
    assertThat(days.get(0).rows()).isEqualTo(10_003);
    assertKeepsItsPromises(days, 10_000, LAST);
  }

  @Test
  void theSmallestScenarioHasEveryDayAndAnUnambiguousExpectedState() {
    List<Delivery> days =
        new CustomerScenario(CustomerScenario.MIN_CUSTOMERS, 42, LAST).deliveries();
    assertThat(days).hasSize(CustomerScenario.DAYS);
    List<RawFile> files = days.stream().flatMap(d -> d.files().stream()).toList();
    assertThat(ExpectedState.of(files, CustomerScenario.startOf(LAST), Duration.ofHours(1)))
        .isNotEmpty();
  }

  /**
   * At two million customers a day holds 20,000 to 40,000 changes: spaced a fixed interval apart,
   * they ran days past their day, into the future of the last runs. Generation only (no files, no
   * Spark): the rows are what the demo and benchmarks write and ingest.
   */
  @Test
  void twoMillionCustomersStillKeepEveryChangeInsideItsDay() {
    int customers = 2_000_000;
    List<Delivery> days = new CustomerScenario(customers, 42, LAST).deliveries();
    assertThat(days.get(0).rows()).isEqualTo(customers + 3L);
    assertKeepsItsPromises(days, customers, LAST);
  }

  /**
   * What the class comment of {@link CustomerScenario} and the README promise, checked on the rows
   * alone: every file's markers lie in the day its partition covers (the 30 days before day 1 for
   * the initial export), so none is later than the start of the last run date, the earliest "now"
   * of any ingest run (the deliberate 2099 row apart); each daily delivery has 1-2 % of the live
   * customers as single-version inserts, updates and deletes of the right keys, 25 keys with three
   * distinct increasing versions and 3 invalid rows; the late file and the re-delivered file are
   * where they should be; and no key has two versions with one marker.
   */
  static void assertKeepsItsPromises(List<Delivery> days, int customers, LocalDate lastRunDate) {
    assertThat(days).hasSize(CustomerScenario.DAYS);
    LocalDate firstDay = lastRunDate.minusDays(CustomerScenario.DAYS - 1);
    Instant earliestNow = CustomerScenario.startOf(lastRunDate);
    Problems problems = new Problems(earliestNow);
    BitSet live = new BitSet();
    int maxId = 0;

    Delivery initial = days.get(0);
    problems.check(initial.runDate().equals(firstDay), "day 1's run date", initial::runDate);
    int invalidInitial = 0;
    for (RawFile f : initial.files()) {
      problems.check(
          f.partition().equals(firstDay), "day 1: a file in another partition", f::fileName);
      for (RawRecord r : f.rows()) {
        if (isBlank(r.customerId()) || r.updatedAt() == null) {
          invalidInitial++;
          continue;
        }
        problems.within(r, firstDay.minusDays(CustomerScenario.HISTORY_DAYS), firstDay, "day 1");
        int id = id(r.customerId());
        problems.check(!live.get(id), "day 1: a key twice in the initial export", r::customerId);
        live.set(id);
        maxId = Math.max(maxId, id);
      }
    }
    int invalid = invalidInitial;
    problems.check(invalid == 3, "day 1: not 3 invalid rows", () -> invalid);
    problems.check(live.cardinality() == customers, "day 1: not every customer", live::cardinality);

    // Markers of every version after the initial export, by key (the initial export's lie in the
    // month before, earlier than all of these).
    Map<String, List<Instant>> markersByKey = new HashMap<>();
    Map<LocalDate, Integer> lastIdBeforePartition = new HashMap<>();
    RawFile yesterdaysFirstFile = null;
    for (Delivery d : days.subList(1, days.size())) {
      String day = "day " + d.day();
      LocalDate run = d.runDate();
      problems.check(run.equals(firstDay.plusDays(d.day() - 1L)), day + ": run date", () -> run);
      List<RawRecord> changes = new ArrayList<>();
      RawFile late = null;
      RawFile redelivered = null;
      for (RawFile f : d.files()) {
        if (f.fileName().startsWith("changes-")) {
          problems.check(
              f.partition().equals(run), day + ": a change file in another partition", f::fileName);
          changes.addAll(f.rows());
        } else if (f.fileName().startsWith("late-")) {
          late = f;
        } else if (f.fileName().startsWith("redelivered-")) {
          redelivered = f;
        } else {
          problems.check(false, day + ": an unexpected file", f::fileName);
        }
      }

      int noKey = 0;
      int badOp = 0;
      int farFuture = 0;
      Map<String, List<RawRecord>> byKey = new HashMap<>();
      int maxIdBefore = maxId;
      lastIdBeforePartition.put(run, maxIdBefore);
      for (RawRecord r : changes) {
        boolean far = CustomerScenario.FAR_FUTURE.equals(r.updatedAt());
        if (far) {
          farFuture++;
        } else {
          problems.within(r, run.minusDays(1), run, day);
        }
        if (isBlank(r.customerId())) {
          noKey++;
          continue;
        }
        maxId = Math.max(maxId, id(r.customerId()));
        if (!"U".equals(r.op()) && !"D".equals(r.op())) {
          badOp++;
        } else if (!far) {
          byKey.computeIfAbsent(r.customerId(), k -> new ArrayList<>(1)).add(r);
        }
      }
      List<Integer> invalidRows = List.of(noKey, badOp, farFuture);
      problems.check(
          invalidRows.equals(List.of(1, 1, 1)),
          day + ": not one row each without a key, with an unknown operation, in 2099",
          () -> invalidRows);

      int liveAtStart = live.cardinality();
      int inserts = 0;
      int updates = 0;
      int deletes = 0;
      int threeVersionKeys = 0;
      for (Map.Entry<String, List<RawRecord>> e : byKey.entrySet()) {
        String key = e.getKey();
        int id = id(key);
        List<RawRecord> versions = e.getValue();
        for (RawRecord v : versions) {
          problems.distinctMarker(markersByKey, v, day);
        }
        if (versions.size() == 1) {
          RawRecord r = versions.get(0);
          if (live.get(id)) {
            if ("U".equals(r.op())) {
              updates++;
            } else {
              deletes++;
              live.clear(id);
            }
          } else {
            problems.check(
                id > maxIdBefore && "U".equals(r.op()),
                day + ": a change of a key that is not live",
                () -> r);
            inserts++;
            live.set(id);
          }
        } else {
          threeVersionKeys++;
          List<RawRecord> byMarker =
              versions.stream().sorted(Comparator.comparing(RawRecord::updatedAt)).toList();
          String local = "c" + key.substring(1) + "+";
          List<String> increasing =
              List.of(
                  local + (d.day() * 10 + 1) + "@example.com",
                  local + (d.day() * 10 + 2) + "@example.com",
                  local + (d.day() * 10 + 3) + "@example.com");
          problems.check(
              live.get(id) && byMarker.stream().map(RawRecord::email).toList().equals(increasing),
              day + ": a key with several versions, not three upserts of a live key in order",
              () -> byMarker);
        }
      }
      int volume = inserts + updates + deletes;
      problems.check(
          volume >= Math.ceil(CustomerScenario.MIN_CHANGE_RATIO * liveAtStart)
              && volume <= Math.ceil(CustomerScenario.MAX_CHANGE_RATIO * liveAtStart),
          day + ": single-version changes not 1-2 % of the live customers",
          () -> volume + " for " + liveAtStart);
      List<Integer> kinds = List.of(inserts, updates, deletes);
      problems.check(
          kinds.stream().allMatch(n -> n > 0),
          day + ": not every kind of change (inserts, updates, deletes)",
          () -> kinds);
      int multi = threeVersionKeys;
      problems.check(
          multi == CustomerScenario.KEYS_WITH_THREE_VERSIONS,
          day + ": not 25 keys with three versions",
          () -> multi);

      if (d.day() == CustomerScenario.DAY_OF_LATE_FILE && late != null) {
        LocalDate p = late.partition();
        problems.check(
            p.isBefore(run.minusDays(1)), "the late file is not in an earlier partition", () -> p);
        problems.check(
            late.rows().size() == CustomerScenario.LATE_VERSIONS,
            "the late file's rows",
            late.rows()::size);
        for (RawRecord r : late.rows()) {
          problems.within(r, p.minusDays(1), p, "the late file");
          problems.check(
              live.get(id(r.customerId()))
                  && id(r.customerId()) <= lastIdBeforePartition.getOrDefault(p, 0)
                  && "U".equals(r.op()),
              "the late file: not an upsert of a key live then and now",
              () -> r);
          problems.distinctMarker(markersByKey, r, "the late file");
        }
      } else {
        boolean expected = d.day() == CustomerScenario.DAY_OF_LATE_FILE;
        problems.check(late == null && !expected, day + ": a late file, or none", () -> expected);
      }
      if (d.day() == CustomerScenario.DAY_OF_REDELIVERY && redelivered != null) {
        RawFile again = redelivered;
        RawFile original = yesterdaysFirstFile;
        problems.check(
            again.partition().equals(run)
                && again.fileName().equals("redelivered-" + original.fileName())
                && again.rows().equals(original.rows()),
            "the re-delivered file is not yesterday's first file under a new name",
            again::relativePath);
      } else {
        boolean expected = d.day() == CustomerScenario.DAY_OF_REDELIVERY;
        problems.check(
            redelivered == null && !expected,
            day + ": a re-delivered file, or none",
            () -> expected);
      }
      yesterdaysFirstFile =
          d.files().stream()
              .filter(f -> f.fileName().equals("changes-" + run + "-a.parquet"))
              .findFirst()
              .orElseThrow();
    }
    assertThat(problems.summary()).as("what the scenario breaks, with examples").isEmpty();
  }

  /**
   * Counts each kind of problem found and keeps a few examples, so one failure shows everything the
   * scenario breaks and how often.
   */
  private static final class Problems {
    private final Instant earliestNow;
    private final Map<String, Long> counts = new LinkedHashMap<>();
    private final Map<String, List<Object>> examples = new HashMap<>();

    Problems(Instant earliestNow) {
      this.earliestNow = earliestNow;
    }

    void check(boolean holds, String what, Supplier<Object> example) {
      if (!holds) {
        counts.merge(what, 1L, Long::sum);
        List<Object> some = examples.computeIfAbsent(what, k -> new ArrayList<>());
        if (some.size() < 3) {
          some.add(example.get());
        }
      }
    }

    /** The marker lies in {@code day} (UTC), hence before the earliest now of any run. */
    void within(RawRecord r, LocalDate day, LocalDate nextDay, String what) {
      Instant at = r.updatedAt();
      check(
          at != null
              && !at.isBefore(CustomerScenario.startOf(day))
              && at.isBefore(CustomerScenario.startOf(nextDay)),
          what + ": a marker outside " + day,
          () -> r);
      check(
          at != null && at.isBefore(earliestNow),
          what + ": a marker not before the last run date's start, " + earliestNow,
          () -> r);
    }

    void distinctMarker(Map<String, List<Instant>> markersByKey, RawRecord r, String what) {
      List<Instant> markers = markersByKey.computeIfAbsent(r.customerId(), k -> new ArrayList<>(2));
      check(
          !markers.contains(r.updatedAt()),
          what + ": a key with two versions at one marker",
          () -> r);
      markers.add(r.updatedAt());
    }

    List<String> summary() {
      List<String> lines = new ArrayList<>();
      counts.forEach(
          (what, n) -> lines.add(what + ": " + n + " time(s), e.g. " + examples.get(what)));
      return lines;
    }
  }

  private static boolean isBlank(String key) {
    return key == null || key.isBlank();
  }

  private static int id(String key) {
    return Integer.parseInt(key.substring(1));
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
    try (RawFileWriter writer = new RawFileWriter()) {
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
