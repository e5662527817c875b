package io.tidemark.ingest.kernel;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;

/**
 * Where one run's time goes: the elapsed time of each stage, by name, in the order the run reached
 * them (a stage timed twice adds up). Measured on the monotonic clock, never the run's own clock,
 * which tests fix. A stage that throws counts until it threw.
 */
public final class RunPhases {
  private final Map<String, Long> nanos = new LinkedHashMap<>();

  /** Runs {@code work} as stage {@code phase} and returns what it returns. */
  public <T> T time(String phase, Supplier<T> work) {
    long started = System.nanoTime();
    try {
      return work.get();
    } finally {
      nanos.merge(phase, System.nanoTime() - started, Long::sum);
    }
  }

  /** Runs {@code work} as stage {@code phase}. */
  public void time(String phase, Runnable work) {
    time(
        phase,
        () -> {
          work.run();
          return null;
        });
  }

  /** Each stage's time so far in milliseconds, in the order the stages were reached. */
  public Map<String, Long> millis() {
    Map<String, Long> out = new LinkedHashMap<>();
    nanos.forEach((phase, n) -> out.put(phase, n / 1_000_000));
    return Collections.unmodifiableMap(out);
  }

  /** {@code read 0.90 s, plan 1.10 s, ...}: for the run's last log line. */
  public static String describe(Map<String, Long> millis) {
    StringBuilder b = new StringBuilder();
    millis.forEach(
        (phase, ms) ->
            b.append(b.isEmpty() ? "" : ", ")
                .append(phase)
                .append(' ')
                .append(String.format(java.util.Locale.ROOT, "%.2f s", ms / 1000.0)));
    return b.toString();
  }
}
