package io.tidemark.reconcile.engine;

import java.util.List;

/**
 * One measure's outcome: how many offending keys there are and a sorted, bounded sample of them
 * (composite keys joined by {@code |}), or why it could not be measured.
 *
 * @param count the number of offending keys
 * @param sample up to the request's sample size of them, in key order
 * @param error why the measure failed; null when it succeeded
 */
public record Finding(long count, List<String> sample, String error) {
  public Finding {
    sample = sample == null ? List.of() : List.copyOf(sample);
  }

  public static Finding of(long count, List<String> sample) {
    return new Finding(count, sample, null);
  }

  public static Finding failed(String error) {
    return new Finding(0, List.of(), error);
  }

  public boolean failed() {
    return error != null;
  }
}
