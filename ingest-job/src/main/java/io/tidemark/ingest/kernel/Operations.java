package io.tidemark.ingest.kernel;

import static org.apache.spark.sql.functions.concat;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.regexp_replace;
import static org.apache.spark.sql.functions.when;

import io.tidemark.model.contract.OperationMapping;
import org.apache.spark.sql.Column;

/**
 * What a raw row's operation means, in one place. The contract's {@link OperationMapping} says
 * which raw values upsert and which delete (e.g. DMS's {@code I}, {@code U} and {@code D}); the
 * normalized batch carries the meaning in {@link Cols#OP} as {@value #UPSERT} or {@value #DELETE},
 * and a row without one (no operation column, or a null) is an upsert. A value the mapping does not
 * name is carried as {@value #UNMAPPED_PREFIX}{@code <value>}, so that it can never pass for a
 * mapped one and validation quarantines it naming the value. Reading, validation, deduplication,
 * planning and the MERGE all ask here.
 */
public final class Operations {
  /** The normalized operation that inserts or updates the key. */
  public static final String UPSERT = "U";

  /** The normalized operation that deletes the key. */
  public static final String DELETE = "D";

  /** What precedes an unmapped raw value in {@link Cols#OP}. */
  public static final String UNMAPPED_PREFIX = "?";

  private Operations() {}

  /** The normalized operation of a row whose source has the operation column. */
  public static Column of(Column raw, OperationMapping mapping) {
    return when(raw.isNull(), lit(UPSERT))
        .when(raw.isin(mapping.upsert().toArray()), lit(UPSERT))
        .when(raw.isin(mapping.delete().toArray()), lit(DELETE))
        .otherwise(concat(lit(UNMAPPED_PREFIX), raw));
  }

  /** The operation of a row whose source has no operation column (a DMS full load). */
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

  /** The raw value of an unknown operation, for messages. */
  public static Column rawValue(Column op) {
    return regexp_replace(op, "^\\" + UNMAPPED_PREFIX, "");
  }
}
