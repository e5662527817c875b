package io.tidemark.model.contract;

import io.tidemark.model.config.CatalogSpec;
import io.tidemark.model.config.RawSource;
import java.time.Duration;

/** Defaults both halves must share, so that a setting left out means the same on each side. */
public final class ContractDefaults {
  /**
   * How far past "now" a timestamp change marker may be and still be valid (producer clock skew). A
   * later marker is {@link ReasonCode#FUTURE_CHANGE_MARKER}.
   */
  public static final Duration FUTURE_TOLERANCE = Duration.ofHours(1);

  /** {@link #FUTURE_TOLERANCE} as configuration text. */
  public static final String FUTURE_TOLERANCE_TEXT = "PT1H";

  /** The Iceberg catalog's name when none is configured. */
  public static final String CATALOG_NAME = CatalogSpec.NAME_DEFAULT;

  /** The raw layer's date-partition folder name when none is configured. */
  public static final String PARTITION_COLUMN = RawSource.PARTITION_COLUMN_DEFAULT;

  private ContractDefaults() {}
}
