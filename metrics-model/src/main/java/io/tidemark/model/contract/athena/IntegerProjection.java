package io.tidemark.model.contract.athena;

import java.util.Objects;

/**
 * An integer partition key: an hour folder of its own below the day's ({@code YYYY/MM/DD/HH}), as
 * AWS's Firehose example splits it (Athena's date projection takes one key).
 *
 * @param key the key
 * @param min the smallest value
 * @param max the largest value
 * @param digits how many digits a value is written with (leading zeros)
 */
public record IntegerProjection(String key, int min, int max, int digits)
    implements PartitionProjection {
  public IntegerProjection {
    Objects.requireNonNull(key, "key is null");
    if (min > max || digits < 1) {
      throw new IllegalArgumentException(
          "Cannot project " + key + " over " + min + ".." + max + " in " + digits + " digits");
    }
  }

  /** Athena's {@code projection.<key>.range}: {@code min,max}. */
  public String range() {
    return min + "," + max;
  }

  @Override
  public String valueRegex() {
    return "\\d{" + digits + "}";
  }
}
