package io.tidemark.bench;

import com.fasterxml.jackson.databind.JsonNode;
import io.tidemark.e2e.Pipeline;
import io.tidemark.model.report.IngestStatus;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.apache.spark.sql.SparkSession;

/**
 * B9: whether the daily cost follows the change or the table. The same {@value #CHANGES} changes a
 * day (6,000 updates and 2,000 deletes spread over the key space by a hash, 2,000 new keys, a few
 * rows without a key) land on a table of N keys and on one of 10N; each table's pipeline gets its
 * initial load and then {@value #DAYS} such days, each incremental run timed (the first, which also
 * compiles the run's code in the JVM the sizes share, is shown but not in the mean), then the
 * packaged service reconciles the last day as a WINDOW {@value BenchMain#RUNS} times (the median is
 * the figure) and reports the bytes of the files it read. Each size has a Spark session of its own,
 * stopped before the service starts.
 */
final class GrowthBench {
  static final long CHANGES = 10_000;
  static final int DAYS = 3;
  static final LocalDate FIRST_CHANGE_DAY = LocalDate.parse(BenchMain.DAY2);

  /**
   * One table size's figures.
   *
   * @param keys keys of the initial load
   * @param first the first change day's incremental run's wall time
   * @param ingests the other change days' incremental runs' wall times
   * @param changes the last day's changes
   * @param windows the last day's WINDOW reconciliations' wall times
   * @param windowBytes the bytes of the files the last WINDOW read, as its report gives them
   */
  record Size(
      long keys,
      Duration first,
      List<Duration> ingests,
      BenchMain.RawData.Changes changes,
      List<Duration> windows,
      long windowBytes) {
    /** The mean of the incremental runs. */
    double ingestSeconds() {
      return ingests.stream().mapToDouble(BenchMain::seconds).average().orElseThrow();
    }

    Duration windowMedian() {
      return BenchMain.median(windows);
    }
  }

  private GrowthBench() {}

  /** The pipeline at {@code dir}: an initial load of {@code keys}, its change days, its WINDOWs. */
  static Size measure(Path dir, long keys, Consumer<String> log) throws Exception {
    SparkSession spark = Pipeline.localSpark(dir);
    spark.sparkContext().setLogLevel("ERROR");
    List<Duration> ingests = new ArrayList<>();
    Duration first = null;
    BenchMain.RawData.Changes changes = null;
    Path root;
    try (Pipeline pipeline = new Pipeline(dir, spark)) {
      root = pipeline.root();
      BenchMain.RawData data = new BenchMain.RawData(pipeline.rawRoot().resolve("customers"));
      log.accept(String.format("B9 %,d keys: generating and ingesting the initial load...", keys));
      data.initialLoad(keys);
      BenchMain.require(BenchMain.timed(spark, pipeline.ingestSettings()), IngestStatus.SUCCEEDED);
      long newKeys = keys;
      for (int d = 0; d < DAYS; d++) {
        String day = FIRST_CHANGE_DAY.plusDays(d).toString();
        changes = data.fixedChangeDay(keys, newKeys, CHANGES, d + 1, day);
        newKeys += changes.inserts();
        log.accept(
            String.format(
                "B9 %,d keys: day %s, %,d updates, %,d deletes, %,d inserts...",
                keys, day, changes.updates(), changes.deletes(), changes.inserts()));
        BenchMain.Run run = BenchMain.timed(spark, pipeline.ingestSettings());
        BenchMain.require(run, IngestStatus.SUCCEEDED);
        if (d == 0) {
          first = run.wall();
        } else {
          ingests.add(run.wall());
        }
      }
    } finally {
      spark.stop();
    }

    LocalDate last = FIRST_CHANGE_DAY.plusDays(DAYS - 1);
    List<Duration> windows = new ArrayList<>();
    long bytes = 0;
    try (ServiceProcess service = ServiceProcess.start(root, dir.resolve("service.log"))) {
      for (int i = 1; i <= BenchMain.RUNS; i++) {
        log.accept(
            String.format(
                "B9 %,d keys: WINDOW over %s (%d of %d)...", keys, last, i, BenchMain.RUNS));
        ServiceProcess.Reconciliation r =
            service.reconcile(last + "T00:00:00Z", last.plusDays(1) + "T00:00:00Z");
        // The bench's data is dated in the past: freshness fails by design.
        List<String> wrong = r.notPassed(List.of("freshness"));
        if (!wrong.isEmpty()) {
          throw new IllegalStateException("B9: the WINDOW found differences: " + wrong);
        }
        windows.add(r.wall());
        bytes = bytesRead(r.report());
      }
    }
    return new Size(keys, first, ingests, changes, windows, bytes);
  }

  /** The bytes of the files a reconciliation read, as its report gives them. */
  static long bytesRead(JsonNode report) {
    if (!report.path("bytesScanned").canConvertToLong()) {
      throw new IllegalStateException("B9: the report gives no bytesScanned: " + report);
    }
    return report.path("bytesScanned").asLong();
  }
}
