package io.tidemark.ingest.kernel;

import static org.apache.spark.sql.functions.coalesce;
import static org.apache.spark.sql.functions.lit;

import io.tidemark.model.config.DatasetSpec;
import org.apache.spark.sql.Column;

/**
 * What a raw row's operation means, in one place: {@value #UPSERT} upserts the key, {@value
 * #DELETE} deletes it, and a row without one (no operation column, or a null) is an upsert. The
 * normalized batch carries the operation in {@link Cols#OP}, as one of these two letters once
 * validated; reading, validation, deduplication, planning and the MERGE all ask here.
 */
public final class Operations {
  /** The operation that inserts or updates the key. */
  public static final String UPSERT = DatasetSpec.OPERATION_UPSERT;

  /** The operation that deletes the key. */
  public static final String DELETE = DatasetSpec.OPERATION_DELETE;

  private Operations() {}

  /** The operation of a row whose source has an operation column: its value, upsert when null. */
  public static Column of(Column raw) {
    return coalesce(raw, lit(UPSERT));
  }

  /** The operation of a row whose source has no operation column. */
  public static Column absent() {
    return lit(UPSERT);
  }

  /** Whether the (normalized) operation deletes the key. */
  public static Column isDelete(Column op) {
    return op.equalTo(DELETE);
  }

  /** Whether the operation is neither an upsert nor a delete: the row is invalid. */
  public static Column isUnknown(Column op) {
    return op.notEqual(UPSERT).and(op.notEqual(DELETE));
  }
}
