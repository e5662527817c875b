package io.tidemark.e2e;

import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * Realistic customer exports with a fixed seed: an initial export, then daily change files (one to
 * two percent of customers a day) with inserts, updates, deletes, a few invalid rows, several
 * versions of some keys in one day, a late file landing in an earlier day's partition and a
 * re-delivered file. Every version of a key has its own change-marker value, so "the latest
 * version" never depends on a tie-break.
 *
 * <p>Dates are relative to an anchor day (the demo uses today), so the freshest change is always
 * about a day old; everything else is a pure function of the seed.
 */
public final class CustomerScenario {
  /** Delivery days: 1 is the initial export, 2..{@code DAYS} are daily change files. */
  public static final int DAYS = 8;

  public static final int DAY_OF_LATE_FILE = 6;
  public static final int DAY_OF_REDELIVERY = 7;

  private final int customers;
  private final long seed;
  private final LocalDate firstDay;

  /**
   * @param customers customers in the initial export
   * @param seed the random seed
   * @param lastRunDate the date of the last daily run; the first is {@code DAYS - 1} days earlier
   */
  public CustomerScenario(int customers, long seed, LocalDate lastRunDate) {
    this.customers = customers;
    this.seed = seed;
    this.firstDay = lastRunDate.minusDays(DAYS - 1);
  }

