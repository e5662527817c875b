package io.tidemark.ingest.audit;

import java.util.Objects;

/**
 * Whether a run publishes its batch only once the reconciler has audited the run's branch, and what
 * it does with a batch an earlier run's failed audit left held.
 *
 * @param audit who audits; null: the run publishes without an audit
 * @param where the auditor, as the logs name it (a URL without credentials); null when off
 * @param onHeld what to do with a held batch
 */
public record VerifiedPublish(BranchAudit audit, String where, HeldBatch onHeld) {
  /** No audit; a held batch is refused. */
  public static final VerifiedPublish OFF = new VerifiedPublish(null, null, HeldBatch.REFUSE);

  public VerifiedPublish {
    Objects.requireNonNull(onHeld, "onHeld is null");
  }

  /** Audits with {@code audit}, which {@code where} names in the logs. */
  public static VerifiedPublish by(BranchAudit audit, String where) {
    return new VerifiedPublish(
        Objects.requireNonNull(audit, "audit is null"), where, HeldBatch.REFUSE);
  }

  public boolean on() {
    return audit != null;
  }

  public VerifiedPublish onHeld(HeldBatch choice) {
    return new VerifiedPublish(audit, where, choice);
  }
}
