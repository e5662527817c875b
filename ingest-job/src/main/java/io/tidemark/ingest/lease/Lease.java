package io.tidemark.ingest.lease;

/**
 * What a commit needs of the run's lease: {@link #confirm()}, called just before the batch is
 * written to the run's branch and again just before it is published, so that a run whose lease
 * lapsed or was taken over commits nothing.
 */
@FunctionalInterface
public interface Lease {
  /** A run that takes no lease (a local state root, or {@code --lease-ttl 0}). */
  Lease NONE = () -> {};

  /**
   * Renews the lease now, synchronously.
   *
   * @throws RunLease.LostException when the lease lapsed or another run took it over
   */
  void confirm();
}