  public List<Delivery> deliveries() {
    Random random = new Random(seed);
    List<Delivery> out = new ArrayList<>();
    // Live state as the generator knows it, to pick realistic updates and deletes.
    Map<String, Instant> live = new LinkedHashMap<>();
    List<String> liveKeys = new ArrayList<>();
    int nextId = 1;

    // Day 1: the initial export, in four files, changes spread over the previous month.
    LocalDate d1 = firstDay;
    List<RawRecord> initial = new ArrayList<>();
    Instant monthStart = d1.minusDays(30).atStartOfDay().toInstant(ZoneOffset.UTC);
    for (int i = 0; i < customers; i++) {
      String id = id(nextId++);
      Instant at = monthStart.plusSeconds(random.nextInt(30 * 86_400)).plusMillis(i % 1000);
      initial.add(new RawRecord(id, name(random), email(id, 0), at, "U"));
      live.put(id, at);
      liveKeys.add(id);
    }
    initial.add(new RawRecord(null, "No Key", "nokey@example.com", monthStart, "U"));
    initial.add(new RawRecord("  ", "Blank Key", "blank@example.com", monthStart, "U"));
    initial.add(new RawRecord(id(nextId++), "No Marker", "nomarker@example.com", null, "U"));
    List<RawFile> files = new ArrayList<>();
    int per = (initial.size() + 3) / 4;
    for (int f = 0; f < 4; f++) {
      files.add(
          new RawFile(
              d1,
              "export-part-" + f + ".parquet",
              initial.subList(f * per, Math.min(initial.size(), (f + 1) * per))));
    }
    out.add(
        new Delivery(1, d1, files, "initial export: " + customers + " customers, 3 invalid rows"));

    List<RawFile> delivered = new ArrayList<>(files);
    for (int day = 2; day <= DAYS; day++) {
      LocalDate runDate = firstDay.plusDays(day - 1);
      Instant dayStart = runDate.minusDays(1).atStartOfDay().toInstant(ZoneOffset.UTC);
      List<RawRecord> changes = new ArrayList<>();
      int volume = (int) (liveKeys.size() * (0.01 + random.nextDouble() * 0.01));
      int second = 0;
      for (int i = 0; i < volume; i++) {
        Instant at = dayStart.plusSeconds(10L * second++);
        double kind = random.nextDouble();
        if (kind < 0.2) {
          String id = id(nextId++);
          changes.add(new RawRecord(id, name(random), email(id, day), at, "U"));
          live.put(id, at);
          liveKeys.add(id);
        } else {
          String id = liveKeys.get(random.nextInt(liveKeys.size()));
          if (kind < 0.9) {
            changes.add(new RawRecord(id, name(random), email(id, day), at, "U"));
            live.put(id, at);
          } else {
            changes.add(new RawRecord(id, null, null, at, "D"));
            live.remove(id);
            liveKeys.remove(id);
          }
        }
      }
      // Several versions of some keys in one day: the latest must win, the others are superseded.
      for (int i = 0; i < 25; i++) {
        String id = liveKeys.get(random.nextInt(liveKeys.size()));
        for (int v = 1; v <= 3; v++) {
          Instant at = dayStart.plusSeconds(10L * second++);
          changes.add(new RawRecord(id, name(random), email(id, day * 10 + v), at, "U"));
          live.put(id, at);
        }
      }
      // A few invalid rows.
      changes.add(new RawRecord(null, "No Key", "x@example.com", dayStart, "U"));
      changes.add(new RawRecord(id(nextId++), "Bad Op", "op@example.com", dayStart, "X"));
      changes.add(
          new RawRecord(
              id(nextId++),
              "Future",
              "future@example.com",
              Instant.parse("2099-01-01T00:00:00Z"),
              "U"));
      java.util.Collections.shuffle(changes, random);

      List<RawFile> today = new ArrayList<>();
      int half = changes.size() / 2;
      today.add(
          new RawFile(runDate, "changes-" + runDate + "-a.parquet", changes.subList(0, half)));
      today.add(
          new RawFile(
              runDate, "changes-" + runDate + "-b.parquet", changes.subList(half, changes.size())));
      String story =
          volume
              + " changes ("
              + String.format("%.1f", 100.0 * volume / customers)
              + "%), 25 keys with 3 versions, 3 invalid rows";

      if (day == DAY_OF_LATE_FILE) {
        // A late file lands in an earlier day's partition: versions from three days ago.
        LocalDate earlier = runDate.minusDays(2);
        Instant lateStart =
            earlier.minusDays(1).atStartOfDay().toInstant(ZoneOffset.UTC).plusSeconds(43_200);
        List<RawRecord> late = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
          String id = liveKeys.get(random.nextInt(liveKeys.size()));
          // Older than what raw already holds for some keys: the version guard must keep the newer
          // one.
          late.add(
              new RawRecord(id, name(random), email(id, 900 + i), lateStart.plusSeconds(i), "U"));
          if (live.get(id).isBefore(lateStart.plusSeconds(i))) {
            live.put(id, lateStart.plusSeconds(i));
          }
        }
        today.add(new RawFile(earlier, "late-" + runDate + ".parquet", late));
        story += "; a late file of 200 versions lands in ingest_date=" + earlier;
      }
      if (day == DAY_OF_REDELIVERY) {
        // The source re-delivers yesterday's first file under a new name.
        RawFile again = delivered.get(delivered.size() - 2);
        today.add(new RawFile(runDate, "redelivered-" + again.fileName(), again.rows()));
        story += "; " + again.fileName() + " is re-delivered";
      }
      delivered.addAll(today);
      out.add(new Delivery(day, runDate, today, story));
    }
    return out;
  }

  private static String id(int n) {
    return String.format("C%07d", n);
  }

  private static final String[] FIRST = {
    "Ada", "Grace", "Alan", "Edsger", "Barbara", "Donald", "Frances", "Ken", "Margaret", "Dennis",
    "Radia", "Leslie", "Hedy", "Tim", "Sophie", "John", "Katherine", "Niklaus", "Shafi", "Guido"
  };
  private static final String[] LAST = {
    "Lovelace", "Hopper", "Turing", "Dijkstra", "Liskov", "Knuth", "Allen", "Thompson",
    "Hamilton", "Ritchie", "Perlman", "Lamport", "Lamarr", "Berners-Lee", "Wilson", "Backus",
    "Johnson", "Wirth", "Goldwasser", "van Rossum"
  };

  private static String name(Random random) {
    return FIRST[random.nextInt(FIRST.length)] + " " + LAST[random.nextInt(LAST.length)];
  }

  private static String email(String id, int version) {
    return id.toLowerCase() + (version == 0 ? "" : "+" + version) + "@example.com";
  }
}
