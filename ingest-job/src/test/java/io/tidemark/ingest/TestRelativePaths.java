package io.tidemark.ingest;

import static io.tidemark.ingest.RawFixtures.u;
import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.ingest.config.IngestSettings;
import io.tidemark.ingest.run.IngestJob;
import io.tidemark.ingest.run.IngestOutcome;
import io.tidemark.model.config.CatalogSpec;
import io.tidemark.model.report.IngestErrorCode;
import io.tidemark.model.report.IngestRunReport;
import io.tidemark.model.report.IngestStatus;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Clock;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.Table;
import org.apache.iceberg.spark.Spark3Util;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Relative local paths are resolved against the folder the job started in before anything is
 * written: the catalog, the run reports and the tables record absolute locations, so the reconciler
 * (or the job) started from another folder finds them.
 */
@Tag("spark")
class TestRelativePaths extends SparkTestSupport {
  @TempDir Path dir;

  @Test
  void aRelativeWarehouseRawRootAndStateRootAreRecordedAsAbsolutePaths() throws Exception {
    // The same folders as settings(dir), named relative to the working folder.
    Path here = Path.of("").toAbsolutePath();
    String relative = here.relativize(dir).toString();
    assertThat(Path.of(relative).isAbsolute()).isFalse();
    IngestSettings base = settings(dir);
    CatalogSpec local = CatalogSpec.localJdbc(relative + "/warehouse");
    IngestSettings s =
        IngestSettings.of(
                Contracts.customers(relative + "/raw/customers", "curated.customers"),
                new CatalogSpec(base.catalog().name(), local.properties()),
                relative + "/state")
            .withClock(Clock.fixed(NOW, ZoneOffset.UTC));
    String absolute = dir.toString();
    assertThat(s.catalog().properties().get("warehouse")).isEqualTo(absolute + "/warehouse");
    assertThat(s.catalog().properties().get("uri"))
        .isEqualTo("jdbc:sqlite:" + absolute + "/warehouse/catalog.db");
    assertThat(s.dataset().raw().location()).isEqualTo(absolute + "/raw/customers");
    assertThat(s.stateRoot()).isEqualTo(absolute + "/state");

    RawFixtures.write(
        dir.resolve("raw/customers"),
        "2024-03-01",
        "a.parquet",
        java.util.stream.Stream.concat(
                java.util.stream.IntStream.range(0, 10)
                    .mapToObj(i -> u("K" + i, "N" + i, "2024-03-01T10:00:00Z")),
                java.util.stream.Stream.of(u(null, "NoKey", "2024-03-01T10:00:00Z")))
            .toList());
    IngestOutcome out = new IngestJob(spark, s).run();
    IngestRunReport r = out.report();
    assertThat(r.status()).as(r.error()).isEqualTo(IngestStatus.SUCCEEDED);

    assertThat(out.reportLocation()).startsWith(absolute + "/state/_runs/dt=2024-03-20/");
    assertThat(r.inputFiles())
        .singleElement()
        .satisfies(f -> assertThat(f).contains(absolute + "/raw/customers/"));
    // What the catalog holds, as another process reads it.
    List<String> locations = new ArrayList<>();
    try (Connection c =
            DriverManager.getConnection("jdbc:sqlite:" + absolute + "/warehouse/catalog.db");
        Statement st = c.createStatement();
        ResultSet rs =
            st.executeQuery("SELECT table_name, metadata_location FROM iceberg_tables")) {
      while (rs.next()) {
        locations.add(rs.getString(1) + " " + rs.getString(2));
      }
    }
    assertThat(locations)
        .hasSize(3)
        .allSatisfy(l -> assertThat(l).contains(" " + absolute + "/warehouse/"));
    Table curated = Spark3Util.loadIcebergTable(spark, s.curatedSparkName());
    assertThat(curated.location()).startsWith(absolute + "/warehouse/");
    assertThat(
            spark
                .table(s.quarantineSparkName())
                .select("source_file")
                .as(org.apache.spark.sql.Encoders.STRING())
                .collectAsList())
        .singleElement()
        .satisfies(f -> assertThat(f).contains(absolute + "/raw/customers/"));
  }

  @Test
  void aTableAnOlderRunWroteAtARelativeLocationIsRefusedNamingIt() throws Exception {
    // As a job given a relative --warehouse left it before relative paths were resolved: the
    // catalog records the table relative to the folder that job ran in.
    IngestSettings s = settings(dir);
    String relative = Path.of("").toAbsolutePath().relativize(dir.resolve("warehouse")).toString();
    java.nio.file.Files.createDirectories(dir.resolve("warehouse"));
    java.util.Map<String, String> props = new java.util.HashMap<>(s.catalog().properties());
    props.put("warehouse", relative);
    org.apache.iceberg.catalog.Catalog writer =
        org.apache.iceberg.CatalogUtil.buildIcebergCatalog(
            s.catalog().name(), props, new org.apache.hadoop.conf.Configuration());
    ((org.apache.iceberg.catalog.SupportsNamespaces) writer)
        .createNamespace(org.apache.iceberg.catalog.Namespace.of("curated"));
    writer.createTable(
        org.apache.iceberg.catalog.TableIdentifier.of("curated", "customers"),
        new org.apache.iceberg.Schema(
            org.apache.iceberg.types.Types.NestedField.required(
                1, "customer_id", org.apache.iceberg.types.Types.StringType.get())));
    ((java.io.Closeable) writer).close();
    RawFixtures.write(
        dir.resolve("raw/customers"),
        "2024-03-01",
        "a.parquet",
        List.of(u("A", "Ada", "2024-03-01T10:00:00Z")));

    IngestOutcome out = new IngestJob(spark, s).run();

    assertThat(out.report().status()).isEqualTo(IngestStatus.FAILED);
    assertThat(out.report().errorCode()).isEqualTo(IngestErrorCode.INVALID_CONFIG);
    assertThat(out.exitCode()).isEqualTo(2);
    assertThat(out.report().error())
        .isEqualTo(
            "Cannot use table "
                + s.curatedSparkName()
                + ": the catalog records it at the relative location '"
                + relative
                + "/curated/customers' (written by a run given a relative --warehouse), which"
                + " each process resolves against the folder it started in; rebuild the tables"
                + " into a warehouse named by an absolute path (the first run there loads every"
                + " raw file)");
  }
}
