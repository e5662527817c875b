package io.tidemark.reconcile.service;

/**
 * An acknowledgement asked of a rule that is not failing in the dataset's latest reconciliation (or
 * its removal, where there is none): nothing to acknowledge.
 */
public class NotFailingException extends RuntimeException {
  private final String reconciliationId;

  public NotFailingException(String message, String reconciliationId) {
    super(message);
    this.reconciliationId = reconciliationId;
  }

  /** The reconciliation the request was checked against; null when the dataset has none. */
  public String reconciliationId() {
    return reconciliationId;
  }
}
