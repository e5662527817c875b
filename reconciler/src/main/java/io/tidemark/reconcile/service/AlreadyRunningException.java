package io.tidemark.reconcile.service;

/** A dataset already has a reconciliation running; a second one is refused, never queued. */
public class AlreadyRunningException extends RuntimeException {
  private final String dataset;
  private final String runningId;

  public AlreadyRunningException(String dataset, String runningId) {
    super(
        "Cannot start a reconciliation of '"
            + dataset
            + "': reconciliation "
            + runningId
            + " is still running");
    this.dataset = dataset;
    this.runningId = runningId;
  }

  public String dataset() {
    return dataset;
  }

  public String runningId() {
    return runningId;
  }
}
