package io.tidemark.ingest;

import io.tidemark.model.config.ChangeMarkerType;
import io.tidemark.model.contract.ColumnType;
import io.tidemark.model.contract.DatasetContract;
import io.tidemark.model.contract.layout.Layout;
import java.util.List;

/**
 * The datasets the job's tests ingest, declared as their contracts: the demo's {@code customers}
 * (as examples/demo/tidemark.yaml declares it) and DMS's {@code orders} (as
 * examples/orders/tidemark.yaml does). Production code has no such defaults: a dataset is declared.
 */
public final class Contracts {
  private Contracts() {}

  /** The demo's customers dataset: Hive {@code ingest_date=YYYY-MM-DD} folders, op U/D. */
  public static DatasetContract customers(String rawLocation, String curatedTable) {
    return DatasetContract.builder("customers")
        .raw(rawLocation, Layout.Dated.hive("ingest_date", "yyyy-MM-dd"))
        .column("customer_id", ColumnType.STRING)
        .column("customer_name", ColumnType.STRING)
        .column("email", ColumnType.STRING)
        .column("updated_at", ColumnType.TIMESTAMP)
        .column("op", ColumnType.STRING)
        .keyColumns("customer_id")
        .comparedColumns("customer_name", "email")
        .changeMarker("updated_at", ChangeMarkerType.TIMESTAMP)
        .operation("op", List.of("U"), List.of("D"))
        .curated(curatedTable)
        .build();
  }

  /**
   * An orders table exported by AWS DMS: composite key (order_id, line_nr), exact decimal amount,
   * date, boolean, a sequence change marker and DMS's Op column (I, U upsert; D deletes).
   */
  public static DatasetContract orders(String rawLocation, Layout layout, String curatedTable) {
    return DatasetContract.builder("orders")
        .raw(rawLocation, layout)
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
        .curated(curatedTable, "month(order_date)")
        .build();
  }
}
