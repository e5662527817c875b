/**
 * The planning stage: deduplication ({@link io.tidemark.ingest.merge.Dedup}) and the version guard
 * decided before anything is written ({@link io.tidemark.ingest.merge.MergePlanner}), both pure
 * functions of Datasets, and {@link io.tidemark.ingest.merge.MergePlanning}, which reads the
 * curated table and its remembered deletes as the {@link io.tidemark.ingest.merge.MergeBasis} says
 * and counts the actions into a {@link io.tidemark.ingest.merge.MergePlan}. Validation ranks with
 * it; it knows nothing of how records were read.
 */
package io.tidemark.ingest.merge;
