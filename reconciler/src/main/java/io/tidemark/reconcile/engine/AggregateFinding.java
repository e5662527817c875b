package io.tidemark.reconcile.engine;

import io.tidemark.model.config.Aggregate;
import io.tidemark.model.config.ToleranceMode;
import java.math.BigDecimal;
import java.math.MathContext;
import java.time.Instant;
import java.time.LocalDate;
import java.util.List;
import java.util.Optional;

/**
 * What {@code aggregate_match} looks at: per compared column and aggregate, raw's value beside
 * curated's over the keys checked.
 *
 * @param values the aggregates computed; empty when none was (see {@code agreeing})
 * @param agreeing true when no aggregate was computed because every bucket of the compared rows
 *     agrees on both sides (row hashes summed per key bucket): the rows are the same, so every
 *     aggregate of them is too
 * @param error why the aggregates could not be computed; null when they were
 */
public record AggregateFinding(List<Value> values, boolean agreeing, String error) {
  public AggregateFinding {
    values = values == null ? List.of() : List.copyOf(values);
  }

  /** How a column's values are measured: what a difference between two aggregates is in. */
  public enum Unit {
    /** An integer or decimal: the difference as is, exact. */
    NUMBER,
    /** A date: the difference in days. */
    DAYS,
    /** A timestamp, held as epoch microseconds: the difference in seconds. */
    SECONDS,
    /** A count (count_distinct, null_count): the difference in rows. */
    COUNT
  }

  /**
   * One aggregate of one column on both sides, as text: numbers in plain notation, dates as ISO
   * dates, timestamps as epoch microseconds; null where a side has no value (a sum of no rows).
   */
  public record Value(String column, Aggregate aggregate, Unit unit, String raw, String curated) {

    /**
     * How far curated's value is from raw's: absolute, in the unit; or relative, |curated - raw| /
     * |raw| (1 when raw's is 0 or absent and curated's is not). A value on one side only differs by
     * the other's magnitude.
     */
    public double deviation(ToleranceMode mode) {
      BigDecimal r = number(raw);
      BigDecimal c = number(curated);
      if (r == null && c == null) {
        return 0;
      }
      BigDecimal diff = (c == null ? BigDecimal.ZERO : c).subtract(r == null ? BigDecimal.ZERO : r);
      diff = diff.abs();
      if (unit == Unit.SECONDS) {
        diff = diff.movePointLeft(6);
      }
      if (mode == ToleranceMode.RATIO) {
        if (r == null || r.signum() == 0) {
          return diff.signum() == 0 ? 0 : 1;
        }
        BigDecimal base = unit == Unit.SECONDS ? r.movePointLeft(6).abs() : r.abs();
        return diff.divide(base, MathContext.DECIMAL64).doubleValue();
      }
      return diff.doubleValue();
    }

    /** The value as a number in the unit's terms: days since the epoch for dates. */
    private BigDecimal number(String text) {
      if (text == null) {
        return null;
      }
      if (unit == Unit.DAYS) {
        return BigDecimal.valueOf(LocalDate.parse(text.trim()).toEpochDay());
      }
      return new BigDecimal(text.trim());
    }

    /** {@code amount sum: raw 1234.56, curated 1234.55}, timestamps shown as instants. */
    public String describe() {
      return column + " " + aggregate.id() + ": raw " + shown(raw) + ", curated " + shown(curated);
    }

    private String shown(String text) {
      if (text == null) {
        return "none";
      }
      if (unit == Unit.SECONDS) {
        long m = new BigDecimal(text.trim()).longValueExact();
        return Instant.ofEpochSecond(
                Math.floorDiv(m, 1_000_000L), Math.floorMod(m, 1_000_000L) * 1000)
            .toString();
      }
      if (unit == Unit.DAYS) {
        return LocalDate.parse(text.trim()).toString();
      }
      return new BigDecimal(text.trim()).toPlainString();
    }
  }

  /** Nothing computed: no rule matches aggregates. */
  public static final AggregateFinding NONE = new AggregateFinding(List.of(), false, null);

  /** Nothing computed because every bucket agrees. */
  public static AggregateFinding allAgree() {
    return new AggregateFinding(List.of(), true, null);
  }

  public static AggregateFinding of(List<Value> values) {
    return new AggregateFinding(values, false, null);
  }

  public static AggregateFinding failed(String error) {
    return new AggregateFinding(List.of(), false, error);
  }

  /** The value computed of a column's aggregate, if it was. */
  public Optional<Value> find(String column, Aggregate aggregate) {
    return values.stream()
        .filter(v -> v.column().equals(column) && v.aggregate() == aggregate)
        .findFirst();
  }
}
