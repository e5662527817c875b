package io.tidemark.model.testing.raw;

import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Random;

/**
 * Realistic customer exports with a fixed seed: an initial export, then daily change files (one to
 * two percent of the live customers a day) with inserts, updates, deletes, a few invalid rows,
 * several versions of some keys in one day, a late file landing in an earlier day's partition and a
 * re-delivered file. Every version of a key has its own change-marker value, so "the latest
 * version" never depends on a tie-break.
 *
 * <p>Time, whatever the number of customers: the initial export (partition of day 1) holds changes
 * made over the {@value #HISTORY_DAYS} days before day 1; every other file in partition {@code P}
 * holds changes made on the day before {@code P} (the late file too: it lands late, in the
 * partition its day belongs to). A day's changes are spread over that whole day, one time slot per
 * change, so a day never runs into the next one however many changes it has; the only exception is
 * the one invalid row a day whose marker is deliberately in 2099. Hence every valid change marker
 * is earlier than the start of the run date it is delivered for, and no run sees a change from its
 * future.
 *
 * <p>Per day, each key has at most one version, except {@value #KEYS_WITH_THREE_VERSIONS} keys with
 * three versions each, at increasing markers; those keys change only through these versions that
 * day.
 *
 * <p>Dates are relative to an anchor day (the demo uses today), so the freshest change is always
 * about a day old; everything else is a pure function of the seed. Generation is linear in the
 * number of customers (tens of millions are fine); memory is that of the rows themselves.
 */
public final class CustomerScenario {
  /** Delivery days: 1 is the initial export, 2..{@code DAYS} are daily change files. */
  public static final int DAYS = 8;

  public static final int DAY_OF_LATE_FILE = 6;
  public static final int DAY_OF_REDELIVERY = 7;

  /** The initial export holds changes made over this many days before day 1. */
  public static final int HISTORY_DAYS = 30;

  /** Keys a day that get three versions on that day. */
  public static final int KEYS_WITH_THREE_VERSIONS = 25;

  /** Invalid rows in each daily change delivery: no key, an unknown operation, a 2099 marker. */
  public static final int INVALID_ROWS_PER_DAY = 3;

  /** Rows in the late file. */
  public static final int LATE_VERSIONS = 200;

  /**
   * A day's single-version changes are this share of the live customers at the day's start, at
   * least.
   */
  public static final double MIN_CHANGE_RATIO = 0.01;

  /** ... and at most this share. */
  public static final double MAX_CHANGE_RATIO = 0.02;

  /** Fewer would leave too few keys a day to pick the three-version keys from. */
  public static final int MIN_CUSTOMERS = 100;

  /** The deliberately invalid change marker of one row a day. */
  public static final Instant FAR_FUTURE = Instant.parse("2099-01-01T00:00:00Z");

  private static final long MICROS_PER_DAY = 86_400_000_000L;

  private final int customers;
  private final long seed;
  private final LocalDate firstDay;

  /**
   * @param customers customers in the initial export
   * @param seed the random seed
   * @param lastRunDate the date of the last daily run; the first is {@code DAYS - 1} days earlier
   */
  public CustomerScenario(int customers, long seed, LocalDate lastRunDate) {
    if (customers < MIN_CUSTOMERS) {
      throw new IllegalArgumentException(
          "at least " + MIN_CUSTOMERS + " customers, not " + customers);
    }
    this.customers = customers;
    this.seed = seed;
    this.firstDay = lastRunDate.minusDays(DAYS - 1);
  }

  /** The start (UTC) of a day: a file in this day's partition holds changes made before it. */
  public static Instant startOf(LocalDate day) {
    return day.atStartOfDay().toInstant(ZoneOffset.UTC);
  }

