package io.tidemark.bench;

import static java.util.stream.Collectors.joining;

import io.tidemark.e2e.MaintenanceSoak;
import io.tidemark.e2e.Pipeline;
import io.tidemark.ingest.config.IngestSettings;
import io.tidemark.ingest.run.IngestJob;
import io.tidemark.ingest.run.IngestOutcome;
import io.tidemark.model.contract.DatasetContract;
import io.tidemark.model.report.IngestMode;
import io.tidemark.model.report.IngestRunReport;
import io.tidemark.model.report.IngestStatus;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.spark.Spark3Util;
import org.apache.spark.sql.SparkSession;

/**
 * {@code bin/bench}: what Tidemark exists for, measured side by side in one invocation, as ratios
 * taken in the same run (absolute times on a shared machine are context only).
 *
 * <ul>
 *   <li>B5, the generator: N keys of raw Parquet written in bulk by DuckDB (one SQL statement per
 *       file of at most a million rows), timed against the full refresh it feeds.
 *   <li>B1, incremental vs full refresh: an initial load of N keys, then two days with 1 % changes
 *       each (updates and deletes spread over the key space, inserts, a few invalid rows); the
 *       second day's incremental run (the first, which also compiles the run's code in the JVM, is
 *       shown beside it) and a full refresh into a second table over the same raw layer, each
 *       timed, with the records it read and the bytes its commits added (Iceberg snapshot
 *       summaries).
 *   <li>B2, discovery as history grows ({@link DiscoveryBench}).
 *   <li>B3, reconciliation: FULL and a one-day WINDOW through the packaged service ({@link
 *       ServiceProcess}) against the naive Spark diff ({@link NaiveDiff}) over the same files; the
 *       median of three runs each.
 *   <li>B4, the service: start to ready (the median of three starts), idle resident set, resident
 *       set after a FULL run.
 *   <li>B6, many tiny files: a first run over 2,000, then 20,000 one-row files ({@link
 *       SmallFilesBench}).
 *   <li>B7, with {@code --soak} only: a year of daily batches on a table another engine maintains
 *       ({@link MaintenanceSoak}).
 *   <li>B9, with {@code --growth} only: the same 10,000 changes a day on N/10 and on N keys ({@link
 *       GrowthBench}).
 * </ul>
 */
public final class BenchMain {
  static final int ROWS_PER_FILE = 1_000_000;

  /** The initial load's day: a month before the change day, as an older history would be. */
  static final String DAY1 = "2024-02-01";

  static final String DAY2 = "2024-03-02";

  /** B1's second change day, the one its figures are from, and B3's WINDOW. */
  static final String DAY3 = "2024-03-03";

  static final int INVALID_ROWS = 5;
  private static final String MARKER = ".tidemark-bench";

  private final PrintStream out = System.out;
  private final List<Figure> figures = new ArrayList<>();

  /** One printed figure: its value, and the target it is held to (null: context only). */
  record Figure(String id, String name, String value, String target, Boolean met) {
    String mark() {
      return met == null ? "" : met ? "PASS" : "MISS";
    }
  }

