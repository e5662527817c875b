/**
 * The run's settings, validated at construction ({@link io.tidemark.ingest.config.IngestSettings},
 * {@link io.tidemark.ingest.config.OperatorOptions}), durations as people write them, and the Spark
 * session properties the job relies on. Every stage reads its settings from here; this package
 * reads nothing but the kernel and the metrics publisher's own settings.
 */
package io.tidemark.ingest.config;
