package io.tidemark.bench;

import io.tidemark.e2e.Contracts;
import io.tidemark.ingest.config.IngestSettings;
import io.tidemark.ingest.discovery.PartitionLister;
import io.tidemark.ingest.run.IngestJob;
import io.tidemark.model.config.CatalogSpec;
import io.tidemark.model.contract.DatasetContract;
import io.tidemark.model.report.IngestRunReport;
import io.tidemark.model.report.IngestStatus;
import java.io.IOException;
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
import org.apache.spark.sql.SparkSession;

/**
 * B2: what discovery costs as history grows. A dataset with {@code days} daily partitions of
 * history (a small file each) is loaded, then one more day lands and an incremental run picks it
 * up: the listing requests it made (its run report's {@code discoveryListCalls}: the root, then
 * each partition it listed) and its wall time; then the discovery step alone, as the run lists (the
 * root, then the partitions from the checkpoint's day minus the lookback on), timed as the median
 * of {@value #LISTINGS} listings, since one takes milliseconds.
 */
final class DiscoveryBench {
  static final LocalDate FIRST_DAY = LocalDate.parse("2023-01-01");
  static final int ROWS_PER_DAY = 1000;
  static final int LISTINGS = 21;

  /**
   * One history size's incremental run.
   *
   * @param days partitions of history before the new day
   * @param listCalls listing requests of the incremental run's discovery
   * @param lookbackDays the job's lookback, in days
   * @param wall the incremental run's wall time
   * @param discovery the median time of the run's listing alone
   */
  record Result(int days, int listCalls, long lookbackDays, Duration wall, Duration discovery) {}

  private DiscoveryBench() {}

  static Result run(SparkSession spark, CatalogSpec catalog, Path dir, int days) throws Exception {
    Path raw = dir.resolve("raw");
    Path state = Files.createDirectories(dir.resolve("state"));
    DatasetContract spec = Contracts.customers(raw.toString(), "curated.history_" + days);
    IngestSettings settings = IngestSettings.of(spec, catalog, state.toString());
    try (Connection db = DriverManager.getConnection("jdbc:duckdb:");
        Statement s = db.createStatement()) {
      s.execute("SET TimeZone = 'UTC'");
      for (int d = 0; d < days; d++) {
        day(s, raw, d);
      }
      require(new IngestJob(spark, settings).run().report(), "the history load");
      day(s, raw, days);
    }
    long t0 = System.nanoTime();
    IngestRunReport report = new IngestJob(spark, settings).run().report();
    Duration wall = Duration.ofNanos(System.nanoTime() - t0);
    require(report, "the incremental run");
    long lookbackDays = Math.max(1, settings.lookback().toDays());
    // The run's checkpoint was the last day of history: it listed from there minus the lookback.
    LocalDate from = FIRST_DAY.plusDays(days - 1 - lookbackDays);
    List<Duration> listings = new ArrayList<>();
    for (int i = 0; i < LISTINGS; i++) {
      PartitionLister lister =
          new PartitionLister(
              spark.sparkContext().hadoopConfiguration(),
              raw.toString(),
              io.tidemark.model.contract.DatasetSpecs.partitionColumn(spec.raw().layout()));
      long l0 = System.nanoTime();
      lister.filesFrom(from);
      listings.add(Duration.ofNanos(System.nanoTime() - l0));
    }
    return new Result(
        days,
        report.discoveryListCalls() == null ? -1 : report.discoveryListCalls(),
        lookbackDays,
        wall,
        BenchMain.median(listings));
  }

  /** Day {@code d}: its own keys, changed that day, in one file of its partition. */
  private static void day(Statement s, Path raw, int d) throws IOException, SQLException {
    LocalDate date = FIRST_DAY.plusDays(d);
    Path folder = Files.createDirectories(raw.resolve("ingest_date=" + date));
    long from = (long) d * ROWS_PER_DAY;
    s.execute(
        "COPY (SELECT 'H' || lpad(CAST(i AS VARCHAR), 9, '0') AS customer_id,"
            + " 'Name ' || i AS customer_name, 'h' || i || '@example.com' AS email,"
            + " TIMESTAMPTZ '"
            + date
            + " 00:00:00+00' + to_seconds(i % 86400) AS updated_at, 'U' AS op FROM range("
            + from
            + ", "
            + (from + ROWS_PER_DAY)
            + ") t(i)) TO '"
            + folder.resolve("part-00000.parquet")
            + "' (FORMAT parquet)");
  }

  private static void require(IngestRunReport report, String what) {
    if (report.status() != IngestStatus.SUCCEEDED) {
      throw new IllegalStateException(
          "B2: " + what + " ended " + report.status() + ": " + report.error());
    }
  }
}
