package io.tidemark.reconcile.rest;

/** Every failure the API reports, with a stable code; the code decides the HTTP status. */
public enum ErrorCode {
  /** A field of the request is missing or malformed. */
  INVALID_FIELD(400),
  /** The body is not the JSON the endpoint takes. */
  MALFORMED_BODY(400),
  /** No API key, or not one the service accepts. */
  UNAUTHORIZED(401),
  /** A call to the API from a web page of another origin. */
  CROSS_ORIGIN(403),
  /** No such resource. */
  NOT_FOUND(404),
  METHOD_NOT_ALLOWED(405),
  NOT_ACCEPTABLE(406),
  UNSUPPORTED_MEDIA_TYPE(415),
  DATASET_NOT_FOUND(404),
  RECONCILIATION_NOT_FOUND(404),
  /** The dataset already has a reconciliation running. */
  ALREADY_RUNNING(409),
  /**
   * An acknowledgement of a rule that does not fail in the dataset's latest reconciliation, or the
   * removal of one that does not exist.
   */
  NOT_FAILING(409),
  /**
   * The Host header names another host than this service's ({@code tidemark.api.allowed-hosts}).
   */
  MISDIRECTED_HOST(421),
  /** Anything else: the details are in the service's log, never in the answer. */
  INTERNAL(500);

  private final int status;

  ErrorCode(int status) {
    this.status = status;
  }

  public int status() {
    return status;
  }
}
