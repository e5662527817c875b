package io.tidemark.ingest.lease;

import io.tidemark.model.json.Checks;
import java.time.Instant;

/**
 * What the lease object says: which run holds the table, from where, and until when.
 *
 * @param runId the holding run's id
 * @param dataset the dataset it ingests
 * @param table the curated table the lease excludes other runs from
 * @param host the host the run works on (for a person looking for it)
 * @param acquiredAt when the run took the lease
 * @param expiresAt when the lease lapses unless renewed; a crashed holder's lease lapses then
 */
public record LeaseHolder(
    String runId,
    String dataset,
    String table,
    String host,
    Instant acquiredAt,
    Instant expiresAt) {
  public LeaseHolder {
    Checks.nonBlank("runId", runId);
    Checks.nonBlank("table", table);
    Checks.required("acquiredAt", acquiredAt);
    Checks.required("expiresAt", expiresAt);
  }

  LeaseHolder renewedUntil(Instant until) {
    return new LeaseHolder(runId, dataset, table, host, acquiredAt, until);
  }

  /** For messages: "run R on host H since T (lease until U)". */
  public String describe() {
    return "run "
        + runId
        + (host == null ? "" : " on host " + host)
        + " since "
        + acquiredAt
        + " (lease until "
        + expiresAt
        + ")";
  }
}
