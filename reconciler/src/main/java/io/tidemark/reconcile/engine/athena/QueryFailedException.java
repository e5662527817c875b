package io.tidemark.reconcile.engine.athena;

/**
 * A query that did not succeed: failed, cancelled, timed out, or refused by the engine. The message
 * names the query's label and id and carries the engine's own reason.
 */
public class QueryFailedException extends RuntimeException {
  private final String queryId;
  private final String state;

  /**
   * @param queryId the engine's id of the query; null when it never started
   * @param state the final state: {@code FAILED}, {@code CANCELLED}, {@code TIMED_OUT}, ...
   */
  public QueryFailedException(String message, String queryId, String state, Throwable cause) {
    super(message, cause);
    this.queryId = queryId;
    this.state = state;
  }

  public String queryId() {
    return queryId;
  }

  public String state() {
    return state;
  }
}
