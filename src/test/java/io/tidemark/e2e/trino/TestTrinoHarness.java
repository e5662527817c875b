package io.tidemark.e2e.trino;

import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.e2e.Pipeline;
import io.tidemark.ingest.kernel.FailurePoints;
import io.tidemark.model.report.IngestStatus;
import io.tidemark.model.testing.raw.CustomerScenario;
import io.tidemark.model.testing.raw.Delivery;
import io.tidemark.reconcile.engine.athena.RawTable;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Collectors;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Tags;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * Proves the Trino harness: a real Trino 483 (its own Java 25 process) reads the raw Parquet files
 * a pipeline landed through a partition-projected Hive table, and the curated Iceberg table the
 * Spark job commits to, seeing every commit, position deletes included.
 */
@Tags({@Tag("spark"), @Tag("trino")})
class TestTrinoHarness {
  private static final int CUSTOMERS = 300;
  private static final int DAYS_BEFORE_TRINO = 3;

  @TempDir(cleanup = CleanupMode.ON_SUCCESS)
  Path work;

  @Test
  void trinoReadsTheRawFilesAndEveryCommitOfTheCuratedTable() throws Exception {
    CompletableFuture<TrinoServer> starting = CompletableFuture.supplyAsync(TrinoServer::shared);
    Path root = work.resolve("pipeline");
    SparkSession spark = Pipeline.localSpark(root);
    List<Delivery> deliveries =
        new CustomerScenario(CUSTOMERS, 7L, LocalDate.now(ZoneOffset.UTC)).deliveries();
    try (Pipeline p = new Pipeline(root, spark);
        TrinoServer trino = starting.join()) {
      System.out.println("Trino answered " + trino.startupTime().toMillis() + " ms after start");
      for (Delivery d : deliveries.subList(0, DAYS_BEFORE_TRINO)) {
        ingest(p, d);
      }
      Path dataset = p.rawRoot().resolve("customers");
      trino.createRawCatalog("raw", work.resolve("trino-metastore"));
      trino.execute("CREATE SCHEMA raw.landing");
      trino.execute(
          RawTable.trinoDdl(
              io.tidemark.model.contract.DatasetSpecs.of(p.contract()),
              p.curatedTypes(),
              "raw.landing.customers",
              TrinoServer.localUri(dataset),
              p.oldestPartition().minusDays(30)));
      trino.createIcebergCatalog("lake", p.warehouse());

      try (Connection c = trino.connect()) {
        // (a) raw: every landed row, once, by partition; "$path" names the landed files.
        long landedRows = p.landed().stream().mapToLong(f -> f.rows().size()).sum();
        assertThat(count(c, "SELECT count(*) FROM raw.landing.customers")).isEqualTo(landedRows);
        assertThat(strings(c, "SELECT DISTINCT \"$path\" FROM raw.landing.customers"))
            .isEqualTo(
                p.landed().stream()
                    .map(f -> TrinoServer.localUri(dataset.resolve(f.relativePath())))
                    .collect(Collectors.toCollection(TreeSet::new)));
        assertThat(
                count(
                    c,
                    "SELECT count(*) FROM raw.landing.customers"
                        + " WHERE \"$file_modified_time\" IS NULL"))
            .isZero();
        assertThat(
                rows(
                    c,
                    "SELECT ingest_date, CAST(count(*) AS varchar),"
                        + " CAST(CAST(to_unixtime(max(updated_at)) * 1000 AS bigint) AS varchar)"
                        + " FROM raw.landing.customers GROUP BY 1"))
            .isEqualTo(duckdbByPartition(dataset));
        // Projection prunes: one day reads one partition's files only.
        LocalDate day = p.landed().get(0).partition();
        assertThat(
                count(
                    c,
                    "SELECT count(*) FROM raw.landing.customers WHERE ingest_date = '" + day + "'"))
            .isEqualTo(
                p.landed().stream()
                    .filter(f -> f.partition().equals(day))
                    .mapToLong(f -> f.rows().size())
                    .sum());

        // (b) curated: Trino sees what Spark sees, after each kind of commit.
        assertSameCurated(c, p, spark, "after the first ingest runs");

        List<String> keys = new ArrayList<>(p.curated().keySet());
        spark.sql(
            "DELETE FROM "
                + p.sparkTable()
                + " WHERE customer_id IN ('"
                + keys.get(3)
                + "', '"
                + keys.get(30)
                + "', '"
                + keys.get(100)
                + "')");
        spark.sql(
            "UPDATE "
                + p.sparkTable()
                + " SET email = 'changed@example.com' WHERE customer_id = '"
                + keys.get(50)
                + "'");
        assertThat(
                count(c, "SELECT count(*) FROM lake.curated.\"customers$files\" WHERE content = 1"))
            .as("position-delete files written by Spark's DELETE and UPDATE")
            .isPositive();
        assertSameCurated(c, p, spark, "after a DELETE and an UPDATE");
        assertThat(
                strings(
                    c,
                    "SELECT email FROM lake.curated.customers WHERE customer_id = '"
                        + keys.get(50)
                        + "'"))
            .containsExactly("changed@example.com");

        ingest(p, deliveries.get(DAYS_BEFORE_TRINO));
        assertSameCurated(c, p, spark, "after a further ingest run");
        assertThat(count(c, "SELECT count(*) FROM raw.landing.customers"))
            .isEqualTo(p.landed().stream().mapToLong(f -> f.rows().size()).sum());
      }
    } finally {
      spark.stop();
    }
  }

