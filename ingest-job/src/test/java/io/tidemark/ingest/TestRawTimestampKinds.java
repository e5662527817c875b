package io.tidemark.ingest;

import static io.tidemark.ingest.RawFixtures.u;
import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.ingest.config.IngestSettings;
import io.tidemark.ingest.run.IngestJob;
import io.tidemark.model.report.IngestRunReport;
import io.tidemark.model.report.IngestStatus;
import io.tidemark.model.testing.raw.RawColumn;
import io.tidemark.model.testing.raw.RawFileWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Sources write a timestamp change marker three ways in Parquet: Spark, Glue and Hive-compatible
 * writers as INT96, most other writers as a UTC-adjusted INT64, and DMS as an INT64 without zone.
 * The test kit writes the latter two; Spark writes the first here. Whatever the kind, the marker is
 * the same instant in curated, to the microsecond, even when a batch holds all three.
 */
@Tag("spark")
class TestRawTimestampKinds extends SparkTestSupport {
  private static final String AT = "2024-03-01T10:15:30.123456Z";

  @TempDir Path dir;

  @Test
  void int96AdjustedAndNaiveMarkersLandAsTheSameInstant() throws Exception {
    IngestSettings s = settings(dir);
    Path day = Path.of(s.dataset().raw().location()).resolve("ingest_date=2024-03-01");
    // Spark as Glue and Hive-compatible writers leave it: the timestamp column is INT96.
    Path sparkOut = dir.resolve("spark-out");
    String outputType = "spark.sql.parquet.outputTimestampType";
    String was = spark.conf().get(outputType);
    spark.conf().set(outputType, "INT96");
    try {
      spark
          .sql(
              "SELECT 'S1' AS customer_id, 'Spark' AS customer_name, 's1@example.com' AS email,"
                  + " TIMESTAMP '2024-03-01 10:15:30.123456' AS updated_at, 'U' AS op")
          .coalesce(1)
          .write()
          .parquet(sparkOut.toString());
    } finally {
      spark.conf().set(outputType, was);
    }
    Path int96 = day.resolve("a-int96.parquet");
    Files.createDirectories(day);
    try (Stream<Path> parts = Files.list(sparkOut)) {
      Files.move(
          parts.filter(p -> p.toString().endsWith(".parquet")).findFirst().orElseThrow(), int96);
    }
    assertThat(physicalType(int96)).isEqualTo("INT96");
    Path adjusted =
        RawFixtures.write(
            Path.of(s.dataset().raw().location()),
            "2024-03-01",
            "b-adjusted.parquet",
            List.of(u("A1", "Adjusted", AT)));
    Path naive =
        RawFileWriter.writeOnce(
            day.resolve("c-naive.parquet"),
            RawColumn.CUSTOMERS_NAIVE,
            List.of(Arrays.asList("N1", "Naive", "n1@example.com", Instant.parse(AT), "U")));
    assertThat(physicalType(adjusted)).isEqualTo("INT64");
    assertThat(physicalType(naive)).isEqualTo("INT64");

    IngestRunReport r = new IngestJob(spark, s).run().report();

    assertThat(r.status()).as(r.error()).isEqualTo(IngestStatus.SUCCEEDED);
    assertThat(r.counts().recordsInvalid()).isZero();
    assertThat(r.quarantinedFiles()).isEmpty();
    assertThat(curated(s)).containsOnlyKeys("S1", "A1", "N1");
    for (String key : List.of("S1", "A1", "N1")) {
      assertThat(curated(s).get(key).get(2)).as(key).isEqualTo(Instant.parse(AT));
    }
    assertThat(r.watermarkAfter()).isEqualTo(AT);
  }

  /** The Parquet physical type of the file's {@code updated_at}, as DuckDB reads its footer. */
  private static String physicalType(Path file) throws Exception {
    try (java.sql.Connection c = java.sql.DriverManager.getConnection("jdbc:duckdb:");
        java.sql.ResultSet rs =
            c.createStatement()
                .executeQuery(
                    "SELECT type FROM parquet_schema('"
                        + file.toString().replace("'", "''")
                        + "') WHERE name = 'updated_at'")) {
      assertThat(rs.next()).as("updated_at in " + file).isTrue();
      return rs.getString(1);
    }
  }
}
