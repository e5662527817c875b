/**
 * The run lease: at most one run works on a table, held in one object written with conditional
 * writes ({@link io.tidemark.ingest.lease.LeaseStore}, on S3 {@link
 * io.tidemark.ingest.lease.S3LeaseStore}), renewed in the background and confirmed before a commit
 * ({@link io.tidemark.ingest.lease.Lease}). It reads the settings and the S3 helpers.
 */
package io.tidemark.ingest.lease;
