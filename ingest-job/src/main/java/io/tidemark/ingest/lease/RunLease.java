package io.tidemark.ingest.lease;

import io.tidemark.model.json.Json;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A run's exclusive hold on a table, kept in one object of a {@link LeaseStore}: at most one run
 * works on the table while it holds the lease.
 *
 * <p>Taking it creates the object only if there is none; a lapsed lease (its holder crashed or hung
 * past {@code expiresAt}) is taken over by replacing the object only if it still has the version
 * that was read, so of two runs taking over at once exactly one wins. The holder renews it in the
 * background every third of its time to live, and once more, synchronously, just before it commits
 * ({@link #confirm()}): a run whose lease lapsed or was taken over does not commit. Releasing
 * deletes the object only if it is still this run's.
 */
public final class RunLease implements Lease, AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(RunLease.class);
  private static final int ATTEMPTS = 5;

  /** What trying to take the lease came to. */
  public sealed interface Attempt permits Taken, Held {}

  /** This run holds the lease; close it to release. */
  public record Taken(RunLease lease) implements Attempt {}

  /** Another run holds it. */
  public record Held(LeaseHolder holder, String location) implements Attempt {}

  /** The lease was lost: it lapsed without renewal or another run took it over. */
  public static final class LostException extends RuntimeException {
    LostException(String message) {
      super(message);
    }
  }

  private final LeaseStore store;
  private final Duration ttl;
  private final Clock clock;
  private final ScheduledExecutorService renewer;
  private LeaseHolder holder;
  private String version;
  private String lost;
  private boolean closed;

  private RunLease(
      LeaseStore store, LeaseHolder holder, String version, Duration ttl, Clock clock) {
    this.store = store;
    this.holder = holder;
    this.version = version;
    this.ttl = ttl;
    this.clock = clock;
    this.renewer =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "tidemark-lease-" + holder.runId());
              t.setDaemon(true);
              return t;
            });
    long every = Math.max(1, ttl.toMillis() / 3);
    renewer.scheduleWithFixedDelay(this::renewQuietly, every, every, TimeUnit.MILLISECONDS);
  }

  /**
   * Takes the lease for {@code runId} on {@code table}, or says who holds it.
   *
   * @throws IllegalStateException when the object there is not a lease, or it changed hands too
   *     often while trying
   */
  public static Attempt acquire(
      LeaseStore store,
      String runId,
      String dataset,
      String table,
      String host,
      Duration ttl,
      Clock clock) {
    Objects.requireNonNull(store, "store is null");
    if (ttl.isNegative() || ttl.isZero()) {
      throw new IllegalArgumentException("ttl must be positive: " + ttl);
    }
    for (int i = 0; i < ATTEMPTS; i++) {
      Instant now = clock.instant();
      LeaseHolder mine = new LeaseHolder(runId, dataset, table, host, now, now.plus(ttl));
      Optional<String> created = store.create(Json.write(mine));
      if (created.isPresent()) {
        LOG.info(
            "Run {} took the run lease {} until {}", runId, store.location(), mine.expiresAt());
        return new Taken(new RunLease(store, mine, created.get(), ttl, clock));
      }
      Optional<LeaseStore.Versioned> current = store.read();
      if (current.isEmpty()) {
        continue; // released between our create and read: try again
      }
      LeaseHolder other = parse(store, current.get().body());
      if (other.expiresAt().isAfter(now)) {
        return new Held(other, store.location());
      }
      Optional<String> taken = store.replace(Json.write(mine), current.get().version());
      if (taken.isPresent()) {
        LOG.warn(
            "Run {} took over the run lease {}: its holder, {}, let it lapse (crashed or hung)",
            runId,
            store.location(),
            other.describe());
        return new Taken(new RunLease(store, mine, taken.get(), ttl, clock));
      }
    }
    throw new IllegalStateException(
        "Cannot take the run lease "
            + store.location()
            + ": it changed hands "
            + ATTEMPTS
            + " times while this run tried");
  }

  private static LeaseHolder parse(LeaseStore store, String body) {
    try {
      return Json.read(body, LeaseHolder.class);
    } catch (RuntimeException e) {
      throw new IllegalStateException(
          "The run lease object "
              + store.location()
              + " is not a Tidemark run lease ("
              + e.getMessage()
              + "); if no ingest run is working on this table, delete it",
          e);
    }
  }

  /**
   * Renews the lease now; call just before a commit, so that the commit happens within a lease this
   * run verifiably holds.
   *
   * @throws LostException when the lease lapsed or another run took it over
   */
  @Override
  public synchronized void confirm() {
    if (closed) {
      throw new IllegalStateException("the run lease " + store.location() + " was released");
    }
    renew();
    if (lost != null) {
      throw new LostException(lost);
    }
  }

  private synchronized void renewQuietly() {
    try {
      renew();
    } catch (RuntimeException e) {
      LOG.warn(
          "Run {}: cannot renew the run lease {} (will retry; it lapses at {} otherwise): {}",
          holder.runId(),
          store.location(),
          holder.expiresAt(),
          e.toString());
    }
  }

  private void renew() {
    if (lost != null || closed) {
      return;
    }
    Instant now = clock.instant();
    if (!now.isBefore(holder.expiresAt())) {
      lost =
          "the run lease "
              + store.location()
              + " lapsed at "
              + holder.expiresAt()
              + " before this run renewed it; another run may have taken the table";
      LOG.error("Run {}: {}", holder.runId(), lost);
      return;
    }
    LeaseHolder renewed = holder.renewedUntil(now.plus(ttl));
    Optional<String> v = store.replace(Json.write(renewed), version);
    if (v.isEmpty()) {
      lost =
          "the run lease "
              + store.location()
              + " was taken over by another run or removed while this run held it";
      LOG.error("Run {}: {}", holder.runId(), lost);
      return;
    }
    holder = renewed;
    version = v.get();
  }

  /**
   * Stops renewing without releasing, as a crashed run would: the lease lapses at its expiry and
   * the next run takes it over then.
   */
  public synchronized void abandon() {
    closed = true;
    renewer.shutdownNow();
  }

  /** Stops renewing and deletes the lease object if it is still this run's. */
  @Override
  public synchronized void close() {
    closed = true;
    renewer.shutdownNow();
    if (lost != null) {
      return;
    }
    try {
      if (store.delete(version)) {
        LOG.info("Run {} released the run lease {}", holder.runId(), store.location());
      } else {
        LOG.warn(
            "Run {}: the run lease {} was no longer this run's when it released it",
            holder.runId(),
            store.location());
      }
    } catch (RuntimeException e) {
      LOG.warn(
          "Run {}: cannot release the run lease {} (it lapses at {}): {}",
          holder.runId(),
          store.location(),
          holder.expiresAt(),
          e.toString());
    }
  }
}
