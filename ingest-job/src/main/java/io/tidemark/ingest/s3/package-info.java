/**
 * The run's own objects on S3 (run reports, the run lease): bucket and key of a location, and the
 * S3 client the catalog's properties describe. Reports and leases use it; it reads only the
 * settings.
 */
package io.tidemark.ingest.s3;
