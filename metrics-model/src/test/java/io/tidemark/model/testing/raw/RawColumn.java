package io.tidemark.model.testing.raw;

import java.util.List;
import java.util.regex.Pattern;

/**
 * One column of a raw file the test kit writes: its name and the DuckDB type it is stored as, which
 * fixes its Parquet type ({@code VARCHAR} a string, {@code TIMESTAMPTZ} a UTC-adjusted INT64
 * timestamp as most exports write it, {@code TIMESTAMP} one without zone as DMS writes it, {@code
 * DECIMAL(12,2)}, {@code INTEGER}, {@code BIGINT}, {@code DATE}, {@code BOOLEAN}).
 */
public record RawColumn(String name, String type) {
  private static final Pattern NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");
  private static final Pattern TYPE = Pattern.compile("[A-Z][A-Z_]*(\\(\\d+(, ?\\d+)?\\))?");

  public RawColumn {
    if (!NAME.matcher(name).matches()) {
      throw new IllegalArgumentException("raw column name '" + name + "' is not an identifier");
    }
    if (!TYPE.matcher(type).matches()) {
      throw new IllegalArgumentException("raw column type '" + type + "' is not a DuckDB type");
    }
  }

  public static RawColumn of(String name, String type) {
    return new RawColumn(name, type);
  }

  /** The demo's customers file: key, name, email, a UTC change marker and an operation. */
  public static final List<RawColumn> CUSTOMERS =
      List.of(
          of("customer_id", "VARCHAR"),
          of("customer_name", "VARCHAR"),
          of("email", "VARCHAR"),
          of("updated_at", "TIMESTAMPTZ"),
          of("op", "VARCHAR"));

  /** The customers file with a change marker without zone (naive timestamps, as DMS writes). */
  public static final List<RawColumn> CUSTOMERS_NAIVE =
      List.of(
          of("customer_id", "VARCHAR"),
          of("customer_name", "VARCHAR"),
          of("email", "VARCHAR"),
          of("updated_at", "TIMESTAMP"),
          of("op", "VARCHAR"));

  /** The same columns with {@code column} added at the end. */
  public static List<RawColumn> plus(List<RawColumn> columns, RawColumn column) {
    List<RawColumn> out = new java.util.ArrayList<>(columns);
    out.add(column);
    return List.copyOf(out);
  }
}
