package io.tidemark.ingest.kernel;

import io.tidemark.model.config.ChangeMarkerType;
import io.tidemark.model.contract.ColumnType;
import io.tidemark.model.contract.DatasetContract;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;

/**
 * The Spark types the contract declares: what raw columns are read as and what the curated table
 * holds. Keys stay text (see {@code RawKeys}: both halves compare keys as text, an integer key as
 * its digits); the change marker is a timestamp or a sequence ({@code bigint}); every other column
 * takes its declared type ({@code decimal(12,2)} exactly, never a floating-point number).
 */
public final class DeclaredTypes {
  private DeclaredTypes() {}

  /** Spark's type for a contract type. */
  public static DataType spark(ColumnType t) {
    return switch (t.kind()) {
      case STRING -> DataTypes.StringType;
      case INT -> DataTypes.IntegerType;
      case LONG -> DataTypes.LongType;
      case DECIMAL -> DataTypes.createDecimalType(t.precision(), t.scale());
      case DATE -> DataTypes.DateType;
      case TIMESTAMP -> DataTypes.TimestampType;
      case BOOLEAN -> DataTypes.BooleanType;
    };
  }

  /** The change marker's Spark type. */
  public static DataType marker(DatasetContract c) {
    return c.changeMarker().type() == ChangeMarkerType.TIMESTAMP
        ? DataTypes.TimestampType
        : DataTypes.LongType;
  }

  /** The key and payload columns' Spark types, keys first: as the curated table holds them. */
  public static Map<String, DataType> keysAndPayload(DatasetContract c) {
    Map<String, DataType> out = new LinkedHashMap<>();
    c.keyColumns().forEach(k -> out.put(k, DataTypes.StringType));
    c.payloadColumns().forEach(p -> out.put(p, spark(c.columns().get(p))));
    return out;
  }
}
