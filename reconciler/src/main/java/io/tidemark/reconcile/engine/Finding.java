package io.tidemark.reconcile.engine;

import io.tidemark.model.report.ValueDiff;
import java.util.List;

/**
 * One measure's outcome: how many offending keys there are and a sorted, bounded sample of them
 * (composite keys joined by {@code |}), or why it could not be measured.
 *
 * @param count the number of offending keys
 * @param sample up to the request's sample size of them, in key order
 * @param error why the measure failed; null when it succeeded
 * @param bytesScanned bytes the measure's own queries scanned; 0 when the engine read everything
 *     once up front (the embedded engine) and counts it in {@link Observations#bytesScanned()} only
 * @param diff what the sample keys hold on each side ({@code engine.sql.ValueDiffs}); null when not
 *     shown
 */
public record Finding(
    long count, List<String> sample, String error, long bytesScanned, ValueDiff diff) {
  public Finding {
    sample = sample == null ? List.of() : List.copyOf(sample);
    if (bytesScanned < 0) {
      throw new IllegalArgumentException("bytesScanned is negative: " + bytesScanned);
    }
  }

  public Finding(long count, List<String> sample, String error, long bytesScanned) {
    this(count, sample, error, bytesScanned, null);
  }

  public Finding(long count, List<String> sample, String error) {
    this(count, sample, error, 0);
  }

  public static Finding of(long count, List<String> sample) {
    return new Finding(count, sample, null, 0);
  }

  public static Finding failed(String error) {
    return new Finding(0, List.of(), error, 0);
  }

  /** This finding, with the bytes its queries scanned. */
  public Finding withBytesScanned(long bytes) {
    return new Finding(count, sample, error, bytes, diff);
  }

  /** This finding, showing what its sample keys hold on each side. */
  public Finding withDiff(ValueDiff d) {
    return new Finding(count, sample, error, bytesScanned, d);
  }

  public boolean failed() {
    return error != null;
  }
}
