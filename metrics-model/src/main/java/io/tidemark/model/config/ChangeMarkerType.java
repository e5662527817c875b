package io.tidemark.model.config;

import java.time.Instant;
import java.time.format.DateTimeParseException;

/** How a dataset orders versions of a record. */
public enum ChangeMarkerType {
  /** A UTC timestamp column; watermarks are ISO-8601 instants. */
  TIMESTAMP,
  /** A long sequence (LSN, CDC offset); watermarks are decimal numbers. */
  LONG;

  /**
   * The number a watermark is published as: epoch seconds for timestamps, the value itself for
   * sequences.
   *
   * @throws IllegalArgumentException naming the value when it does not parse
   */
  public double metricValue(String watermark) {
    try {
      return switch (this) {
        case TIMESTAMP -> Instant.parse(watermark).getEpochSecond();
        case LONG -> Long.parseLong(watermark);
      };
    } catch (DateTimeParseException | NumberFormatException e) {
      throw new IllegalArgumentException(
          "Cannot read watermark '" + watermark + "' as " + this + ": " + e.getMessage(), e);
    }
  }
}
