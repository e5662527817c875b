package io.tidemark.ingest.validate;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.from_json;
import static org.apache.spark.sql.functions.lit;

import io.tidemark.ingest.kernel.Cols;
import io.tidemark.ingest.kernel.Operations;
import io.tidemark.model.config.ChangeMarkerType;
import io.tidemark.model.contract.DatasetContract;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * Quarantined records to judge again: quarantine rows rebuilt from their {@code original_values}
 * into the shape {@link RawReader} produces, so that they are validated, deduplicated and planned
 * as the records of raw files are. Every record is a candidate, and none is late (a replay moves no
 * watermark).
 */
public final class QuarantinedRecords implements BatchSource {
  /** The reason the record was quarantined with. */
  public static final String ORIGINAL_REASON = "_quarantined_reason";

  /** The batch that quarantined the record. */
  public static final String ORIGINAL_BATCH = "_quarantined_batch";

  private static final String PARSED = "_parsed";

  private final DatasetContract spec;
  private final Dataset<Row> records;
  private final Map<String, DataType> types;

  /**
   * @param records quarantine rows with values ({@code batch_id}, {@code source_file}, {@code
   *     row_number}, {@code reason}, {@code original_values})
   * @param types the curated table's key and payload column types
   */
  public QuarantinedRecords(
      DatasetContract spec, Dataset<Row> records, Map<String, DataType> types) {
    this.spec = spec;
    this.records = records;
    this.types = types;
  }

  @Override
  public NormalizedBatch read(Map<String, String> unreadable) {
    Dataset<Row> normalized =
        records
            .withColumn(PARSED, from_json(col("original_values"), jsonSchema()))
            .select(columns().toArray(Column[]::new));
    return new NormalizedBatch(normalized, null, List.of(), List.of(), types);
  }

  /** Nothing to set aside: the records were read once already. */
  @Override
  public Map<String, String> findUnreadable() {
    return Map.of();
  }

  @Override
  public Column candidate() {
    return lit(true);
  }

  @Override
  public Column late() {
    return lit(false);
  }

  /**
   * Keys and marker as text (a JSON number comes back as its digits), as the raw reader sees a text
   * column; compared columns with the curated table's types.
   */
  private StructType jsonSchema() {
    Map<String, DataType> fields = new LinkedHashMap<>();
    spec.keyColumns().forEach(k -> fields.put(k, DataTypes.StringType));
    spec.payloadColumns().forEach(c -> fields.putIfAbsent(c, types.get(c)));
    fields.put(spec.changeMarker().column(), DataTypes.StringType);
    if (spec.operationColumn() != null) {
      fields.putIfAbsent(spec.operationColumn(), DataTypes.StringType);
    }
    StructType json = new StructType();
    for (Map.Entry<String, DataType> f : fields.entrySet()) {
      json = json.add(f.getKey(), f.getValue());
    }
    return json;
  }

  private List<Column> columns() {
    Column parsed = col(PARSED);
    String marker = spec.changeMarker().column();
    String op = spec.operationColumn();
    List<Column> select = new ArrayList<>();
    spec.keyColumns().forEach(k -> select.add(parsed.getField(k).as(k)));
    spec.payloadColumns().forEach(c -> select.add(parsed.getField(c).as(c)));
    select.add(parsed.getField(marker).isNotNull().as(Cols.MARKER_PRESENT));
    select.add(
        parsed
            .getField(marker)
            .try_cast(
                spec.changeMarker().type() == ChangeMarkerType.TIMESTAMP
                    ? DataTypes.TimestampType
                    : DataTypes.LongType)
            .as(Cols.MARKER));
    select.add(
        (op == null ? Operations.absent() : Operations.of(parsed.getField(op), spec.operation()))
            .as(Cols.OP));
    select.add(col("source_file").as(Cols.SOURCE_FILE));
    select.add(col("row_number").as(Cols.ROW_INDEX));
    select.add(col("original_values").as(Cols.ORIGINAL));
    select.add(lit(true).as(Cols.NEW_FILE));
    select.add(col("reason").as(ORIGINAL_REASON));
    select.add(col("batch_id").as(ORIGINAL_BATCH));
    return select;
  }
}