  private static void ingest(Pipeline p, Delivery d) {
    p.land(d);
    assertThat(p.ingest(FailurePoints.none()).report().status())
        .as("day %d", d.day())
        .isEqualTo(IngestStatus.SUCCEEDED);
  }

  private static void assertSameCurated(Connection c, Pipeline p, SparkSession spark, String when)
      throws SQLException {
    assertThat(count(c, "SELECT count(*) FROM lake.curated.customers"))
        .as("rows %s", when)
        .isEqualTo(p.curatedCount());
    TreeMap<String, String> sparkRows = new TreeMap<>();
    for (Row r :
        spark
            .sql(
                "SELECT customer_id, concat_ws('|', customer_name, email,"
                    + " CAST(unix_micros(updated_at) AS STRING)) FROM "
                    + p.sparkTable())
            .collectAsList()) {
      sparkRows.put(r.getString(0), r.getString(1));
    }
    TreeMap<String, String> trinoRows = new TreeMap<>();
    for (List<String> r :
        rows(
            c,
            "SELECT customer_id, concat_ws('|', customer_name, email,"
                + " CAST(CAST(to_unixtime(updated_at) * 1000000 AS bigint) AS varchar))"
                + " FROM lake.curated.customers")) {
      trinoRows.put(r.get(0), r.get(1));
    }
    assertThat(trinoRows).as("keys and values %s", when).isEqualTo(sparkRows);
  }

  /** The reference for the raw files: DuckDB over the same folder, by partition. */
  private static Set<List<String>> duckdbByPartition(Path dataset) throws SQLException {
    try (Connection duck = DriverManager.getConnection("jdbc:duckdb:");
        Statement s = duck.createStatement()) {
      s.execute("SET TimeZone = 'UTC'");
      Set<List<String>> out = new java.util.HashSet<>();
      try (ResultSet rs =
          s.executeQuery(
              "SELECT CAST(ingest_date AS VARCHAR), CAST(count(*) AS VARCHAR),"
                  // Trino (as Athena for a Hive table) reads microseconds rounded to milliseconds.
                  + " CAST(CAST(round(epoch_us(max(updated_at)) / 1000.0) AS BIGINT) AS VARCHAR)"
                  + " FROM read_parquet('"
                  + dataset
                  + "/*/*.parquet', hive_partitioning = true, hive_types_autocast = false)"
                  + " GROUP BY 1")) {
        while (rs.next()) {
          out.add(List.of(rs.getString(1), rs.getString(2), rs.getString(3)));
        }
      }
      assertThat(out).isNotEmpty();
      assertThat(Files.isDirectory(dataset)).isTrue();
      return out;
    }
  }

  private static long count(Connection c, String sql) throws SQLException {
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  private static TreeSet<String> strings(Connection c, String sql) throws SQLException {
    TreeSet<String> out = new TreeSet<>();
    for (List<String> r : rows(c, sql)) {
      out.add(r.get(0));
    }
    return out;
  }

  private static Set<List<String>> rows(Connection c, String sql) throws SQLException {
    Set<List<String>> out = new java.util.HashSet<>();
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      int n = rs.getMetaData().getColumnCount();
      while (rs.next()) {
        List<String> row = new ArrayList<>();
        for (int i = 1; i <= n; i++) {
          row.add(rs.getString(i));
        }
        out.add(row);
      }
    }
    return out;
  }
}
