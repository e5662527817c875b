package io.tidemark.model.contract.athena;

/**
 * How Athena's partition projection enumerates one partition key of a raw table: a date in the
 * folders' format ({@link DateProjection}) or an integer ({@link IntegerProjection}). Every
 * partition key is a {@value AthenaRawTable#PARTITION_KEY_TYPE} column of the table.
 */
public sealed interface PartitionProjection permits DateProjection, IntegerProjection {
  /** The partition key, a lower-case column name of the table. */
  String key();

  /** A regular expression matching the key's values as they appear in a folder path. */
  String valueRegex();
}