  public static void main(String[] args) throws Exception {
    Path dir = Path.of("bench-output");
    long keys = 10_000_000;
    boolean smallFilesOnly = false;
    boolean cluster = false;
    boolean growth = false;
    int soakDays = 0;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--small-files" -> smallFilesOnly = true;
        case "--cluster" -> cluster = true;
        case "--growth" -> growth = true;
        case "--soak" -> soakDays = SOAK_DAYS;
        case "--soak-days" -> {
          String v = value(args, ++i, "--soak-days");
          try {
            soakDays = Integer.parseInt(v);
          } catch (NumberFormatException e) {
            usage("--soak-days must be a whole number, not '" + v + "'");
          }
          if (soakDays < 8) {
            usage("--soak-days must be at least 8 (a week of maintenance), not " + soakDays);
          }
        }
        case "--dir" -> dir = Path.of(value(args, ++i, "--dir"));
        case "--keys" -> {
          String v = value(args, ++i, "--keys");
          try {
            keys = Long.parseLong(v.replace("_", ""));
          } catch (NumberFormatException e) {
            usage("--keys must be a whole number, not '" + v + "'");
          }
          if (keys < 1000) {
            usage("--keys must be at least 1000, not " + keys);
          }
        }
        case "--help", "-h" -> {
          System.out.println(
              """
              Usage: bin/bench [--keys N] [--dir DIR] [--small-files] [--soak] [--cluster] [--growth]

              Measures Tidemark on this machine and prints each figure with its target:
                B5  generating N keys of raw Parquet vs the full refresh that reads them
                B1  an incremental run over a day with 1 % changes (the second such day: the
                    first compiles the run's code in the JVM, as the initial load did the full
                    refresh's) vs a full refresh over the same raw layer: wall time, records
                    read, bytes written
                B2  an incremental run's listing calls and wall time over 30 and 365 daily
                    partitions of history
                B3  the reconciler service's FULL and one-day WINDOW reconciliations of B1's
                    table vs a naive diff in Spark, and the service's peak resident set
                B4  the service's start to ready and its idle resident set
                B6  a first run over a batch of 2,000, then 20,000 one-row files: wall time
                    and the Spark jobs it started
                B7  (--soak only) a year of daily 1 % batches on a 10,000-key table that
                    another Spark session compacts every 7 days and expires at 5, as AWS
                    Glue's optimizers would: failures, FULL reconciliations, and by month the
                    table's delete files, snapshots and read time
                B8  (--cluster only) the packaged job jar through spark-submit on a Spark
                    standalone cluster on loopback (a master and two workers, each executor
                    a JVM of its own with a 1 GB heap, the driver 1 GB) and in local[2]:
                    an initial load of N keys, a 1 % day and a 25 % day, whose batch is
                    above the broadcast cap from 8M keys on; same counts, same table
                B9  (--growth only) the same 10,000 changes a day (6,000 updates, 2,000
                    deletes, 2,000 new keys) on a table of N/10 keys and on one of N:
                    the incremental runs' wall time (three days, the first not in the mean),
                    a one-day WINDOW's wall time and the bytes it read, at 10x the table

              B3 and B4 run the packaged service (reconciler/target/quarkus-app) in a process
              of its own on a free loopback port, after the Spark session has stopped; the
              service's start, FULL and WINDOW are each measured three times and the median
              is the figure (every run is printed beside it).

                --keys N   keys in the initial load (default: 10000000)
                --dir DIR  working folder (default: bench-output; emptied at start)
                --small-files  B6 alone (no N-key layer, no service)
                --soak     B7 alone, 365 days (about half an hour); --soak-days N for fewer
                --cluster  B8 alone, at --keys N (about 15 minutes at 10M keys)
                --growth   B9 alone, at N/10 and N keys (about 8 minutes at 10M keys)

              The figures are also written to DIR/bench.md.
              """);
          return;
        }
        default -> usage("Unknown option " + args[i] + " (try --help)");
      }
    }
    System.exit(
        growth
            ? new BenchMain().runGrowth(dir.toAbsolutePath(), keys)
            : cluster
                ? new BenchMain().runCluster(dir.toAbsolutePath(), keys)
                : soakDays > 0
                    ? new BenchMain().runSoak(dir.toAbsolutePath(), soakDays)
                    : smallFilesOnly
                        ? new BenchMain().runSmallFiles(dir.toAbsolutePath())
                        : new BenchMain().run(dir.toAbsolutePath(), keys));
  }

  private static String value(String[] args, int i, String option) {
    if (i >= args.length) {
      usage(option + " needs a value");
    }
    return args[i];
  }

  private static void usage(String problem) {
    System.err.println("bin/bench: " + problem);
    System.exit(2);
  }

  int run(Path dir, long keys) throws Exception {
    if (!claim(dir)) {
      return 2;
    }
    out.printf(
        "== Tidemark benchmarks: %,d keys, %d cores, %s, Java %s%n",
        keys,
        Runtime.getRuntime().availableProcessors(),
        memory(),
        System.getProperty("java.version"));
    SparkSession spark = Pipeline.localSpark(dir);
    spark.sparkContext().setLogLevel("ERROR");
    Path pipelineRoot;
    try (Pipeline pipeline = new Pipeline(dir, spark)) {
      pipelineRoot = pipeline.rawRoot().getParent();
      Path raw = pipeline.rawRoot().resolve("customers");
      RawData data = new RawData(raw);

      out.println("B5 generating the initial load...");
      long t0 = System.nanoTime();
      data.initialLoad(keys);
      Duration generated = Duration.ofNanos(System.nanoTime() - t0);

      out.println("B1 initial load...");
      Run initial = timed(spark, pipeline.ingestSettings());
      require(initial, IngestStatus.SUCCEEDED);

      // Two days of 1 % changes, the second the figure: the full refresh below runs the code
      // the initial load already ran in this JVM, so the incremental run it is held against runs
      // its own code a second time too (its first run in a JVM also compiles it).
      out.println("B1 a first day with 1 % changes (the incremental run's first in this JVM)...");
      RawData.Changes firstDay = data.changeDay(keys);
      Run firstIncremental = timed(spark, pipeline.ingestSettings());
      require(firstIncremental, IngestStatus.SUCCEEDED);

      out.println("B1 a second day with 1 % changes...");
      RawData.Changes changes = data.changeDay(keys, keys + firstDay.inserts(), 8, 2, DAY3);
      Run incremental = timed(spark, pipeline.ingestSettings());
      require(incremental, IngestStatus.SUCCEEDED);

      out.println("B1 full refresh over the same raw layer...");
      Run full = timed(spark, fullRefresh(pipeline, dir));
      require(full, IngestStatus.SUCCEEDED);

      record(generated, initial, firstIncremental, incremental, full, changes);

      List<DiscoveryBench.Result> discovery = new ArrayList<>();
      for (int days : List.of(30, 365)) {
        out.println("B2 discovery over " + days + " daily partitions of history...");
        discovery.add(
            DiscoveryBench.run(spark, pipeline.catalog(), dir.resolve("b2-" + days), days));
      }
      recordDiscovery(discovery);

      smallFiles(spark, pipeline.catalog(), dir);

      out.println("B3 the naive Spark diff...");
      naive = NaiveDiff.run(spark, raw, pipeline.sparkTable());
    }
    spark.stop();
    serviceBenchmarks(pipelineRoot, dir);
    print(dir, keys);
    return 0;
  }

  /**
   * Empties {@code dir} for a run, or refuses (false) when it holds something bin/bench did not
   * make.
   */
  private static boolean claim(Path dir) throws IOException {
    if (Files.exists(dir) && !Files.exists(dir.resolve(MARKER)) && !isEmpty(dir)) {
      System.err.println(
          "Cannot use " + dir + ": it is not empty and was not made by bin/bench. Pass --dir.");
      return false;
    }
    deleteTree(dir);
    Files.createDirectories(dir);
    Files.writeString(dir.resolve(MARKER), "Made by bin/bench; emptied on its next run.\n");
    return true;
  }

  private NaiveDiff.Result naive;

  /** B6's batches: this many one-row files each. */
  static final List<Integer> SMALL_FILES = List.of(2_000, 20_000);

  /** B6: a first run over 2,000, then 20,000 one-row files. */
  private void smallFiles(
      SparkSession spark, io.tidemark.model.config.CatalogSpec catalog, Path dir) throws Exception {
    for (int n : SMALL_FILES) {
      out.printf(Locale.ROOT, "B6 a batch of %,d one-row files...%n", n);
      SmallFilesBench.Result r = SmallFilesBench.run(spark, catalog, dir.resolve("b6-" + n), n);
      out.printf(
          Locale.ROOT,
          "B6 %,d one-row files: %s, %,d Spark jobs (generated in %s)%n",
          n,
          secs(r.wall()),
          r.sparkJobs(),
          secs(r.generate()));
      figures.add(
          new Figure(
              "B6",
              String.format(Locale.ROOT, "ingest %,d one-row files, one batch", r.files()),
              String.format(Locale.ROOT, "%s (%,d Spark jobs)", secs(r.wall()), r.sparkJobs()),
              "context",
              null));
      figures.add(
          new Figure(
              "B6",
              String.format(Locale.ROOT, "generate %,d one-row files (DuckDB)", r.files()),
              secs(r.generate()),
              "context",
              null));
    }
  }

  /** {@code --small-files}: B6 alone, without the N-key layer, B1-B5. */
  static final int SOAK_DAYS = 365;

  /** {@code --growth}: B9 alone ({@link GrowthBench}), at {@code keys / 10} and {@code keys}. */
  int runGrowth(Path dir, long keys) throws Exception {
    if (!claim(dir)) {
      return 2;
    }
    out.printf(
        "== Tidemark benchmarks: B9 only, %,d changes a day on %,d and %,d keys, %d cores, %s, Java"
            + " %s%n",
        GrowthBench.CHANGES,
        keys / 10,
        keys,
        Runtime.getRuntime().availableProcessors(),
        memory(),
        System.getProperty("java.version"));
    GrowthBench.Size small = GrowthBench.measure(dir.resolve("small"), keys / 10, out::println);
    GrowthBench.Size large = GrowthBench.measure(dir.resolve("large"), keys, out::println);
    for (GrowthBench.Size s : List.of(small, large)) {
      figures.add(
          new Figure(
              "B9",
              String.format(Locale.ROOT, "incremental wall, %,d keys", s.keys()),
              "("
                  + secs(s.first())
                  + " first) "
                  + s.ingests().stream().map(BenchMain::secs).collect(Collectors.joining(", ")),
              "context",
              null));
    }
    double ingest = large.ingestSeconds() / small.ingestSeconds();
    figures.add(
        new Figure(
            "B9",
            "incremental wall at 10x the table (mean of the days after the first)",
            String.format(Locale.ROOT, "%.2fx", ingest),
            "<= 1.3x",
            ingest <= 1.3));
    for (GrowthBench.Size s : List.of(small, large)) {
      figures.add(
          new Figure(
              "B9",
              String.format(Locale.ROOT, "one-day WINDOW wall, %,d keys", s.keys()),
              medianOf(s.windows()),
              "context",
              null));
    }
    double window = seconds(large.windowMedian()) / seconds(small.windowMedian());
    figures.add(
        new Figure(
            "B9",
            "one-day WINDOW wall at 10x the table (median)",
            String.format(Locale.ROOT, "%.2fx", window),
            "<= 1.3x",
            window <= 1.3));
    double bytes = (double) large.windowBytes() / small.windowBytes();
    figures.add(
        new Figure(
            "B9",
            "one-day WINDOW bytes read at 10x the table",
            String.format(
                Locale.ROOT,
                "%s / %s = %.2fx",
                mb(large.windowBytes()),
                mb(small.windowBytes()),
                bytes),
            "<= 1.3x",
            bytes <= 1.3));
    figures.add(
        new Figure(
            "B9",
            "changes on the last day",
            String.format(
                Locale.ROOT,
                "%,d updates, %,d inserts, %,d deletes, %d invalid (%,d keys)",
                large.changes().updates(),
                large.changes().inserts(),
                large.changes().deletes(),
                large.changes().invalid(),
                large.keys()),
            "context",
            null));
    print(dir, keys);
    return 0;
  }

  /** {@code --cluster}: B8 alone ({@link ClusterBench}). */
  int runCluster(Path dir, long keys) throws Exception {
    if (!claim(dir)) {
      return 2;
    }
    Path jobJar;
    try (Stream<Path> s = Files.list(Path.of("ingest-job", "target"))) {
      jobJar =
          s.filter(p -> p.getFileName().toString().matches("tidemark-ingest-job-.*-glue\\.jar"))
              .findFirst()
              .orElseThrow(
                  () ->
                      new IllegalStateException(
                          "Cannot find the job jar (ingest-job/target/*-glue.jar): build it with"
                              + " mvn -pl ingest-job -am package -DskipTests"));
    }
    List<String> opens =
        java.lang.management.ManagementFactory.getRuntimeMXBean().getInputArguments().stream()
            .filter(a -> a.startsWith("--add-opens") || a.startsWith("-Djdk.reflect."))
            .toList();
    out.printf(
        "== Tidemark benchmarks: B8 only, %,d keys, %d cores, Java %s, job jar %s%n",
        keys,
        Runtime.getRuntime().availableProcessors(),
        System.getProperty("java.version"),
        jobJar.getFileName());
    long t0 = System.nanoTime();
    ClusterBench.Result r = new ClusterBench(dir, keys, jobJar, opens, out::println).run();
    Duration took = Duration.ofNanos(System.nanoTime() - t0);
    r.problems().forEach(p -> out.println("  problem: " + p));
    figures.add(
        new Figure(
            "B8",
            "cluster",
            String.format(
                Locale.ROOT,
                "master + %d workers, %d executor JVMs of %s heap, driver %s",
                ClusterBench.WORKERS,
                r.executors(),
                ClusterBench.EXECUTOR_HEAP,
                ClusterBench.DRIVER_HEAP),
            ">= 2 executor JVMs",
            r.executors() >= 2));
    for (ClusterBench.Pair p : r.runs()) {
      figures.add(
          new Figure(
              "B8",
              p.what() + ": cluster / local[2] wall",
              secs(p.cluster().submitted().wall()) + " / " + secs(p.local().submitted().wall()),
              "context",
              null));
      figures.add(
          new Figure(
              "B8",
              p.what() + ": records read, written",
              p.cluster().report() == null
                  ? "no report"
                  : String.format(
                      Locale.ROOT,
                      "%,d read, %,d inserted, %,d updated, %,d deleted",
                      p.cluster().report().counts().recordsRead(),
                      p.cluster().report().counts().recordsInserted(),
                      p.cluster().report().counts().recordsUpdated(),
                      p.cluster().report().counts().recordsDeleted()),
              "context",
              null));
      figures.add(
          new Figure(
              "B8",
              p.what() + ": cluster driver peak RSS",
              mb(p.cluster().submitted().driverPeakRss()),
              "context (heap " + ClusterBench.DRIVER_HEAP + ")",
              null));
    }
    figures.add(
        new Figure(
            "B8",
            "every run succeeded with the same counts on both",
            r.problems().isEmpty() ? "yes" : r.problems().size() + " problem(s), printed above",
            "yes",
            r.problems().isEmpty()));
    figures.add(
        new Figure(
            "B8",
            "curated table: cluster vs local[2]",
            String.format(
                Locale.ROOT,
                "%,d / %,d rows, digests %s",
                r.clusterRows(),
                r.localRows(),
                r.sameTable() ? "equal" : "differ"),
            "the same",
            r.sameTable()));
    out.println("B8 took " + minutes(took));
    print(dir, keys);
    return r.problems().isEmpty() ? 0 : 1;
  }

  static final int SOAK_KEYS = 10_000;

  /**
   * B7: the maintenance soak ({@link MaintenanceSoak}): every run and reconciliation must succeed,
   * and the table's delete files, snapshots and read time must stay bounded: the largest of the
   * last three months' ends no more than twice the largest of the first three's (compaction every
   * seven days makes them a saw, so a single month's end would say more about where it fell in the
   * cycle than about growth).
   */
  int runSoak(Path dir, int days) throws Exception {
    if (!claim(dir)) {
      return 2;
    }
    out.printf(
        "== Tidemark benchmarks: B7 only, %d days of %,d keys, %d cores, %s, Java %s%n",
        days,
        SOAK_KEYS,
        Runtime.getRuntime().availableProcessors(),
        memory(),
        System.getProperty("java.version"));
    SparkSession spark = Pipeline.localSpark(dir);
    spark.sparkContext().setLogLevel("ERROR");
    MaintenanceSoak.Result soak;
    long t0 = System.nanoTime();
    try (Pipeline pipeline = new Pipeline(dir, spark)) {
      // A ten-day outage of the source in the second half: expiry goes on meanwhile.
      int outage = days / 2;
      soak =
          new MaintenanceSoak(pipeline, spark, SOAK_KEYS, 7, 5, d -> d > outage && d <= outage + 10)
              .run(days, out::println);
    }
    Duration took = Duration.ofNanos(System.nanoTime() - t0);
    spark.stop();
    soak.problems().forEach(p -> out.println("  problem: " + p));
    List<MaintenanceSoak.Month> m = soak.months();
    List<MaintenanceSoak.Month> early = m.subList(0, Math.min(3, m.size()));
    List<MaintenanceSoak.Month> late = m.subList(Math.max(0, m.size() - 3), m.size());
    figures.add(
        new Figure(
            "B7",
            days + " daily runs and " + m.size() + " FULL reconciliations, maintained",
            soak.problems().size()
                + " failed or failing; "
                + soak.runsFromTheTag()
                + " run(s) from the tagged checkpoint ("
                + minutes(took)
                + ")",
            "0",
            soak.problems().isEmpty()));
    bounded("live delete files", early, late, MaintenanceSoak.Month::deleteFiles);
    bounded("snapshots kept", early, late, MaintenanceSoak.Month::snapshots);
    bounded("live data files", early, late, MaintenanceSoak.Month::dataFiles);
    double firstRead =
        early.stream().mapToDouble(MaintenanceSoak.Month::readSeconds).max().orElse(0);
    double lateRead = late.stream().mapToDouble(MaintenanceSoak.Month::readSeconds).max().orElse(0);
    figures.add(
        new Figure(
            "B7",
            "full read of the table, last 3 months (worst)",
            String.format(
                Locale.ROOT, "%.2f s (first 3 months: up to %.2f s)", lateRead, firstRead),
            "<= 2x",
            lateRead <= 2 * firstRead));
    print(dir, SOAK_KEYS);
    return soak.problems().isEmpty() ? 0 : 1;
  }

  private void bounded(
      String name,
      List<MaintenanceSoak.Month> early,
      List<MaintenanceSoak.Month> late,
      java.util.function.ToLongFunction<MaintenanceSoak.Month> figure) {
    long first = early.stream().mapToLong(figure).max().orElse(0);
    long now = late.stream().mapToLong(figure).max().orElse(0);
    figures.add(
        new Figure(
            "B7",
            name + ", last 3 months (worst)",
            now + " (first 3 months: up to " + first + ")",
            "<= 2x",
            now <= Math.max(1, 2 * first)));
  }

  private static String minutes(Duration d) {
    return String.format(Locale.ROOT, "%.1f min", d.toMillis() / 60_000.0);
  }

  int runSmallFiles(Path dir) throws Exception {
    if (!claim(dir)) {
      return 2;
    }
    out.printf(
        "== Tidemark benchmarks: B6 only, %d cores, %s, Java %s%n",
        Runtime.getRuntime().availableProcessors(), memory(), System.getProperty("java.version"));
    SparkSession spark = Pipeline.localSpark(dir);
    spark.sparkContext().setLogLevel("ERROR");
    try (Pipeline pipeline = new Pipeline(dir, spark)) {
      smallFiles(spark, pipeline.catalog(), dir);
    }
    spark.stop();
    print(dir, 0);
    return 0;
  }

  /**
   * B3 and B4 on the packaged service, started over the pipeline folder once Spark has stopped: its
   * start, idle resident set, a FULL reconciliation and a one-day WINDOW, and its resident set
   * after.
   */
  private void serviceBenchmarks(Path pipelineRoot, Path dir) throws Exception {
    out.println("B4 starting the reconciler service (" + RUNS + " starts)...");
    List<Duration> starts = new ArrayList<>();
    for (int i = 1; i < RUNS; i++) {
      try (ServiceProcess s = ServiceProcess.start(pipelineRoot, dir.resolve("service.log"))) {
        starts.add(s.startToReady);
      }
    }
    try (ServiceProcess service = ServiceProcess.start(pipelineRoot, dir.resolve("service.log"))) {
      starts.add(service.startToReady);
      Thread.sleep(2000); // let start-up work settle before the idle reading
      long idle = service.rss();
      // FULL and WINDOW alternate, each run RUNS times: the figures are medians, since one run on
      // this shared machine can be a fifth off either way.
      List<ServiceProcess.Reconciliation> fulls = new ArrayList<>();
      List<ServiceProcess.Reconciliation> windows = new ArrayList<>();
      long afterFull = 0;
      for (int i = 1; i <= RUNS; i++) {
        out.println("B3 FULL reconciliation through the service (" + i + " of " + RUNS + ")...");
        fulls.add(service.reconcile(null, null));
        afterFull = service.rss();
        out.println(
            "B3 one-day WINDOW reconciliation through the service (" + i + " of " + RUNS + ")...");
        windows.add(
            service.reconcile(
                DAY3 + "T00:00:00Z", LocalDate.parse(DAY3).plusDays(1) + "T00:00:00Z"));
      }
      long peakFull = service.peakRss();
      List<ServiceProcess.Reconciliation> all = new ArrayList<>(fulls);
      all.addAll(windows);
      for (var r : all) {
        // The bench's data is dated in the past: freshness fails by design. Anything else failing
        // means the reconciler and the job disagree, and the figures would be meaningless.
        List<String> wrong = r.notPassed(List.of("freshness"));
        if (!wrong.isEmpty()) {
          throw new IllegalStateException(
              "B3: the "
                  + r.report().path("mode").asText()
                  + " reconciliation found differences: "
                  + wrong);
        }
      }
      recordService(
          starts,
          idle,
          fulls.stream().map(ServiceProcess.Reconciliation::wall).toList(),
          windows.stream().map(ServiceProcess.Reconciliation::wall).toList(),
          afterFull,
          peakFull);
    }
  }

  /** How many times B3's reconciliations and B4's start are measured (the median is the figure). */
  static final int RUNS = 3;

  /** The median of an odd number of durations. */
  static Duration median(List<Duration> runs) {
    List<Duration> sorted = runs.stream().sorted().toList();
    return sorted.get(sorted.size() / 2);
  }

  /** The median, then every run in the order measured: {@code 14.7 s (runs 15.1, 14.7, 13.9 s)}. */
  static String medianOf(List<Duration> runs) {
    return secs(median(runs))
        + " (runs "
        + runs.stream()
            .map(d -> String.format(Locale.ROOT, "%.1f", seconds(d)))
            .collect(Collectors.joining(", "))
        + " s)";
  }

  /** A full refresh into a table of its own, with its own state root, over the same raw layer. */
  private static IngestSettings fullRefresh(Pipeline pipeline, Path dir) throws IOException {
    DatasetContract fullSpec =
        pipeline.contract().withCuratedTable(Pipeline.CURATED_TABLE + "_full");
    Path state = Files.createDirectories(dir.resolve("state-full"));
    return IngestSettings.of(fullSpec, pipeline.catalog(), state.toString())
        .withMode(IngestMode.FULL_REFRESH);
  }

  /** An ingest run with its wall time, and the bytes its commits added to its three tables. */
  record Run(IngestRunReport report, Duration wall, long bytesWritten, long peakRssBytes) {}

  static Run timed(SparkSession spark, IngestSettings settings) {
    long started = System.currentTimeMillis();
    long t0 = System.nanoTime();
    IngestOutcome outcome = new IngestJob(spark, settings).run();
    Duration wall = Duration.ofNanos(System.nanoTime() - t0);
    long bytes = 0;
    for (String table :
        List.of(
            settings.curatedSparkName(),
            settings.quarantineSparkName(),
            settings.tombstoneSparkName())) {
      bytes += addedBytesSince(spark, table, started);
    }
    return new Run(outcome.report(), wall, bytes, peakRss());
  }

  private static long addedBytesSince(SparkSession spark, String table, long sinceMillis) {
    Table t;
    try {
      t = Spark3Util.loadIcebergTable(spark, table);
    } catch (Exception e) {
      return 0; // the run made no such table (e.g. nothing quarantined)
    }
    long bytes = 0;
    for (Snapshot s : t.snapshots()) {
      if (s.timestampMillis() >= sinceMillis && s.summary() != null) {
        bytes += Long.parseLong(s.summary().getOrDefault("added-files-size", "0"));
      }
    }
    return bytes;
  }

  static void require(Run run, IngestStatus expected) {
    if (run.report().status() != expected) {
      throw new IllegalStateException(
          "bench run ended " + run.report().status() + ": " + run.report().error());
    }
  }

  private void record(
      Duration generated,
      Run initial,
      Run firstIncremental,
      Run incremental,
      Run full,
      RawData.Changes changes) {
    double wallRatio = seconds(incremental.wall()) / seconds(full.wall());
    double readRatio =
        (double) incremental.report().counts().recordsRead() / full.report().counts().recordsRead();
    double bytesRatio = (double) incremental.bytesWritten() / changes.rawBytes();
    double genRatio = seconds(generated) / seconds(full.wall());
    figures.add(new Figure("B5", "generate initial load", secs(generated), "context", null));
    figures.add(
        new Figure(
            "B5", "generation / full refresh wall", pct(genRatio), "<= 50 %", genRatio <= 0.5));
    figures.add(new Figure("B1", "initial load wall", secs(initial.wall()), "context", null));
    figures.add(
        new Figure(
            "B1",
            "first incremental wall (its first run in the JVM)",
            secs(firstIncremental.wall()),
            "context",
            null));
    figures.add(new Figure("B1", "incremental wall", secs(incremental.wall()), "context", null));
    figures.add(new Figure("B1", "full refresh wall", secs(full.wall()), "context", null));
    figures.add(
        new Figure(
            "B1", "incremental / full refresh wall", pct(wallRatio), "<= 10 %", wallRatio <= 0.10));
    figures.add(
        new Figure(
            "B1",
            "records read: incremental / full",
            String.format(
                Locale.ROOT,
                "%,d / %,d = %s",
                incremental.report().counts().recordsRead(),
                full.report().counts().recordsRead(),
                pct(readRatio)),
            "<= 1.5 %",
            readRatio <= 0.015));
    figures.add(
        new Figure(
            "B1",
            "bytes written: incremental / changed rows' raw bytes",
            String.format(
                Locale.ROOT,
                "%s / %s = %.1fx",
                mb(incremental.bytesWritten()),
                mb(changes.rawBytes()),
                bytesRatio),
            "<= 3x",
            bytesRatio <= 3));
    figures.add(
        new Figure("B1", "full refresh bytes written", mb(full.bytesWritten()), "context", null));
    figures.add(
        new Figure(
            "B1",
            "changes in the day",
            String.format(
                Locale.ROOT,
                "%,d updates, %,d inserts, %,d deletes, %d invalid",
                changes.updates(),
                changes.inserts(),
                changes.deletes(),
                changes.invalid()),
            "context",
            null));
    figures.add(
        new Figure(
            "--",
            "peak RSS of the bench process",
            mb(Math.max(full.peakRssBytes(), incremental.peakRssBytes())),
            "context (one JVM for all runs)",
            null));
  }

  private void recordDiscovery(List<DiscoveryBench.Result> results) {
    DiscoveryBench.Result small = results.get(0);
    DiscoveryBench.Result large = results.get(results.size() - 1);
    // The root, the checkpoint's partition and the lookback's days before it, the new day's.
    long allowed = 1 + (large.lookbackDays() + 1) + 1;
    for (DiscoveryBench.Result r : results) {
      figures.add(
          new Figure(
              "B2",
              "list calls, incremental run, " + r.days() + " days of history",
              Integer.toString(r.listCalls()),
              "<= " + allowed,
              r.listCalls() >= 0 && r.listCalls() <= allowed));
    }
    for (DiscoveryBench.Result r : results) {
      figures.add(
          new Figure(
              "B2",
              "incremental run wall, " + r.days() + " days of history",
              secs(r.wall()),
              "context",
              null));
    }
    for (DiscoveryBench.Result r : results) {
      figures.add(
          new Figure(
              "B2",
              "discovery alone, " + r.days() + " days of history (median)",
              String.format(Locale.ROOT, "%.1f ms", r.discovery().toNanos() / 1e6),
              "context",
              null));
    }
    double growth = (double) large.discovery().toNanos() / small.discovery().toNanos();
    figures.add(
        new Figure(
            "B2",
            "discovery " + large.days() + " / " + small.days() + " days of history",
            String.format(Locale.ROOT, "%.2fx", growth),
            "<= 1.25x",
            growth <= 1.25));
  }

  private void recordService(
      List<Duration> starts,
      long idleRss,
      List<Duration> fulls,
      List<Duration> windows,
      long afterFullRss,
      long peakFullRss) {
    double fullSeconds = seconds(median(fulls));
    double naiveRatio = seconds(naive.wall()) / fullSeconds;
    figures.add(
        new Figure(
            "B3", "FULL reconciliation wall", medianOf(fulls), "<= 15 s", fullSeconds <= 15));
    figures.add(
        new Figure(
            "B3",
            "one-day WINDOW reconciliation wall",
            medianOf(windows),
            "<= 2 s",
            seconds(median(windows)) <= 2));
    figures.add(
        new Figure(
            "B3",
            "naive Spark diff wall",
            String.format(
                Locale.ROOT,
                "%s (%,d expected, %,d curated, %,d differences)",
                secs(naive.wall()),
                naive.expected(),
                naive.curated(),
                naive.differences()),
            "context",
            null));
    figures.add(
        new Figure(
            "B3",
            "naive Spark diff / FULL wall (median)",
            String.format(Locale.ROOT, "%.1fx", naiveRatio),
            ">= 5x",
            naiveRatio >= 5));
    figures.add(
        new Figure(
            "B3",
            "service peak RSS through FULL and WINDOW",
            mb(peakFullRss),
            "<= 2 GB",
            peakFullRss > 0 && peakFullRss <= 2_000_000_000L));
    figures.add(
        new Figure(
            "B4",
            "service start to ready",
            medianOf(starts),
            "<= 2 s",
            seconds(median(starts)) <= 2));
    figures.add(
        new Figure(
            "B4", "service idle RSS", mb(idleRss), "<= 300 MB", idleRss > 0 && idleRss <= 300e6));
    figures.add(
        new Figure(
            "B4",
            "service RSS after the last FULL reconciliation",
            mb(afterFullRss),
            "context",
            null));
  }

  private void print(Path dir, long keys) throws IOException {
    StringBuilder md = new StringBuilder();
    md.append(
        String.format(
            Locale.ROOT,
            "%,d keys; %d cores, %s, Java %s%n%n",
            keys,
            Runtime.getRuntime().availableProcessors(),
            memory(),
            System.getProperty("java.version")));
    md.append("| | figure | value | target | |\n| --- | --- | --- | --- | --- |\n");
    out.println();
    for (Figure f : figures) {
      out.printf(
          Locale.ROOT,
          "%-3s %-52s %-34s %-12s %s%n",
          f.id(),
          f.name(),
          f.value(),
          f.target(),
          f.mark());
      md.append(
          String.format(
              "| %s | %s | %s | %s | %s |%n", f.id(), f.name(), f.value(), f.target(), f.mark()));
    }
    Files.writeString(dir.resolve("bench.md"), md.toString());
    out.println();
    out.println("Written to " + dir.resolve("bench.md"));
  }

  static double seconds(Duration d) {
    return d.toNanos() / 1e9;
  }

  static String secs(Duration d) {
    return String.format(Locale.ROOT, "%.1f s", seconds(d));
  }

  static String pct(double ratio) {
    return String.format(Locale.ROOT, "%.1f %%", ratio * 100);
  }

  static String mb(long bytes) {
    return String.format(Locale.ROOT, "%.1f MB", bytes / 1e6);
  }

  private static String memory() {
    return String.format(Locale.ROOT, "max heap %.1f GB", Runtime.getRuntime().maxMemory() / 1e9);
  }

  /** The process's peak resident set so far (Linux), or -1 where /proc is not there. */
  static long peakRss() {
    return procStatus(ProcessHandle.current().pid(), "VmHWM:");
  }

  /** A size field of a process's {@code /proc/<pid>/status} in bytes, or -1 where there is none. */
  static long procStatus(long pid, String field) {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
        if (line.startsWith(field)) {
          return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
        }
      }
    } catch (IOException | RuntimeException e) {
      return -1;
    }
    return -1;
  }

  private static boolean isEmpty(Path dir) throws IOException {
    try (Stream<Path> s = Files.list(dir)) {
      return s.findAny().isEmpty();
    }
  }

  private static void deleteTree(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> s = Files.walk(dir)) {
      for (Path p : s.sorted(java.util.Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
  }

  /** Raw Parquet written in bulk by DuckDB, straight from SQL over a range of key numbers. */
  static final class RawData {
    record Changes(long updates, long inserts, long deletes, long invalid, long rawBytes) {}

    private final Path datasetRoot;

    /**
     * What the change days so far deleted, as predicates over the key number {@code i}: a later day
     * neither updates nor deletes those keys again, so its figures count only real updates and
     * deletes (an update of a deleted key would be a re-insert, a delete of one a no-op).
     */
    private final List<String> deletedSoFar = new ArrayList<>();

    RawData(Path datasetRoot) {
      this.datasetRoot = datasetRoot;
    }

    /** Day one: keys 0..n-1, one version each, in files of at most a million rows. */
    void initialLoad(long n) throws IOException, SQLException {
      Path day = Files.createDirectories(datasetRoot.resolve("ingest_date=" + DAY1));
      try (Connection db = DriverManager.getConnection("jdbc:duckdb:");
          Statement s = db.createStatement()) {
        s.execute("SET TimeZone = 'UTC'");
        for (long from = 0, part = 0; from < n; from += ROWS_PER_FILE, part++) {
          long to = Math.min(n, from + ROWS_PER_FILE);
          copy(
              s,
              "SELECT "
                  + row(
                      "i", "TIMESTAMPTZ '" + DAY1 + " 00:00:00+00' + to_seconds(i % 86400)", "'U'")
                  + " FROM range("
                  + from
                  + ", "
                  + to
                  + ") t(i)",
              day.resolve(String.format("part-%05d.parquet", part)));
        }
      }
    }

    /**
     * Day two, 1 % of the keys: 0.6 % updated and 0.2 % deleted (picked by a hash, so spread over
     * the whole key space), 0.2 % new keys, and a few rows without a key.
     */
    Changes changeDay(long n) throws IOException, SQLException {
      return changeDay(n, n, 8, DAY2);
    }

    /**
     * A day changing {@code perMille} of the keys 0..n-1: three quarters of them updated, a quarter
     * deleted (picked by a hash, so spread over the whole key space), a quarter as many new keys
     * from {@code firstNewKey} on, and a few rows without a key; in partition {@code date}.
     */
    Changes changeDay(long n, long firstNewKey, int perMille, String date)
        throws IOException, SQLException {
      return changeDay(n, firstNewKey, perMille, 0, date);
    }

    /**
     * The same, the keys picked by a hash salted with {@code salt} (0: unsalted), so that two days
     * pick different keys.
     */
    Changes changeDay(long n, long firstNewKey, int perMille, int salt, String date)
        throws IOException, SQLException {
      return changeDay(
          n,
          salt == 0 ? "hash(i) % 1000" : "hash(i, " + salt + ") % 1000",
          perMille,
          perMille * 3 / 4,
          firstNewKey,
          Math.max(1, n * perMille / 4000),
          date);
    }

    /**
     * A day of about {@code changed} changes whatever the table's size, as {@link #changeDay(long,
     * long, int, String)} splits them (0.6 updates, 0.2 deletes, 0.2 new keys), the existing keys
     * picked by a hash salted with {@code salt}, so that two days pick different keys.
     */
    Changes fixedChangeDay(long n, long firstNewKey, long changed, int salt, String date)
        throws IOException, SQLException {
      return changeDay(
          n,
          "hash(i, " + salt + ") % " + n,
          changed * 4 / 5,
          changed * 3 / 5,
          firstNewKey,
          changed / 5,
          date);
    }

    /**
     * The keys 0..n-1 whose {@code pick} is below {@code pickedBelow} change (updated below {@code
     * updatedBelow}, deleted above) unless an earlier day deleted them, {@code inserts} new keys
     * from {@code firstNewKey} on arrive, and a few rows without a key; in partition {@code date}.
     */
    private Changes changeDay(
        long n,
        String pick,
        long pickedBelow,
        long updatedBelow,
        long firstNewKey,
        long inserts,
        String date)
        throws IOException, SQLException {
      Path day = Files.createDirectories(datasetRoot.resolve("ingest_date=" + date));
      Path file = day.resolve("part-00000.parquet");
      String at = "TIMESTAMPTZ '" + date + " 00:00:00+00' + to_seconds(i % 86400)";
      try (Connection db = DriverManager.getConnection("jdbc:duckdb:");
          Statement s = db.createStatement()) {
        s.execute("SET TimeZone = 'UTC'");
        String picked =
            "FROM range(0, "
                + n
                + ") t(i) WHERE "
                + pick
                + " < "
                + pickedBelow
                + deletedSoFar.stream().map(d -> " AND NOT (" + d + ")").collect(joining());
        copy(
            s,
            "SELECT "
                + row(
                    "i", at, "CASE WHEN " + pick + " < " + updatedBelow + " THEN 'U' ELSE 'D' END")
                + " "
                + picked
                + " UNION ALL SELECT "
                + row("i", at, "'U'")
                + " FROM range("
                + firstNewKey
                + ", "
                + (firstNewKey + inserts)
                + ") t(i)"
                + " UNION ALL SELECT NULL, 'No Key', 'nokey@example.com', "
                + at
                + ", 'U' FROM range(0, "
                + INVALID_ROWS
                + ") t(i)",
            file);
        long updates;
        long deletes;
        try (var rs =
            s.executeQuery(
                "SELECT count(*) FILTER (WHERE "
                    + pick
                    + " < "
                    + updatedBelow
                    + "), count(*) FILTER (WHERE "
                    + pick
                    + " >= "
                    + updatedBelow
                    + ") "
                    + picked)) {
          rs.next();
          updates = rs.getLong(1);
          deletes = rs.getLong(2);
        }
        deletedSoFar.add(pick + " >= " + updatedBelow + " AND " + pick + " < " + pickedBelow);
        return new Changes(updates, inserts, deletes, INVALID_ROWS, Files.size(file));
      }
    }

    private static String row(String i, String at, String op) {
      return "'C' || lpad(CAST("
          + i
          + " AS VARCHAR), 10, '0') AS customer_id, 'Name ' || "
          + i
          + " || ' v' || CAST(epoch("
          + at
          + ") AS BIGINT) AS customer_name, 'c' || "
          + i
          + " || '@example.com' AS email, "
          + at
          + " AS updated_at, "
          + op
          + " AS op";
    }

    /**
     * Writes a file and dates it as delivered on its partition's day: what a one-day WINDOW reads
     * depends on when files arrived, and history generated today would otherwise all look late.
     */
    private static void copy(Statement s, String select, Path target) throws SQLException {
      Path tmp = target.resolveSibling("." + target.getFileName() + ".tmp");
      s.execute("COPY (" + select + ") TO '" + tmp + "' (FORMAT parquet)");
      try {
        String day = target.getParent().getFileName().toString().replace("ingest_date=", "");
        Files.setLastModifiedTime(
            tmp,
            java.nio.file.attribute.FileTime.from(java.time.Instant.parse(day + "T06:00:00Z")));
        Files.move(tmp, target, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
      } catch (IOException e) {
        throw new SQLException("Cannot move " + tmp + " to " + target + ": " + e, e);
      }
    }
  }
}
