package io.tidemark.reconcile.rest;

import com.fasterxml.jackson.annotation.JsonInclude;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

/**
 * The body of every error answer.
 *
 * @param code a stable code
 * @param message what went wrong, naming the field and value where there is one
 * @param field the offending request field, if any
 * @param runningId for ALREADY_RUNNING, the running reconciliation's id
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record ApiError(ErrorCode code, String message, String field, String runningId) {
  public static ApiError of(ErrorCode code, String message) {
    return new ApiError(code, message, null, null);
  }

  public Response toResponse() {
    return Response.status(code.status())
        .type(MediaType.APPLICATION_JSON_TYPE)
        .entity(this)
        .build();
  }
}
