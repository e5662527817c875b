package io.tidemark.e2e.trino;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.tidemark.model.config.ChangeMarker;
import io.tidemark.model.config.DatasetSpec;
import io.tidemark.model.config.RawSource;
import io.tidemark.model.testing.raw.RawFileWriter;
import io.tidemark.reconcile.engine.athena.RawTable;
import io.tidemark.reconcile.storage.RawFiles;
import io.tidemark.reconcile.storage.RawKeyTypes;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.hadoop.HadoopFileIO;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * The raw table's DDL for every column type the data contract accepts, on a real Trino: a raw file
 * with a composite key (text and integer), a timestamp change marker and a compared column of each
 * type, declared by the Trino twin of the Athena DDL, reads back every value at its own type; and
 * the Hive types Trino stores for that table are the very types the Athena DDL declares.
 */
@Tag("trino")
class TestRawTableTypesOnTrino {
  private static final Pattern DDL_COLUMN = Pattern.compile("(?m)^  `(\\w+)` ([\\w(),]+?),?$");

  @TempDir(cleanup = CleanupMode.ON_SUCCESS)
  Path work;

  /** The curated table's types, as the service reads them from Iceberg (contract type names). */
  private static final Map<String, String> CURATED =
      new LinkedHashMap<>(
          Map.ofEntries(
              Map.entry("order_id", "string"),
              Map.entry("line_no", "string"),
              Map.entry("updated_at", "timestamp"),
              Map.entry("op", "string"),
              Map.entry("note", "string"),
              Map.entry("qty", "int"),
              Map.entry("big", "bigint"),
              Map.entry("amount", "decimal(12,2)"),
              Map.entry("order_date", "date"),
              Map.entry("shipped_at", "timestamp"),
              Map.entry("paid", "boolean"),
              Map.entry("ratio", "double")));

  @Test
  void everyContractTypeReadsBackAtItsOwnTypeThroughTheDdl() throws Exception {
    Path dataset = work.resolve("raw/orders");
    Path file = dataset.resolve("ingest_date=2026-03-01/part-000.parquet");
    RawFileWriter.writeQueryOnce(
        file,
        "SELECT 'o-1' AS order_id, CAST(7 AS INTEGER) AS line_no,"
            + " TIMESTAMPTZ '2026-03-01 10:00:00.123+00' AS updated_at, 'U' AS op,"
            + " 'a note' AS note, CAST(42 AS INTEGER) AS qty, CAST(12345678901 AS BIGINT) AS big,"
            + " CAST(19.99 AS DECIMAL(12,2)) AS amount, DATE '2026-03-01' AS order_date,"
            + " TIMESTAMPTZ '2026-02-28 23:59:59.5+00' AS shipped_at, true AS paid,"
            + " CAST(0.125 AS DOUBLE) AS ratio");
    DatasetSpec spec =
        new DatasetSpec(
            "orders",
            null,
            List.of("order_id", "line_no"),
            ChangeMarker.timestamp("updated_at"),
            "op",
            List.of("note", "qty", "big", "amount", "order_date", "shipped_at", "paid", "ratio"),
            RawSource.parquet(dataset.toString()),
            "curated.orders",
            null);
    // The key types as the service reads them: from the raw file's footer, through Iceberg's IO.
    Map<String, String> keyTypes =
        RawKeyTypes.read(
            spec,
            new HadoopFileIO(new Configuration()),
            List.of(
                new RawFiles.RawFile(
                    file.toString(), LocalDate.parse("2026-03-01"), 0, Instant.now())));
    assertThat(keyTypes)
        .containsExactly(Map.entry("order_id", "string"), Map.entry("line_no", "int"));

    try (TrinoServer trino = TrinoServer.shared()) {
      Path metastore = work.resolve("trino-metastore");
      trino.createRawCatalog("raw", metastore);
      trino.execute("CREATE SCHEMA raw.landing");
      trino.execute(
          RawTable.trinoDdl(
              spec,
              CURATED,
              keyTypes,
              "raw.landing.orders",
              TrinoServer.localUri(dataset),
              LocalDate.parse("2026-02-01")));

      try (Connection c = trino.connect();
          Statement s = c.createStatement();
          ResultSet rs =
              s.executeQuery(
                  "SELECT order_id, line_no, updated_at, op, note, qty, big, amount, order_date,"
                      + " shipped_at, paid, ratio, ingest_date FROM raw.landing.orders")) {
        assertThat(rs.next()).isTrue();
        assertThat(rs.getObject("order_id")).isEqualTo("o-1");
        assertThat(rs.getObject("line_no")).isEqualTo(7);
        assertThat(rs.getObject("updated_at", LocalDateTime.class))
            .isEqualTo(LocalDateTime.parse("2026-03-01T10:00:00.123"));
        assertThat(rs.getObject("op")).isEqualTo("U");
        assertThat(rs.getObject("note")).isEqualTo("a note");
        assertThat(rs.getObject("qty")).isEqualTo(42);
        assertThat(rs.getObject("big")).isEqualTo(12345678901L);
        assertThat(rs.getObject("amount")).isEqualTo(new BigDecimal("19.99"));
        assertThat(rs.getObject("order_date", LocalDate.class))
            .isEqualTo(LocalDate.parse("2026-03-01"));
        assertThat(rs.getObject("shipped_at", LocalDateTime.class))
            .isEqualTo(LocalDateTime.parse("2026-02-28T23:59:59.500"));
        assertThat(rs.getObject("paid")).isEqualTo(true);
        assertThat(rs.getObject("ratio")).isEqualTo(0.125);
        assertThat(rs.getObject("ingest_date")).isEqualTo("2026-03-01");
        assertThat(rs.next()).isFalse();
      }

      // The Hive types Trino stored for its table are the ones the Athena DDL declares.
      Map<String, String> stored = new LinkedHashMap<>();
      JsonNode schema =
          new ObjectMapper().readTree(metastore.resolve("landing/orders/.trinoSchema").toFile());
      for (JsonNode col : schema.path("dataColumns")) {
        stored.put(col.path("name").asText(), col.path("type").asText());
      }
      Map<String, String> athena = new LinkedHashMap<>();
      Matcher m =
          DDL_COLUMN.matcher(
              RawTable.athenaDdl(
                  spec,
                  CURATED,
                  keyTypes,
                  "curated.orders_raw",
                  "s3://lake/raw/orders",
                  LocalDate.parse("2026-02-01")));
      while (m.find()) {
        athena.put(m.group(1), m.group(2));
      }
      assertThat(athena).hasSize(12).isEqualTo(stored);
      assertThat(athena).containsEntry("line_no", "int");
    }
  }
}
