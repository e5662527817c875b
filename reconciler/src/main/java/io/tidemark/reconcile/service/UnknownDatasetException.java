package io.tidemark.reconcile.service;

/** A request names a dataset the service is not configured for. */
public class UnknownDatasetException extends RuntimeException {
  private final String dataset;

  public UnknownDatasetException(String dataset) {
    super("Cannot find dataset '" + dataset + "': it is not configured");
    this.dataset = dataset;
  }

  public String dataset() {
    return dataset;
  }
}
