package io.tidemark.reconcile.rest;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonMappingException;
import io.tidemark.model.json.InvalidDocumentException;
import io.tidemark.reconcile.service.AlreadyRunningException;
import io.tidemark.reconcile.service.InvalidRequestException;
import io.tidemark.reconcile.service.UnknownDatasetException;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.Response;
import org.jboss.logging.Logger;
import org.jboss.resteasy.reactive.server.ServerExceptionMapper;

/** Turns every failure into an {@link ApiError} with its status; never a stack trace. */
public class ErrorMappers {
  private static final Logger LOG = Logger.getLogger(ErrorMappers.class);

  @ServerExceptionMapper
  public Response invalidRequest(InvalidRequestException e) {
    return new ApiError(ErrorCode.INVALID_FIELD, e.getMessage(), e.field(), null).toResponse();
  }

  @ServerExceptionMapper
  public Response invalidDocument(InvalidDocumentException e) {
    return new ApiError(ErrorCode.INVALID_FIELD, e.getMessage(), e.field(), null).toResponse();
  }

  @ServerExceptionMapper
  public Response unknownDataset(UnknownDatasetException e) {
    return new ApiError(ErrorCode.DATASET_NOT_FOUND, e.getMessage(), "dataset", null).toResponse();
  }

  @ServerExceptionMapper
  public Response notFound(ReconciliationNotFoundException e) {
    return ApiError.of(ErrorCode.RECONCILIATION_NOT_FOUND, e.getMessage()).toResponse();
  }

  @ServerExceptionMapper
  public Response notFailing(io.tidemark.reconcile.service.NotFailingException e) {
    return new ApiError(ErrorCode.NOT_FAILING, e.getMessage(), "rule", null).toResponse();
  }

  @ServerExceptionMapper
  public Response alreadyRunning(AlreadyRunningException e) {
    return new ApiError(ErrorCode.ALREADY_RUNNING, e.getMessage(), null, e.runningId())
        .toResponse();
  }

  /** Quarkus maps this type itself (with a body of its own shape): ours takes over. */
  @ServerExceptionMapper
  public Response mismatchedJson(com.fasterxml.jackson.databind.exc.MismatchedInputException e) {
    return malformedJson(e);
  }

  @ServerExceptionMapper
  public Response malformedJson(JsonProcessingException e) {
    InvalidDocumentException refusal = refusalIn(e);
    if (refusal != null) {
      return invalidDocument(refusal);
    }
    String field = null;
    if (e instanceof com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException u) {
      field = u.getPropertyName();
    } else if (e instanceof JsonMappingException m && !m.getPath().isEmpty()) {
      StringBuilder sb = new StringBuilder();
      for (JsonMappingException.Reference r : m.getPath()) {
        if (r.getFieldName() != null) {
          sb.append(sb.isEmpty() ? "" : ".").append(r.getFieldName());
        }
      }
      field = sb.isEmpty() ? null : sb.toString();
    }
    String message =
        field == null
            ? "Cannot read the request body: it is not the expected JSON object"
            : "Cannot read the request body: field '" + field + "' is unknown or of the wrong type";
    return new ApiError(ErrorCode.MALFORMED_BODY, message, field, null).toResponse();
  }

  /**
   * A record that refuses its own values (a bad name, a missing field) does so while Jackson builds
   * it, and the refusal reaches us wrapped: it names the field and why, so it is the answer.
   */
  private static InvalidDocumentException refusalIn(Throwable e) {
    for (Throwable c = e.getCause(); c != null && c != c.getCause(); c = c.getCause()) {
      if (c instanceof InvalidDocumentException invalid) {
        return invalid;
      }
    }
    return null;
  }

  @ServerExceptionMapper
  public Response web(WebApplicationException e) {
    InvalidDocumentException refusal = refusalIn(e);
    if (refusal != null) {
      return invalidDocument(refusal);
    }
    int status = e.getResponse().getStatus();
    if (status >= 500) {
      return internal(e);
    }
    ErrorCode code =
        switch (status) {
          case 401 -> ErrorCode.UNAUTHORIZED;
          case 404 -> ErrorCode.NOT_FOUND;
          case 405 -> ErrorCode.METHOD_NOT_ALLOWED;
          case 406 -> ErrorCode.NOT_ACCEPTABLE;
          case 415 -> ErrorCode.UNSUPPORTED_MEDIA_TYPE;
          default -> ErrorCode.MALFORMED_BODY;
        };
    return ApiError.of(
            code, "Cannot serve the request: " + e.getResponse().getStatusInfo().getReasonPhrase())
        .toResponse();
  }

  @ServerExceptionMapper(priority = jakarta.ws.rs.Priorities.USER + 1000)
  public Response internal(Throwable e) {
    LOG.error("Request failed", e);
    return ApiError.of(ErrorCode.INTERNAL, "Internal error; the service log has the details")
        .toResponse();
  }
}
