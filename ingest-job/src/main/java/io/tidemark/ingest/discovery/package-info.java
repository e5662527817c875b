/**
 * The discovery stage: a {@link io.tidemark.ingest.discovery.Layout} lists the raw files of the
 * partitions a batch can find new files in ({@link io.tidemark.ingest.discovery.PartitionLister}
 * for Hive-style {@code <column>=YYYY-MM-DD} folders, {@link
 * io.tidemark.ingest.discovery.ContractLayout} for every other layout a dataset contract declares,
 * through the contract module's listing), and every entry it cannot place is a stray entry; and
 * {@link io.tidemark.ingest.discovery.Discovery} tells new files from processed ones by their
 * stamps and fingerprints, into a {@link io.tidemark.ingest.discovery.DiscoveryResult}. Which files
 * count as processed is the caller's ({@link io.tidemark.ingest.discovery.ProcessedFiles}); a sweep
 * asks {@link io.tidemark.ingest.discovery.CommittedFiles}. It reads checkpoints, never writes
 * anything.
 */
package io.tidemark.ingest.discovery;
