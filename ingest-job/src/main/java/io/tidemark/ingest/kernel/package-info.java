/**
 * What every part of the job shares and nothing of the job is shared with: the failure type with
 * its code ({@link io.tidemark.ingest.kernel.IngestException}) and a look through causes, the
 * failure points and the stop request a run is driven by in drills and on SIGTERM, the run's
 * identity and its Spark resources, the log a run tells its story in, and the small shared types of
 * a batch: a raw file and its stamp, the working columns of the normalized records, what an
 * operation means, and quoted SQL names. It depends on no other package of the job, so that every
 * other can depend on it without a cycle.
 */
package io.tidemark.ingest.kernel;
