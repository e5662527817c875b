/**
 * The validation stage: a {@link io.tidemark.ingest.validate.BatchSource} gives records in the
 * normalized shape, from raw Parquet files under the schema-drift policy ({@link
 * io.tidemark.ingest.validate.RawReader}, {@link io.tidemark.ingest.validate.RawFiles}) or from the
 * quarantine ({@link io.tidemark.ingest.validate.QuarantinedRecords}); {@link
 * io.tidemark.ingest.validate.BatchValidator} classifies them ({@link
 * io.tidemark.ingest.validate.Validation}), ranks the versions of each key and counts it all in one
 * pass, into a {@link io.tidemark.ingest.validate.ValidatedBatch}. The transformations are pure
 * functions of Datasets; reading files is the sources' edge.
 */
package io.tidemark.ingest.validate;
