package io.tidemark.model.testing;

import io.tidemark.model.config.ChangeMarker;
import io.tidemark.model.config.DatasetSpec;
import io.tidemark.model.config.RawSource;
import java.util.List;

/**
 * The demo's customers dataset in the older spec's shape, for tests of code that still takes a
 * {@link DatasetSpec}. A test fixture, never a default: production code gets its datasets from a
 * contract.
 */
public final class DemoSpecs {
  private DemoSpecs() {}

  /**
   * Customers keyed by {@code customer_id}, marked by {@code updated_at}, comparing name and email.
   */
  public static DatasetSpec customers(String rawLocation, String curatedTable) {
    return new DatasetSpec(
        "customers",
        null,
        List.of("customer_id"),
        ChangeMarker.timestamp("updated_at"),
        "op",
        List.of("customer_name", "email"),
        RawSource.parquet(rawLocation),
        curatedTable,
        null);
  }
}
