package io.tidemark.model.contract;

import io.tidemark.model.config.DatasetSpec;
import io.tidemark.model.config.RawSource;
import io.tidemark.model.contract.layout.Layout;

/**
 * A dataset contract as the older {@link DatasetSpec} record that code written before contracts
 * still takes (the reconciler's SQL, the raw-schema checks): the same names, read from the
 * contract, so the two can never disagree. Everything the spec cannot say (types, layout, the
 * operation mapping) stays on the contract.
 */
public final class DatasetSpecs {
  private DatasetSpecs() {}

  /** The spec of a contract: its key, marker, operation column, compared columns and tables. */
  public static DatasetSpec of(DatasetContract c) {
    return new DatasetSpec(
        c.name(),
        c.pipeline(),
        c.keyColumns(),
        c.changeMarker(),
        c.operationColumn(),
        c.comparedColumns(),
        new RawSource(c.raw().location(), partitionColumn(c.raw().layout()), c.raw().format()),
        c.curatedTable(),
        c.quarantineTable());
  }

  /**
   * The column Hive-style folders name ({@code ingest_date} in {@code ingest_date=YYYY-MM-DD});
   * null (the spec's default) for other layouts, whose folders name no column.
   */
  public static String partitionColumn(Layout layout) {
    if (layout instanceof Layout.Dated dated && dated.kind().equals(Layout.HIVE)) {
      String pattern = dated.folders().pattern();
      return pattern.substring(0, pattern.indexOf('='));
    }
    return null;
  }
}