  public List<Delivery> deliveries() {
    Random random = new Random(seed);
    List<Delivery> out = new ArrayList<>();
    LiveKeys live = new LiveKeys(customers + customers / 5);
    int nextId = 1;

    // Day 1: the initial export, in four files, changes spread over the previous month.
    LocalDate d1 = firstDay;
    List<RawRecord> initial = new ArrayList<>(customers + 3);
    long historyStart = micros(startOf(d1.minusDays(HISTORY_DAYS)));
    for (int i = 0; i < customers; i++) {
      int n = nextId++;
      String id = id(n);
      Instant at = instant(historyStart + random.nextLong(HISTORY_DAYS * MICROS_PER_DAY));
      initial.add(new RawRecord(id, name(random), email(id, 0), at, "U"));
      live.add(n);
    }
    Instant monthStart = instant(historyStart);
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

    long[] markersOfLateDay = null;
    int lastIdBeforeLateDay = 0;
    RawFile yesterdaysFirstFile = null;
    for (int day = 2; day <= DAYS; day++) {
      LocalDate runDate = firstDay.plusDays(day - 1);
      long dayStart = micros(startOf(runDate.minusDays(1)));
      int liveAtStart = live.size();
      int lastIdBefore = nextId - 1;
      int volume = changeVolume(liveAtStart, random.nextDouble());
      // One time slot per version, in a random order over the day: slot s covers
      // [s * day / slots, (s + 1) * day / slots), so markers are distinct, inside the day and
      // increasing with the slot, at any volume.
      int slots = volume + 3 * KEYS_WITH_THREE_VERSIONS;
      int[] slotOf = permutation(slots, random);
      long[] markers = new long[slots];
      for (int s = 0; s < slots; s++) {
        long from = Math.multiplyExact((long) s, MICROS_PER_DAY) / slots;
        long to = Math.multiplyExact((long) s + 1, MICROS_PER_DAY) / slots;
        markers[s] = dayStart + from + random.nextLong(to - from);
      }

      List<RawRecord> changes = new ArrayList<>(slots + INVALID_ROWS_PER_DAY);
      int inserts = 0;
      int deletes = 0;
      for (int i = 0; i < volume; i++) {
        Instant at = instant(markers[slotOf[i]]);
        double kind = random.nextDouble();
        if (kind < 0.2) {
          int n = nextId++;
          String id = id(n);
          changes.add(new RawRecord(id, name(random), email(id, day), at, "U"));
          live.add(n);
          live.touch(n, day);
          inserts++;
        } else {
          int n = live.pickUntouched(random, day);
          String id = id(n);
          live.touch(n, day);
          if (kind < 0.9) {
            changes.add(new RawRecord(id, name(random), email(id, day), at, "U"));
          } else {
            changes.add(new RawRecord(id, null, null, at, "D"));
            live.remove(n);
            deletes++;
          }
        }
      }
      // Several versions of some keys in one day: the latest must win, the others are superseded.
      for (int k = 0; k < KEYS_WITH_THREE_VERSIONS; k++) {
        int n = live.pickUntouched(random, day);
        live.touch(n, day);
        String id = id(n);
        int first = volume + 3 * k;
        int[] three = {slotOf[first], slotOf[first + 1], slotOf[first + 2]};
        Arrays.sort(three);
        for (int v = 1; v <= 3; v++) {
          changes.add(
              new RawRecord(
                  id, name(random), email(id, day * 10 + v), instant(markers[three[v - 1]]), "U"));
        }
      }
      // A few invalid rows.
      Instant dayStartInstant = instant(dayStart);
      changes.add(new RawRecord(null, "No Key", "x@example.com", dayStartInstant, "U"));
      changes.add(new RawRecord(id(nextId++), "Bad Op", "op@example.com", dayStartInstant, "X"));
      changes.add(new RawRecord(id(nextId++), "Future", "future@example.com", FAR_FUTURE, "U"));
      Collections.shuffle(changes, random);
      if (day == DAY_OF_LATE_FILE - 2) {
        markersOfLateDay = markers.clone();
        Arrays.sort(markersOfLateDay);
        lastIdBeforeLateDay = lastIdBefore;
      }

      List<RawFile> today = new ArrayList<>();
      int half = changes.size() / 2;
      RawFile first =
          new RawFile(runDate, "changes-" + runDate + "-a.parquet", changes.subList(0, half));
      today.add(first);
      today.add(
          new RawFile(
              runDate, "changes-" + runDate + "-b.parquet", changes.subList(half, changes.size())));
      String story =
          String.format(
              "%d changes (%.1f%%: %d inserts, %d updates, %d deletes), %d keys with 3 versions,"
                  + " %d invalid rows",
              volume,
              100.0 * volume / liveAtStart,
              inserts,
              volume - inserts - deletes,
              deletes,
              KEYS_WITH_THREE_VERSIONS,
              INVALID_ROWS_PER_DAY);

      if (day == DAY_OF_LATE_FILE) {
        // A late file lands in an earlier day's partition, with versions made on that partition's
        // day (two runs ago), at noon: older than what raw already holds for some keys, so the
        // version guard must keep the newer one. Its keys existed before that day and are still
        // live.
        LocalDate earlier = runDate.minusDays(2);
        long lateStart = micros(startOf(earlier.minusDays(1))) + MICROS_PER_DAY / 2;
        List<RawRecord> late = new ArrayList<>(LATE_VERSIONS);
        long previous = Long.MIN_VALUE;
        for (int i = 0; i < LATE_VERSIONS; i++) {
          int n = live.pick(random, lastIdBeforeLateDay);
          String id = id(n);
          // A second apart, and never on a marker that day's changes used: distinct versions.
          long at = Math.max(lateStart + i * 1_000_000L, previous + 1);
          while (Arrays.binarySearch(markersOfLateDay, at) >= 0) {
            at++;
          }
          previous = at;
          late.add(new RawRecord(id, name(random), email(id, 900 + i), instant(at), "U"));
        }
        today.add(new RawFile(earlier, "late-" + runDate + ".parquet", late));
        story += "; a late file of " + LATE_VERSIONS + " versions lands in ingest_date=" + earlier;
      }
      if (day == DAY_OF_REDELIVERY) {
        // The source re-delivers yesterday's first file under a new name.
        RawFile again = yesterdaysFirstFile;
        today.add(new RawFile(runDate, "redelivered-" + again.fileName(), again.rows()));
        story += "; " + again.fileName() + " is re-delivered";
      }
      yesterdaysFirstFile = first;
      out.add(new Delivery(day, runDate, today, story));
    }
    return out;
  }

