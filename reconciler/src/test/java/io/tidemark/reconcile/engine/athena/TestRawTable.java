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
      DatasetSpec.customers("s3://lake/raw/customers", "curated.customers");
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
}
