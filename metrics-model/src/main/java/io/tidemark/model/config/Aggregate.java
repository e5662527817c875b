package io.tidemark.model.config;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import io.tidemark.model.json.InvalidDocumentException;
import java.util.Arrays;

/**
 * What {@code aggregate_match} computes of a column on each side: raw's latest valid live versions
 * against curated's rows.
 */
public enum Aggregate {
  /** The sum, exact: integers and decimals are summed as DECIMAL(38, scale). Numbers only. */
  SUM("sum"),
  /** The smallest value. Numbers, dates and timestamps. */
  MIN("min"),
  /** The largest value. Numbers, dates and timestamps. */
  MAX("max"),
  /** How many distinct non-null values. Any column. */
  COUNT_DISTINCT("count_distinct"),
  /** How many rows hold NULL. Any column. */
  NULL_COUNT("null_count");

  private final String id;

  Aggregate(String id) {
    this.id = id;
  }

  @JsonValue
  public String id() {
    return id;
  }

  /**
   * Whether the aggregate needs numbers ({@link #SUM}) or an order ({@link #MIN}, {@link #MAX}).
   */
  public boolean needsNumbers() {
    return this == SUM;
  }

  public boolean needsOrder() {
    return this == MIN || this == MAX;
  }

  @JsonCreator
  public static Aggregate fromId(String id) {
    for (Aggregate a : values()) {
      if (a.id.equals(id) || a.name().equals(id)) {
        return a;
      }
    }
    throw new InvalidDocumentException(
        "aggregates",
        id,
        "unknown aggregate (known: " + Arrays.stream(values()).map(Aggregate::id).toList() + ")");
  }
}
