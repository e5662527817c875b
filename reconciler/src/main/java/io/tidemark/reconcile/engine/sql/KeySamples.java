package io.tidemark.reconcile.engine.sql;

import io.tidemark.reconcile.engine.Finding;
import java.util.List;

/** Turns the rows of a key measure's count and sample into a {@link Finding}, for every engine. */
public final class KeySamples {
  private KeySamples() {}

  /**
   * The finding of {@link ReconciliationSql#countAndSample}'s rows: {@code (total, key)} each; no
   * row, no key.
   *
   * @param bytes the bytes its query scanned
   */
  public static Finding finding(List<List<String>> rows, long bytes) {
    long total = rows.isEmpty() ? 0 : number(rows.get(0).get(0));
    List<String> sample = rows.stream().map(r -> r.get(1)).toList();
    return new Finding(total, sample, null, bytes);
  }

  /**
   * The finding of {@link ReconciliationSql#count} and {@link ReconciliationSql#sample}, run one
   * after the other: no keys, no sample (the query is not run again for nothing).
   */
  public static <E extends Exception> Finding finding(long count, Sampler<E> sample) throws E {
    return count == 0 ? Finding.of(0, List.of()) : Finding.of(count, sample.keys());
  }

  /** Runs a sample query. */
  @FunctionalInterface
  public interface Sampler<E extends Exception> {
    List<String> keys() throws E;
  }

  /** A number a query returned as text; 0 for NULL. */
  public static long number(String s) {
    Long v = nullableNumber(s);
    return v == null ? 0 : v;
  }

  /** A number a query returned as text; null for NULL. */
  public static Long nullableNumber(String s) {
    return s == null ? null : Long.parseLong(s.trim());
  }
}
