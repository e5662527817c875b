package io.tidemark.reconcile.engine.sql;

import io.tidemark.reconcile.engine.EngineRequest;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;

/**
 * A request's window in the units the statements compare: epoch microseconds for timestamp markers,
 * partition dates for sequences.
 *
 * @param fromMicros window start (exclusive), epoch microseconds; null when open
 * @param toMicros window end (inclusive), epoch microseconds
 * @param fromDate window start's date ({@code YYYY-MM-DD}); null when open
 * @param toDate window end's date
 */
public record Window(Long fromMicros, long toMicros, String fromDate, String toDate) {
  /** The window of a request. */
  public static Window of(EngineRequest r) {
    return new Window(
        r.from() == null ? null : micros(r.from()),
        micros(r.to()),
        r.from() == null ? null : date(r.from()).toString(),
        date(r.to()).toString());
  }

  /** Epoch microseconds of an instant. */
  public static long micros(Instant i) {
    return ChronoUnit.MICROS.between(Instant.EPOCH, i);
  }

  /** The UTC date of an instant. */
  public static LocalDate date(Instant i) {
    return LocalDate.ofInstant(i, ZoneOffset.UTC);
  }
}
