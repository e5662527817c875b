package io.tidemark.ingest.validate;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.concat;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.when;

import io.tidemark.ingest.kernel.Cols;
import io.tidemark.ingest.kernel.Operations;
import io.tidemark.model.contract.RawKeys;
import io.tidemark.model.contract.ReasonCode;
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
   * wins, in this order: key null or blank, key malformed (see {@link RawKeys}), marker missing,
   * marker unparseable, marker in the future, operation.
   *
   * @param rows normalized rows: key columns (text), {@link Cols#MARKER}, {@link
   *     Cols#MARKER_PRESENT}, {@link Cols#OP}
   * @param futureLimit a marker above this is in the future; null to skip the check (sequences)
   */
  public static Dataset<Row> classify(
      Dataset<Row> rows, List<String> keyColumns, Column futureLimit) {
    Column blankKey = lit(false);
    Column malformedKey = lit(false);
    for (String k : keyColumns) {
      Column text = col(k).cast(DataTypes.StringType);
      blankKey = blankKey.or(text.isNull()).or(text.rlike(RawKeys.BLANK_PATTERN));
      malformedKey = malformedKey.or(text.rlike(RawKeys.MALFORMED_PATTERN));
    }
    Column future = futureLimit == null ? lit(false) : col(Cols.MARKER).gt(futureLimit);
    Column op = col(Cols.OP);
    Column badOp = Operations.isUnknown(op);
    Column reason =
        when(blankKey, lit(ReasonCode.NULL_KEY.name()))
            .when(malformedKey, ReasonCode.MALFORMED_KEY.name())
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
        when(blankKey, lit("key " + keyColumns + " is null or blank"))
            .when(
                malformedKey,
                lit(
                    "key "
                        + keyColumns
                        + " has a control or invisible character, or surrounding white space"))
            .when(col(Cols.MARKER_PRESENT).equalTo(false), lit("change marker is null"))
            .when(col(Cols.MARKER).isNull(), lit("change marker does not parse"))
            .when(future, futureDetail)
            .when(
                badOp,
                concat(
                    lit("operation '"),
                    Operations.rawValue(op),
                    lit("' is not a value the contract maps to upsert or delete")));
    return rows.withColumn(Cols.REASON, reason).withColumn(Cols.DETAIL, detail);
  }
}
