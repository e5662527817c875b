package io.tidemark.bench;

import io.tidemark.e2e.Contracts;
import io.tidemark.ingest.config.IngestSettings;
import io.tidemark.ingest.run.IngestJob;
import io.tidemark.model.config.CatalogSpec;
import io.tidemark.model.contract.DatasetContract;
import io.tidemark.model.report.IngestRunReport;
import io.tidemark.model.report.IngestStatus;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerJobStart;
import org.apache.spark.sql.SparkSession;

/**
 * B6: a batch of many tiny files. {@code files} one-row Parquet files (each its own key) land in
 * one partition and a first run ingests them as one batch: its wall time, and the Spark jobs it
 * started (a job or a scan per file is what made such batches crawl).
 */
final class SmallFilesBench {
  static final String DAY = "2024-03-01";

  /**
   * One batch of small files.
   *
   * @param files the one-row files in the batch
   * @param generate the time DuckDB took to write them
   * @param wall the run's wall time
   * @param sparkJobs the Spark jobs the run started
   */
  record Result(int files, Duration generate, Duration wall, int sparkJobs) {}

  private SmallFilesBench() {}

  static Result run(SparkSession spark, CatalogSpec catalog, Path dir, int files) throws Exception {
    Path raw = dir.resolve("raw");
    Path folder = Files.createDirectories(raw.resolve("ingest_date=" + DAY));
    Path state = Files.createDirectories(dir.resolve("state"));
    DatasetContract spec = Contracts.customers(raw.toString(), "curated.small_files_" + files);
    IngestSettings settings = IngestSettings.of(spec, catalog, state.toString());
    long g0 = System.nanoTime();
    try (Connection db = DriverManager.getConnection("jdbc:duckdb:");
        Statement s = db.createStatement()) {
      s.execute("SET TimeZone = 'UTC'");
      for (int i = 0; i < files; i++) {
        s.execute(
            "COPY (SELECT 'S"
                + i
                + "' AS customer_id, 'Name "
                + i
                + "' AS customer_name, 's"
                + i
                + "@example.com' AS email, TIMESTAMPTZ '"
                + DAY
                + " 00:00:00+00' + to_seconds("
                + (i % 86400)
                + ") AS updated_at, 'U' AS op) TO '"
                + folder.resolve(String.format("part-%05d.parquet", i))
                + "' (FORMAT parquet)");
      }
    }
    Duration generate = Duration.ofNanos(System.nanoTime() - g0);
    AtomicInteger jobs = new AtomicInteger();
    SparkListener counter =
        new SparkListener() {
          @Override
          public void onJobStart(SparkListenerJobStart jobStart) {
            jobs.incrementAndGet();
          }
        };
    spark.sparkContext().addSparkListener(counter);
    IngestRunReport report;
    long t0 = System.nanoTime();
    try {
      report = new IngestJob(spark, settings).run().report();
    } finally {
      spark.sparkContext().removeSparkListener(counter);
    }
    Duration wall = Duration.ofNanos(System.nanoTime() - t0);
    if (report.status() != IngestStatus.SUCCEEDED
        || report.counts().filesNew() != files
        || report.counts().recordsInserted() != files) {
      throw new IllegalStateException(
          "B6: the run over "
              + files
              + " one-row files ended "
              + report.status()
              + " with "
              + report.counts()
              + ": "
              + report.error());
    }
    return new Result(files, generate, wall, jobs.get());
  }
}
