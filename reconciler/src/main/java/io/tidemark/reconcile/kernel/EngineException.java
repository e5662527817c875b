package io.tidemark.reconcile.kernel;

/** The engine could not measure a dataset; the message reads "Cannot X: reason (values)". */
public class EngineException extends RuntimeException {
  public EngineException(String message) {
    super(message);
  }

  public EngineException(String message, Throwable cause) {
    super(message, cause);
  }
}
