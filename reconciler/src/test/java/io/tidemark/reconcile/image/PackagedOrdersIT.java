package io.tidemark.reconcile.image;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.tidemark.model.config.CatalogSpec;
import io.tidemark.model.testing.raw.RawFileWriter;
import io.tidemark.reconcile.fixtures.QuarantineTable;
import io.tidemark.reconcile.storage.IcebergTables;
import java.io.IOException;
import java.math.BigDecimal;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericAppenderFactory;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The packaged service ({@code target/quarkus-app}, started as the image starts it) over a
 * composite-key {@code orders} dataset with an integer key and decimal and date columns, on the
 * embedded engine: its quarantine endpoint reads the quarantine table and its raw-table DDL reads
 * raw footers through the service's own classpath, which holds only what the package ships (the
 * test classpath holds more, e.g. {@code iceberg-orc}), so a class the package lacks fails here as
 * it would in production.
 */
@Tag("packaged")
class PackagedOrdersIT {
  private static final Path TARGET = Path.of("target").toAbsolutePath();
  private static final Duration READY_WITHIN = Duration.ofSeconds(60);
  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  private static final Schema ORDERS =
      new Schema(
          Types.NestedField.required(1, "order_id", Types.StringType.get()),
          Types.NestedField.required(2, "line_no", Types.IntegerType.get()),
          Types.NestedField.optional(3, "amount", Types.DecimalType.of(12, 2)),
          Types.NestedField.optional(4, "order_date", Types.DateType.get()),
          Types.NestedField.required(5, "updated_at", Types.TimestampType.withZone()));

  @TempDir Path dir;

