package io.tidemark.ingest.validate;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.concat;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.trim;
import static org.apache.spark.sql.functions.when;

import io.tidemark.model.config.DatasetSpec;
import java.util.List;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.types.DataTypes;

/** Record-level validation: pure functions from a normalized batch to a classified one. */
public final class Validation {
  private Validation() {}

  /**
   * Adds {@link Cols#REASON} (null when valid) and {@link Cols#DETAIL}. The first failing check
   * wins, in this order: key, marker missing, marker unparseable, marker in the future, operation.
   *
   * @param rows normalized rows: key columns, {@link Cols#MARKER}, {@link Cols#MARKER_PRESENT},
   *     {@link Cols#OP}
   * @param futureLimit a marker above this is in the future; null to skip the check (sequences)
   */
  public static Dataset<Row> classify(
      Dataset<Row> rows, List<String> keyColumns, Column futureLimit) {
    Column badKey = lit(false);
    for (String k : keyColumns) {
      Column c = col(k);
      Column bad = c.isNull();
      if (rows.schema().apply(k).dataType().equals(DataTypes.StringType)) {
        bad = bad.or(trim(c).equalTo(""));
      }
      badKey = badKey.or(bad);
    }
    Column future = futureLimit == null ? lit(false) : col(Cols.MARKER).gt(futureLimit);
    Column op = col(Cols.OP);
    Column badOp =
        op.notEqual(DatasetSpec.OPERATION_UPSERT).and(op.notEqual(DatasetSpec.OPERATION_DELETE));
    Column reason =
        when(badKey, lit(ReasonCode.NULL_KEY.name()))
            .when(col(Cols.MARKER_PRESENT).equalTo(false), ReasonCode.MISSING_CHANGE_MARKER.name())
            .when(col(Cols.MARKER).isNull(), ReasonCode.UNPARSEABLE_CHANGE_MARKER.name())
            .when(future, ReasonCode.FUTURE_CHANGE_MARKER.name())
            .when(badOp, ReasonCode.UNKNOWN_OPERATION.name());
    Column futureDetail =
        futureLimit == null
            ? lit("")
            : concat(
                lit("change marker is later than now plus the tolerance ("),
                futureLimit.cast("string"),
                lit(")"));
    Column detail =
        when(badKey, lit("key " + keyColumns + " is null or blank"))
            .when(col(Cols.MARKER_PRESENT).equalTo(false), lit("change marker is null"))
            .when(col(Cols.MARKER).isNull(), lit("change marker does not parse"))
            .when(future, futureDetail)
            .when(badOp, concat(lit("operation '"), op, lit("' is not U or D")));
    return rows.withColumn(Cols.REASON, reason).withColumn(Cols.DETAIL, detail);
  }
}
