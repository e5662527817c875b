package io.tidemark.reconcile.engine.athena;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tidemark.model.config.DatasetSpec;
import io.tidemark.reconcile.kernel.EngineException;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The raw table both query engines read: its columns follow the data contract and the curated
 * table's types, and its DDL never carries a location that could break out of a SQL string. (That
 * Trino reads the files through {@link RawTable#trinoDdl} is proved end to end, on a real Trino.)
 */
class TestRawTable {
  private static final DatasetSpec SPEC =
      io.tidemark.model.testing.DemoSpecs.customers("s3://lake/raw/customers", "curated.customers");
  private static final Map<String, String> CURATED =
      Map.of(
          "customer_id", "string",
          "updated_at", "timestamp",
          "customer_name", "string",
          "email", "string",
          "balance", "decimal(12,2)");

  private static final java.time.LocalDate START = java.time.LocalDate.of(2025, 6, 1);

  @Test
  void columnsAreTheContractsInOrderTypedAsTheCuratedTableTypesThem() {
    DatasetSpec spec =
        new DatasetSpec(
            "customers",
            null,
            SPEC.keyColumns(),
            SPEC.changeMarker(),
            "op",
            java.util.List.of("email", "balance"),
            SPEC.raw(),
            SPEC.curatedTable(),
            null);
    assertThat(RawTable.columns(spec, CURATED))
        .containsExactly(
            Map.entry("customer_id", "string"),
            Map.entry("updated_at", "timestamp"),
            Map.entry("op", "string"),
            Map.entry("email", "string"),
            Map.entry("balance", "decimal(12,2)"));
    String athena =
        RawTable.athenaDdl(spec, CURATED, "tidemark.customers_raw", "s3://lake/raw/c/", START);
    assertThat(athena)
        .contains("`balance` decimal(12,2)\n")
        .contains("LOCATION 's3://lake/raw/c/'")
        .contains("'projection.ingest_date.range' = '2025-06-01,NOW+1DAYS'")
        .contains("'storage.location.template' = 's3://lake/raw/c/ingest_date=${ingest_date}/'");
    assertThat(
            RawTable.trinoDdl(
                spec, CURATED, "raw.tidemark.customers_raw", "s3://lake/raw/c", START))
        .contains("\"updated_at\" timestamp(3),\n", "\"balance\" decimal(12,2),\n")
        .contains("partition_projection_range = ARRAY['2025-06-01', 'NOW+1DAYS']");
  }

  @Test
  void aComparedColumnTheCuratedTableLacksIsNamed() {
    assertThatThrownBy(() -> RawTable.columns(SPEC, Map.of("customer_id", "string")))
        .isInstanceOf(EngineException.class)
        .hasMessageStartingWith(
            "Cannot define the raw table of dataset customers: compared column 'customer_name' is"
                + " not in the curated table");
  }

  @Test
  void aLocationThatCouldEndTheSqlStringIsRefused() {
    for (String bad :
        new String[] {"s3://lake/raw/x' OR '1", "s3://lake/raw x", "/local/raw", "http://x/y"}) {
      assertThatThrownBy(() -> RawTable.athenaDdl(SPEC, CURATED, "t", bad, START))
          .as(bad)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("Cannot use raw location '" + bad + "' in DDL");
    }
    assertThatThrownBy(
            () -> RawTable.athenaDdl(SPEC, CURATED, "db.t; DROP", "s3://lake/raw", START))
        .isInstanceOf(RuntimeException.class)
        .hasMessageContaining("identifier");
  }

  private static io.tidemark.model.contract.DatasetContract orders(
      io.tidemark.model.contract.layout.Layout layout) {
    return io.tidemark.model.contract.DatasetContract.builder("orders")
        .raw("s3://lake/dms/orders", layout)
        .column("Op", io.tidemark.model.contract.ColumnType.STRING)
        .column("order_id", io.tidemark.model.contract.ColumnType.STRING)
        .column("line_nr", io.tidemark.model.contract.ColumnType.INT)
        .column("amount", io.tidemark.model.contract.ColumnType.decimal(12, 2))
        .column("change_seq", io.tidemark.model.contract.ColumnType.LONG)
        .keyColumns("order_id", "line_nr")
        .comparedColumns("amount")
        .changeMarker("change_seq", io.tidemark.model.config.ChangeMarkerType.LONG)
        .operation("Op", java.util.List.of("I", "U"), java.util.List.of("D"))
        .curated("curated.orders")
        .build();
  }

  /** The reconciler's DDL of a contract is the shared definition's, for every layout. */
  @Test
  void theContractsDdlFollowsItsLayout() {
    String flat =
        RawTable.athenaDdl(
            orders(new io.tidemark.model.contract.layout.Layout.Dms(null)),
            "tidemark",
            "s3://lake/dms/orders/",
            START);
    assertThat(flat)
        .isEqualTo(
            "CREATE EXTERNAL TABLE IF NOT EXISTS `tidemark`.`orders_raw` (\n"
                + "  `op` string,\n  `order_id` string,\n  `line_nr` int,\n"
                + "  `amount` decimal(12,2),\n  `change_seq` bigint\n)\n"
                + "STORED AS PARQUET\nLOCATION 's3://lake/dms/orders/';\n");

    String dated =
        RawTable.athenaDdl(
            orders(
                new io.tidemark.model.contract.layout.Layout.Dms(
                    new io.tidemark.model.contract.layout.DateFolders("YYYY/MM/DD"))),
            null,
            "s3://lake/dms/orders",
            START);
    assertThat(dated.split(";\n"))
        .hasSize(2)
        .satisfiesExactly(
            cdc ->
                assertThat(cdc)
                    .startsWith("CREATE EXTERNAL TABLE IF NOT EXISTS `orders_raw` (")
                    .contains("PARTITIONED BY (`folder_date` string)")
                    .contains("'projection.folder_date.format' = 'yyyy/MM/dd'")
                    .contains("'projection.folder_date.range' = '2025/06/01,NOW+1DAYS'")
                    .contains(
                        "'storage.location.template' = 's3://lake/dms/orders/${folder_date}/'"),
            all ->
                assertThat(all)
                    .startsWith("CREATE EXTERNAL TABLE IF NOT EXISTS `orders_raw_all` (")
                    .doesNotContain("PARTITIONED BY"));

    assertThat(
            RawTable.athenaDdl(
                orders(io.tidemark.model.contract.layout.Layout.Dated.datePath("YYYY/MM/DD/HH")),
                null,
                "s3://lake/firehose/orders",
                START))
        .contains("PARTITIONED BY (`folder_date` string, `folder_hour` string)")
        .contains("'projection.folder_hour.type' = 'integer'");
  }
}