  /** The day's single-version changes for {@code live} customers and a uniform draw in [0, 1). */
  static int changeVolume(int live, double draw) {
    double ratio = MIN_CHANGE_RATIO + draw * (MAX_CHANGE_RATIO - MIN_CHANGE_RATIO);
    return (int) Math.ceil(live * ratio);
  }

  /**
   * The live keys (numeric ids) with O(1) add, remove and uniform pick, and the day each was last
   * changed. A list's {@code remove(Object)} made the generator quadratic in the customers.
   */
  private static final class LiveKeys {
    private int[] keys;
    private int size;
    private int[] position = new int[0]; // by id; -1 when not live
    private int[] touchedOn = new int[0]; // by id: the last day the key changed

    LiveKeys(int capacity) {
      keys = new int[capacity];
    }

    int size() {
      return size;
    }

    void add(int id) {
      if (size == keys.length) {
        keys = Arrays.copyOf(keys, size * 2);
      }
      if (id >= position.length) {
        int from = position.length;
        position = Arrays.copyOf(position, Math.max(id + 1, from * 2));
        Arrays.fill(position, from, position.length, -1);
        touchedOn = Arrays.copyOf(touchedOn, position.length);
      }
      position[id] = size;
      keys[size++] = id;
    }

    void remove(int id) {
      int at = position[id];
      int last = keys[--size];
      keys[at] = last;
      position[last] = at;
      position[id] = -1;
    }

    void touch(int id, int day) {
      touchedOn[id] = day;
    }

    /** A live key with an id up to {@code maxId}. */
    int pick(Random random, int maxId) {
      while (true) {
        int id = keys[random.nextInt(size)];
        if (id <= maxId) {
          return id;
        }
      }
    }

    /** A live key not changed yet on {@code day}; at most two percent are, so this is quick. */
    int pickUntouched(Random random, int day) {
      while (true) {
        int id = keys[random.nextInt(size)];
        if (touchedOn[id] != day) {
          return id;
        }
      }
    }
  }

  private static int[] permutation(int n, Random random) {
    int[] p = new int[n];
    for (int i = 0; i < n; i++) {
      p[i] = i;
    }
    for (int i = n - 1; i > 0; i--) {
      int j = random.nextInt(i + 1);
      int t = p[i];
      p[i] = p[j];
      p[j] = t;
    }
    return p;
  }

  private static long micros(Instant t) {
    return Math.addExact(Math.multiplyExact(t.getEpochSecond(), 1_000_000L), t.getNano() / 1_000);
  }

  private static Instant instant(long micros) {
    return Instant.ofEpochSecond(
        Math.floorDiv(micros, 1_000_000L), Math.floorMod(micros, 1_000_000L) * 1_000L);
  }

  /** {@code C0000042}: seven digits, more once ids pass ten million. */
  static String id(int n) {
    String digits = Integer.toString(n);
    return digits.length() >= 7
        ? "C" + digits
        : "C" + "0000000".substring(digits.length()) + digits;
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

  /** Every full name once: millions of rows share these 400 strings. */
  private static final String[] NAMES = new String[FIRST.length * LAST.length];

  static {
    for (int f = 0; f < FIRST.length; f++) {
      for (int l = 0; l < LAST.length; l++) {
        NAMES[f * LAST.length + l] = FIRST[f] + " " + LAST[l];
      }
    }
  }

  private static String name(Random random) {
    int f = random.nextInt(FIRST.length);
    return NAMES[f * LAST.length + random.nextInt(LAST.length)];
  }

  private static String email(String id, int version) {
    return "c" + id.substring(1) + (version == 0 ? "" : "+" + version) + "@example.com";
  }
}
