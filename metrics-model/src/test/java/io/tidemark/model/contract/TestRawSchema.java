package io.tidemark.model.contract;

import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.model.config.ChangeMarker;
import io.tidemark.model.config.ChangeMarkerType;
import io.tidemark.model.config.DatasetSpec;
import io.tidemark.model.config.RawSource;
import io.tidemark.model.contract.RawSchema.Column;
import io.tidemark.model.contract.RawSchema.Kind;
import io.tidemark.model.contract.RawSchema.Problem;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TestRawSchema {
  private static final DatasetSpec SPEC =
      io.tidemark.model.testing.DemoSpecs.customers("/raw/customers", "crm.customers");

  private static List<Column> contract() {
    return new ArrayList<>(
        List.of(
            new Column("customer_id", Kind.TEXT, "string"),
            new Column("customer_name", Kind.TEXT, "string"),
            new Column("email", Kind.TEXT, "string"),
            new Column("updated_at", Kind.TIMESTAMP, "timestamp"),
            new Column("op", Kind.TEXT, "string")));
  }

  @Test
  void theOperationColumnIsOptional() {
    List<Column> noOp = contract();
    noOp.removeIf(c -> c.name().equals("op"));
    assertThat(RawSchema.check(SPEC, contract())).isNull();
    assertThat(RawSchema.check(SPEC, noOp)).isNull();
    assertThat(RawSchema.hasOperation(SPEC, noOp)).isFalse();
    assertThat(RawSchema.requiredColumns(SPEC))
        .containsExactly("customer_id", "updated_at", "customer_name", "email");
  }

  @Test
  void namesAreCaseSensitiveAndTheMessageSaysSo() {
    List<Column> cols = contract();
    cols.set(0, new Column("Customer_ID", Kind.TEXT, "string"));
    assertThat(RawSchema.check(SPEC, cols))
        .isEqualTo(
            new Problem(
                ReasonCode.MISSING_COLUMN,
                "missing column(s) [customer_id] (names are case-sensitive: 'Customer_ID' is not"
                    + " 'customer_id')"));
  }

  @Test
  void columnsDifferingOnlyInCaseMakeTheFileAmbiguous() {
    List<Column> cols = contract();
    cols.add(new Column("EMAIL", Kind.TEXT, "string"));
    assertThat(RawSchema.check(SPEC, cols))
        .isEqualTo(
            new Problem(
                ReasonCode.DUPLICATE_COLUMN, "columns 'email' and 'EMAIL' differ only in case"));
  }

  @Test
  void keysAreTextOrIntegersMarkersTheirConfiguredKind() {
    List<Column> cols = contract();
    cols.set(0, new Column("customer_id", Kind.INTEGER, "bigint"));
    assertThat(RawSchema.check(SPEC, cols)).isNull();

    cols.set(0, new Column("customer_id", Kind.OTHER, "double"));
    cols.set(3, new Column("updated_at", Kind.INTEGER, "bigint"));
    cols.set(4, new Column("op", Kind.INTEGER, "int"));
    assertThat(RawSchema.check(SPEC, cols))
        .isEqualTo(
            new Problem(
                ReasonCode.INCOMPATIBLE_TYPE,
                "customer_id is double, expected text or integer; updated_at is bigint, expected"
                    + " timestamp or ISO-8601 text; op is int, expected text"));

    DatasetSpec sequenced =
        new DatasetSpec(
            "orders",
            null,
            List.of("order_id"),
            new ChangeMarker("seq", ChangeMarkerType.LONG),
            null,
            List.of(),
            RawSource.parquet("/raw/orders"),
            "crm.orders",
            null);
    assertThat(
            RawSchema.check(
                sequenced,
                List.of(
                    new Column("order_id", Kind.TEXT, "string"),
                    new Column("seq", Kind.TIMESTAMP, "timestamp"))))
        .isEqualTo(
            new Problem(
                ReasonCode.INCOMPATIBLE_TYPE,
                "seq is timestamp, expected integer or integer text"));
  }

  @Test
  void comparedColumnsKeepTheCuratedTablesType() {
    Map<String, String> table = Map.of("customer_name", "string", "email", "string");
    assertThat(
            RawSchema.checkCompared(
                SPEC, Map.of("customer_name", "string", "email", "string"), table))
        .isNull();
    assertThat(
            RawSchema.checkCompared(
                SPEC, Map.of("customer_name", "string", "email", "bigint"), table))
        .isEqualTo(new Problem(ReasonCode.INCOMPATIBLE_TYPE, "email is bigint, expected string"));
    assertThat(RawSchema.checkCompared(SPEC, Map.of("email", "bigint"), Map.of())).isNull();
  }
}