  @Test
  void theQuarantineOfADecimalAndDateDatasetIsServedByThePackage() throws Exception {
    Path jar = TARGET.resolve("quarkus-app/quarkus-run.jar");
    if (!Files.isRegularFile(jar)) {
      fail(jar + " is missing: this test runs the packaged service; run it with `mvn verify`");
    }
    Path warehouse = Files.createDirectories(dir.resolve("warehouse"));
    Path raw = Files.createDirectories(dir.resolve("raw/orders/ingest_date=2026-03-01"));
    RawFileWriter.writeQueryOnce(
        raw.resolve("part-000.parquet"),
        "SELECT 'o-1' AS order_id, CAST(1 AS INTEGER) AS line_no,"
            + " TIMESTAMPTZ '2026-03-01 10:00:00+00' AS updated_at,"
            + " CAST(19.99 AS DECIMAL(12,2)) AS amount, DATE '2026-03-01' AS order_date");
    CatalogSpec spec = CatalogSpec.localJdbc(warehouse.toString());
    writeOrders(spec, Instant.parse("2026-03-01T10:00:00Z"));
    QuarantineTable.write(
        spec,
        "curated.orders_quarantine",
        "run-1",
        Instant.parse("2026-03-01T10:00:00Z"),
        List.of("NULL_KEY", "NULL_KEY", "MALFORMED_KEY"));

    int port = freePort();
    Path log = TARGET.resolve("packaged-orders-" + port + ".log");
    Process p = start(port, raw.getParent(), warehouse, log);
    try {
      URI base = URI.create("http://127.0.0.1:" + port);
      awaitReady(p, base, log);

      HttpResponse<String> quarantine =
          HTTP.send(
              HttpRequest.newBuilder(base.resolve("/api/datasets/orders/quarantine"))
                  .timeout(Duration.ofSeconds(30))
                  .build(),
              HttpResponse.BodyHandlers.ofString());

      assertThat(quarantine.statusCode())
          .as(quarantine.body() + "\n" + Files.readString(log, StandardCharsets.UTF_8))
          .isEqualTo(200);
      JsonNode counts = new ObjectMapper().readTree(quarantine.body());
      assertThat(counts.path("table").asText()).isEqualTo("curated.orders_quarantine");
      assertThat(counts.path("exists").asBoolean()).isTrue();
      assertThat(counts.path("total").asLong()).isEqualTo(3);
      assertThat(counts.path("byReason").path("NULL_KEY").asLong()).isEqualTo(2);
      assertThat(counts.path("byReason").path("MALFORMED_KEY").asLong()).isEqualTo(1);

      // The raw table's DDL types every column as the contract declares it.
      HttpResponse<String> ddl =
          HTTP.send(
              HttpRequest.newBuilder(base.resolve("/api/datasets/orders/raw-table-ddl"))
                  .timeout(Duration.ofSeconds(30))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(ddl.statusCode()).as(ddl.body()).isEqualTo(200);
      assertThat(ddl.body())
          .contains("  `order_id` string,\n  `line_no` int,\n  `updated_at` timestamp,\n")
          .contains("  `amount` decimal(12,2),\n  `order_date` date\n");

      p.destroy();
      assertThat(p.waitFor(30, TimeUnit.SECONDS)).as("stopped within 30 s of SIGTERM").isTrue();
      assertThat(Files.readString(log, StandardCharsets.UTF_8))
          .doesNotContain("NoClassDefFoundError")
          .doesNotContain("ClassNotFoundException");
    } finally {
      if (p.isAlive()) {
        p.destroy();
        if (!p.waitFor(15, TimeUnit.SECONDS)) {
          p.destroyForcibly().waitFor(15, TimeUnit.SECONDS);
        }
      }
    }
  }

  /** An {@code orders} table as the ingest job makes it: one row, decimal and date values. */
  private static void writeOrders(CatalogSpec spec, Instant at) throws IOException {
    Catalog catalog = IcebergTables.catalog(spec);
    try {
      TableIdentifier id = TableIdentifier.parse("curated.orders");
      if (catalog instanceof SupportsNamespaces ns && !ns.namespaceExists(id.namespace())) {
        ns.createNamespace(id.namespace());
      }
      Table table =
          catalog.createTable(
              id, ORDERS, PartitionSpec.unpartitioned(), Map.of("format-version", "2"));
      OutputFileFactory files =
          OutputFileFactory.builderFor(table, 1, System.nanoTime())
              .format(FileFormat.PARQUET)
              .build();
      DataWriter<Record> w =
          new GenericAppenderFactory(table.schema(), table.spec())
              .newDataWriter(files.newOutputFile(), FileFormat.PARQUET, null);
      try (w) {
        GenericRecord r = GenericRecord.create(ORDERS);
        r.setField("order_id", "o-1");
        r.setField("line_no", 1);
        r.setField("amount", new BigDecimal("19.99"));
        r.setField("order_date", LocalDate.parse("2026-03-01"));
        r.setField("updated_at", OffsetDateTime.ofInstant(at, ZoneOffset.UTC));
        w.write(r);
      }
      DataFile data = w.toDataFile();
      table.newAppend().appendFile(data).commit();
    } finally {
      IcebergTables.close(catalog);
    }
  }

  /** The image's command line ({@code java -jar quarkus-app/quarkus-run.jar}) from target/. */
  private static Process start(int port, Path rawLocation, Path warehouse, Path log)
      throws IOException {
    String javaHome = System.getProperty("java.home");
    ProcessBuilder pb =
        new ProcessBuilder(javaHome + "/bin/java", "-jar", "quarkus-app/quarkus-run.jar")
            .directory(TARGET.toFile())
            .redirectErrorStream(true)
            .redirectOutput(log.toFile());
    Map<String, String> env = pb.environment();
    env.clear();
    env.put("JAVA_HOME", javaHome);
    env.put("PATH", javaHome + "/bin:/usr/bin:/bin");
    env.put("QUARKUS_HTTP_HOST", "127.0.0.1");
    env.put("QUARKUS_HTTP_PORT", String.valueOf(port));
    env.put("TIDEMARK_STATE_ROOT", warehouse.getParent().resolve("state").toString());
    // The dataset is the contract's; the service is told where the contract is.
    Path contract =
        Files.writeString(
            warehouse.getParent().resolve("tidemark.yaml"),
            "version: 1\n"
                + "catalog: {warehouse: '"
                + warehouse
                + "'}\n"
                + "datasets:\n"
                + "  orders:\n"
                + "    raw: {location: '"
                + rawLocation
                + "', layout: {kind: hive, column: ingest_date, date-format: yyyy-MM-dd}}\n"
                + "    columns: {order_id: string, line_no: int, updated_at: timestamp,"
                + " amount: 'decimal(12,2)', order_date: date}\n"
                + "    key-columns: [order_id, line_no]\n"
                + "    compared-columns: [amount, order_date]\n"
                + "    change-marker: {column: updated_at, type: timestamp}\n"
                + "    curated: {table: curated.orders}\n"
                + "    reconcile: {schedule: \"off\"}\n");
    env.put("TIDEMARK_CONTRACT", contract.toString());
    return pb.start();
  }

  private static void awaitReady(Process p, URI base, Path log)
      throws IOException, InterruptedException {
    long deadline = System.nanoTime() + READY_WITHIN.toNanos();
    while (System.nanoTime() < deadline) {
      if (!p.isAlive()) {
        fail(
            "The service exited with "
                + p.exitValue()
                + " before it was ready:\n"
                + Files.readString(log, StandardCharsets.UTF_8));
      }
      try {
        HttpResponse<String> ready =
            HTTP.send(
                HttpRequest.newBuilder(base.resolve("/q/health/ready"))
                    .timeout(Duration.ofSeconds(5))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
        if (ready.statusCode() == 200) {
          return;
        }
      } catch (IOException notYet) {
        // Not listening yet.
      }
      Thread.sleep(250);
    }
    fail(
        "/q/health/ready did not answer 200 within "
            + READY_WITHIN
            + ":\n"
            + Files.readString(log, StandardCharsets.UTF_8));
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }
}
