/**
 * The run reports on the state root: where they go, writing them atomically (on S3 with a
 * conditional create), checking the folder is writable before a commit, and rebuilding the report
 * of a run that committed but ended before writing it. Assembling a report from a run's stages is
 * the run's; this package does the I/O.
 */
package io.tidemark.ingest.report;
