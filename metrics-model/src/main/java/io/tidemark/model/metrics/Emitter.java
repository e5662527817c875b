package io.tidemark.model.metrics;

/** Which half of Tidemark emits a metric. */
public enum Emitter {
  INGEST_JOB,
  RECONCILER
}
