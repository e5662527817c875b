package io.tidemark.model.report;

import io.tidemark.model.json.Checks;
import java.time.Instant;

/**
 * A snapshot of a curated Iceberg table, as a reconciliation read it.
 *
 * @param id the Iceberg snapshot id
 * @param committedAt when it was committed: the data it holds is as of then
 */
public record CuratedSnapshot(long id, Instant committedAt) {
  public CuratedSnapshot {
    Checks.required("committedAt", committedAt);
  }
}
