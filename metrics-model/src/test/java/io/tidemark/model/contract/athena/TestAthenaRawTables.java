package io.tidemark.model.contract.athena;

import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.model.config.ChangeMarkerType;
import io.tidemark.model.contract.ColumnType;
import io.tidemark.model.contract.DatasetContract;
import io.tidemark.model.contract.layout.DateFolders;
import io.tidemark.model.contract.layout.Layout;
import java.time.LocalDate;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The Athena raw tables of a contract: named by the contract's rule, its columns at their declared
 * Hive types, partitioned as each layout's folders are, and able to say which partition a listed
 * file lies in.
 */
class TestAthenaRawTables {
  private static final LocalDate START = LocalDate.parse("2025-06-01");

  private static DatasetContract orders(String location, Layout layout) {
    return DatasetContract.builder("sales.orders-v2")
        .raw(location, layout)
        .column("Op", ColumnType.STRING)
        .column("order_id", ColumnType.STRING)
        .column("line_nr", ColumnType.INT)
        .column("amount", ColumnType.decimal(12, 2))
        .column("order_date", ColumnType.DATE)
        .column("paid", ColumnType.BOOLEAN)
        .column("change_seq", ColumnType.LONG)
        .keyColumns("order_id", "line_nr")
        .comparedColumns("amount", "order_date", "paid")
        .changeMarker("change_seq", ChangeMarkerType.LONG)
        .operation("Op", List.of("I", "U"), List.of("D"))
        .curated("curated.orders")
        .build();
  }

  @Test
  void columnsAreTheDeclaredOnesInOrderAtTheirHiveTypes() {
    AthenaRawTable t =
        AthenaRawTables.tables(orders("s3://lake/dms/orders/", new Layout.Dms(null))).get(0);
    assertThat(t.name()).isEqualTo("sales_orders_v2_raw");
    assertThat(t.kind()).isEqualTo(AthenaRawTable.Kind.FLAT);
    assertThat(t.location()).isEqualTo("s3://lake/dms/orders");
    assertThat(t.columns())
        .containsExactly(
            Map.entry("op", "string"),
            Map.entry("order_id", "string"),
            Map.entry("line_nr", "int"),
            Map.entry("amount", "decimal(12,2)"),
            Map.entry("order_date", "date"),
            Map.entry("paid", "boolean"),
            Map.entry("change_seq", "bigint"));
    assertThat(t.partitioned()).isFalse();
    assertThat(t.parameters(START)).isEmpty();
    assertThat(t.partitionValues("LOAD00000001.parquet")).isEmpty();
  }

  @Test
  void hiveFoldersAreOneProjectedDateKeyInTheFoldersFormat() {
    AthenaRawTable t =
        AthenaRawTables.readTable(
            orders("s3://lake/raw/orders", Layout.Dated.hive("ingest_date", "yyyy-MM-dd")));
    assertThat(t.kind()).isEqualTo(AthenaRawTable.Kind.PROJECTED);
    assertThat(t.partitionKeyNames()).containsExactly("ingest_date");
    assertThat(t.parameters(START))
        .containsExactly(
            Map.entry("projection.enabled", "true"),
            Map.entry("projection.ingest_date.type", "date"),
            Map.entry("projection.ingest_date.format", "yyyy-MM-dd"),
            Map.entry("projection.ingest_date.range", "2025-06-01,NOW+1DAYS"),
            Map.entry("projection.ingest_date.interval", "1"),
            Map.entry("projection.ingest_date.interval.unit", "DAYS"),
            Map.entry(
                "storage.location.template", "s3://lake/raw/orders/ingest_date=${ingest_date}/"));
    assertThat(t.partitionValues("ingest_date=2026-03-01/part-0.parquet"))
        .containsExactly(Map.entry("ingest_date", "2026-03-01"));
    assertThat(t.partitionValues("loose.parquet")).isNull();
  }

  @Test
  void aDatePathWithAnHourFolderIsADateKeyAndAnIntegerHourKey() {
    AthenaRawTable t =
        AthenaRawTables.readTable(
            orders("s3://lake/firehose", Layout.Dated.datePath("YYYY/MM/DD/HH")));
    assertThat(t.partitionKeyNames()).containsExactly("folder_date", "folder_hour");
    assertThat(t.parameters(START))
        .containsEntry("projection.folder_date.format", "yyyy/MM/dd")
        .containsEntry("projection.folder_date.range", "2025/06/01,NOW+1DAYS")
        .containsEntry("projection.folder_hour.type", "integer")
        .containsEntry("projection.folder_hour.range", "0,23")
        .containsEntry("projection.folder_hour.digits", "2")
        .containsEntry(
            "storage.location.template", "s3://lake/firehose/${folder_date}/${folder_hour}/");
    assertThat(t.partitionValues("2026/03/01/07/batch-1.parquet"))
        .containsExactly(Map.entry("folder_date", "2026/03/01"), Map.entry("folder_hour", "07"));

    AthenaRawTable compact =
        AthenaRawTables.readTable(orders("s3://lake/c", Layout.Dated.datePath("dt=YYYYMMDDHH")));
    assertThat(compact.parameters(START))
        .containsEntry("projection.folder_date.format", "yyyyMMddHH")
        .containsEntry("projection.folder_date.range", "2025060100,NOW+1DAYS")
        .containsEntry("projection.folder_date.interval.unit", "HOURS");
    assertThat(compact.partitionValues("dt=2026030107/x.parquet"))
        .containsExactly(Map.entry("folder_date", "2026030107"));
  }

  @Test
  void dmsWithDateFoldersHasAProjectedCdcTableAndOneOverEveryFile() {
    DatasetContract d =
        orders("s3://dms/sales/orders", new Layout.Dms(new DateFolders("YYYY/MM/DD")));
    List<AthenaRawTable> tables = AthenaRawTables.tables(d);
    assertThat(tables)
        .extracting(AthenaRawTable::name, AthenaRawTable::kind)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(
                "sales_orders_v2_raw", AthenaRawTable.Kind.PROJECTED),
            org.assertj.core.groups.Tuple.tuple(
                "sales_orders_v2_raw_all", AthenaRawTable.Kind.ALL));
    assertThat(tables.get(0).partitionValues("2026/03/01/20260301-101500000.parquet"))
        .containsExactly(Map.entry("folder_date", "2026/03/01"));
    assertThat(tables.get(0).partitionValues("LOAD00000001.parquet")).isNull();
    assertThat(AthenaRawTables.readTable(d)).isEqualTo(tables.get(1));
    assertThat(AthenaRawTables.partitionKeys(d.raw().layout())).containsExactly("folder_date");
  }
}
