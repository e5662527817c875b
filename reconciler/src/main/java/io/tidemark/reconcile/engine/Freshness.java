package io.tidemark.reconcile.engine;

/**
 * How far the curated table is behind, in change-marker units: seconds for timestamp markers, the
 * sequence for long markers.
 *
 * @param newestCurated the newest curated change marker (epoch seconds or sequence); null when the
 *     table is empty
 * @param newestRaw the newest valid raw change marker up to the window end; null when there is none
 * @param lagBehindNow seconds curated is behind the reference time. Timestamp markers: since the
 *     newest curated marker (for an empty table while raw holds versions: since the oldest raw
 *     version). Sequence markers, which carry no time: since the oldest arrival (modification time)
 *     of a raw file holding a version newer than the newest curated sequence (any version, for an
 *     empty table), 0 when there is none
 * @param pending keys whose newest raw version is newer than the newest curated marker (a sample)
 * @param error why freshness could not be measured; null when it was
 * @param bytesScanned bytes the queries freshness read scanned, a query it shares with another rule
 *     included (see {@link Finding#bytesScanned()})
 */
public record Freshness(
    Double newestCurated,
    Double newestRaw,
    Double lagBehindNow,
    Finding pending,
    String error,
    long bytesScanned) {
  public Freshness {
    pending = pending == null ? Finding.of(0, java.util.List.of()) : pending;
  }

  public Freshness(
      Double newestCurated, Double newestRaw, Double lagBehindNow, Finding pending, String error) {
    this(newestCurated, newestRaw, lagBehindNow, pending, error, 0);
  }

  /** The same with {@code bytes} scanned. */
  public Freshness withBytesScanned(long bytes) {
    return new Freshness(newestCurated, newestRaw, lagBehindNow, pending, error, bytes);
  }

  /**
   * The seconds the {@code freshness} rule compares with its threshold, and the {@code
   * FreshnessLag} metric publishes, so the dashboard and the rule's alarm read one value: {@link
   * #lagBehindNow()} (since the newest curated change for timestamp markers, since the oldest
   * waiting raw file arrived for sequence markers); 0 when neither table holds a version.
   */
  public double behind() {
    if (newestCurated == null && newestRaw == null) {
      return 0;
    }
    if (lagBehindNow != null) {
      return lagBehindNow;
    }
    return newestCurated == null ? lagBehindRaw() : 0;
  }

  /**
   * How far the newest curated marker is behind the newest raw one; 0 when it is not; the newest
   * raw marker itself when the table is empty.
   */
  public double lagBehindRaw() {
    if (newestRaw == null) {
      return 0;
    }
    if (newestCurated == null) {
      return newestRaw;
    }
    return Math.max(0, newestRaw - newestCurated);
  }

  /**
   * Seconds from the oldest arrival among {@code files} to {@code now}, at least 0; 0 for no file.
   *
   * @param arrivals when each raw file read arrived, by its path as the engine names it
   */
  public static double sinceOldestArrival(
      java.util.Collection<String> files,
      java.util.Map<String, java.time.Instant> arrivals,
      java.time.Instant now) {
    java.time.Instant oldest = null;
    for (String f : files) {
      java.time.Instant a = arrivals.get(f);
      if (a == null) {
        throw new IllegalStateException(
            "Cannot measure freshness: raw file " + f + " was read but not listed");
      }
      oldest = oldest == null || a.isBefore(oldest) ? a : oldest;
    }
    if (oldest == null) {
      return 0;
    }
    return Math.max(0, java.time.Duration.between(oldest, now).toNanos() / 1e9);
  }

  public static Freshness failed(String error) {
    return new Freshness(null, null, null, null, error, 0);
  }

  /** Freshness that could not be measured, after its queries scanned {@code bytes}. */
  public static Freshness failed(String error, long bytes) {
    return new Freshness(null, null, null, null, error, bytes);
  }
}
