package io.tidemark.ingest.run;

import io.tidemark.ingest.config.IngestSettings;
import io.tidemark.ingest.kernel.IngestException;
import io.tidemark.ingest.kernel.RunLog;
import io.tidemark.ingest.lease.Lease;
import io.tidemark.ingest.lease.LeaseStore;
import io.tidemark.ingest.lease.RunLease;
import io.tidemark.ingest.lease.RunLeases;
import io.tidemark.model.contract.DatasetContract;
import io.tidemark.model.report.IngestErrorCode;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;

/**
 * The run's lease on the table (see {@link RunLeases}): taken before anything else, confirmed by
 * the commit stage before it writes and before it publishes, released once the report is written.
 */
final class LeaseStep {
  private final IngestSettings settings;
  private final RunTrail trail;
  private LeaseStore store;
  private RunLease lease;

  LeaseStep(IngestSettings settings, RunTrail trail) {
    this.settings = settings;
    this.trail = trail;
  }

  /**
   * Takes the table's run lease when the run takes one; false (and the run ended {@link
   * io.tidemark.model.report.IngestStatus#LEASE_HELD}) when another run holds it.
   */
  boolean take() {
    store = RunLeases.store(settings).orElse(null);
    if (store == null) {
      return true;
    }
    DatasetContract spec = settings.dataset();
    String host = hostName();
    Duration ttl = settings.leaseTtl();
    RunLease.Attempt attempt;
    try {
      attempt =
          RunLease.acquire(
              store, trail.runId(), spec.name(), spec.curatedTable(), host, ttl, Clock.systemUTC());
    } catch (RuntimeException e) {
      String what = "the run lease " + store.location() + " on " + spec.curatedTable();
      throw new IngestException(IngestErrorCode.IO_FAILED, "Cannot take " + what + ": " + e, e);
    }
    if (attempt instanceof RunLease.Held held) {
      String message =
          "Another run holds the run lease "
              + held.location()
              + ": "
              + held.holder().describe()
              + "; this run did nothing and leaves the table to it";
      RunLog.LOG.info("Run {}: {}", trail.runId(), message);
      trail.ended(Ending.leaseHeld(message));
      return false;
    }
    lease = ((RunLease.Taken) attempt).lease();
    return true;
  }

  /** What the commit confirms: this run's lease, or none. */
  Lease lease() {
    return lease == null ? Lease.NONE : lease;
  }

  /** Stops renewing without releasing, as a crashed run would. */
  void abandon() {
    if (lease != null) {
      lease.abandon();
    }
  }

  /** Releases the lease and the store's client. */
  void release() {
    if (lease != null) {
      lease.close();
      lease = null;
    }
    if (store != null) {
      store.close();
    }
  }

  private static String hostName() {
    String env = System.getenv("HOSTNAME");
    if (env != null && !env.isBlank()) {
      return env;
    }
    try {
      return java.net.InetAddress.getLocalHost().getHostName();
    } catch (IOException e) {
      return null;
    }
  }
}
