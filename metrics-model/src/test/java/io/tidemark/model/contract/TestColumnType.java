package io.tidemark.model.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class TestColumnType {
  @Test
  void contractNamesParseInAnyCaseAndPrintAsWritten() {
    assertThat(ColumnType.parse("Decimal(12, 2)")).isEqualTo(ColumnType.decimal(12, 2));
    assertThat(ColumnType.parse("decimal(12,2)").toString()).isEqualTo("decimal(12,2)");
    assertThat(ColumnType.parse("LONG")).isEqualTo(ColumnType.LONG);
    assertThat(ColumnType.LONG.sqlName()).isEqualTo("bigint");
    assertThat(ColumnType.LONG.toString()).isEqualTo("long");
  }

  @Test
  void unknownTypesAreNamedWithTheAcceptedOnes() {
    assertThatThrownBy(() -> ColumnType.parse("double"))
        .hasMessage(
            "'double' is not a column type (string, int, long, decimal(p,s), date, timestamp,"
                + " boolean)");
    assertThatThrownBy(() -> ColumnType.parse("decimal(40,2)"))
        .hasMessage("'decimal(40,2)' is not a decimal type: precision 1..38, scale 0..precision");
    assertThatThrownBy(() -> ColumnType.parse("decimal(4,6)"))
        .hasMessageContaining("is not a decimal type");
  }

  @Test
  void engineTypesMapBack() {
    assertThat(ColumnType.fromSqlName("bigint")).isEqualTo(ColumnType.LONG);
    assertThat(ColumnType.fromSqlName("timestamp_ntz")).isEqualTo(ColumnType.TIMESTAMP);
    assertThat(ColumnType.fromSqlName("decimal(10,2)")).isEqualTo(ColumnType.decimal(10, 2));
    assertThat(ColumnType.fromSqlName("double")).isNull();
  }

  @Test
  void onlyLosslessWideningIsAccepted() {
    assertThat(ColumnType.LONG.accepts(ColumnType.INT)).isTrue();
    assertThat(ColumnType.INT.accepts(ColumnType.LONG)).isFalse();
    assertThat(ColumnType.decimal(12, 2).accepts(ColumnType.decimal(10, 2))).isTrue();
    assertThat(ColumnType.decimal(12, 2).accepts(ColumnType.decimal(12, 3))).isFalse();
    assertThat(ColumnType.decimal(12, 2).accepts(ColumnType.decimal(13, 2))).isFalse();
    assertThat(ColumnType.decimal(12, 0).accepts(ColumnType.INT)).isTrue();
    assertThat(ColumnType.decimal(9, 0).accepts(ColumnType.INT)).isFalse();
    assertThat(ColumnType.decimal(38, 0).accepts(ColumnType.LONG)).isTrue();
    assertThat(ColumnType.STRING.accepts(ColumnType.INT)).isFalse();
    assertThat(ColumnType.TIMESTAMP.accepts(ColumnType.DATE)).isFalse();
  }
}
