package io.tidemark.reconcile.engine;

import io.tidemark.model.config.CatalogSpec;
import io.tidemark.model.contract.DatasetContract;
import java.util.Objects;

/**
 * A dataset that a {@code referential_integrity} rule of the reconciled dataset references: the
 * rule reads the live keys of its curated table, at its current snapshot.
 *
 * @param contract the referenced dataset's contract
 * @param catalog where its curated table is
 */
public record Referenced(DatasetContract contract, CatalogSpec catalog) {
  public Referenced {
    Objects.requireNonNull(contract, "contract is null");
    Objects.requireNonNull(catalog, "catalog is null");
  }
}
