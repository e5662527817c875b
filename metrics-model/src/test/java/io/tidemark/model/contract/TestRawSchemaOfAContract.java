package io.tidemark.model.contract;

import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.model.config.ChangeMarkerType;
import io.tidemark.model.contract.RawSchema.Column;
import io.tidemark.model.contract.RawSchema.Kind;
import io.tidemark.model.contract.layout.Layout;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A raw file's footer held against a contract's declared columns and types. */
class TestRawSchemaOfAContract {
  private static final DatasetContract ORDERS =
      DatasetContract.builder("orders")
          .raw("/raw/orders", new Layout.Dms(null))
          .column("Op", ColumnType.STRING)
          .column("order_id", ColumnType.STRING)
          .column("line_nr", ColumnType.INT)
          .column("amount", ColumnType.decimal(12, 2))
          .column("order_date", ColumnType.DATE)
          .column("change_seq", ColumnType.LONG)
          .keyColumns("order_id", "line_nr")
          .comparedColumns("amount", "order_date")
          .changeMarker("change_seq", ChangeMarkerType.LONG)
          .operation("Op", List.of("I", "U"), List.of("D"))
          .curated("curated.orders")
          .build();

  /** A DMS CDC file's columns, as Spark names their types. */
  private static List<Column> file() {
    return new ArrayList<>(
        List.of(
            new Column("Op", Kind.TEXT, "string"),
            new Column("order_id", Kind.TEXT, "string"),
            new Column("line_nr", Kind.INTEGER, "int"),
            new Column("amount", Kind.OTHER, "decimal(12,2)"),
            new Column("order_date", Kind.OTHER, "date"),
            new Column("change_seq", Kind.INTEGER, "bigint")));
  }

  private static List<Column> replace(String name, Column with) {
    List<Column> f = file();
    f.replaceAll(c -> c.name().equals(name) ? with : c);
    return f;
  }

  @Test
  void aConformingFileAndAFullLoadWithoutTheOperationColumn() {
    assertThat(RawSchema.check(ORDERS, file())).isNull();
    List<Column> fullLoad = file();
    fullLoad.remove(0);
    assertThat(RawSchema.check(ORDERS, fullLoad)).isNull();
  }

  @Test
  void aDeclaredTypeTakesOnlyWhatFitsWithoutLoss() {
    assertThat(
            RawSchema.check(
                ORDERS, replace("amount", new Column("amount", Kind.OTHER, "decimal(10,2)"))))
        .isNull();
    assertThat(
            RawSchema.check(ORDERS, replace("amount", new Column("amount", Kind.OTHER, "double"))))
        .isEqualTo(
            new RawSchema.Problem(
                ReasonCode.INCOMPATIBLE_TYPE, "amount is double, declared decimal(12,2)"));
    assertThat(
            RawSchema.check(
                ORDERS, replace("order_date", new Column("order_date", Kind.TEXT, "string"))))
        .isEqualTo(
            new RawSchema.Problem(
                ReasonCode.INCOMPATIBLE_TYPE, "order_date is string, declared date"));
  }

  @Test
  void missingAndCaseSlippedColumnsAreNamed() {
    assertThat(RawSchema.check(ORDERS, replace("Op", new Column("op", Kind.TEXT, "string"))))
        .isNull(); // the operation column is optional: 'op' is another, undeclared column
    assertThat(
            RawSchema.undeclaredColumns(
                ORDERS, replace("Op", new Column("op", Kind.TEXT, "string"))))
        .containsExactly("op");
    assertThat(
            RawSchema.check(ORDERS, replace("line_nr", new Column("LINE_NR", Kind.INTEGER, "int"))))
        .isEqualTo(
            new RawSchema.Problem(
                ReasonCode.MISSING_COLUMN,
                "missing column(s) [line_nr] (names are case-sensitive: 'LINE_NR' is not 'line_nr')"));
  }
}
