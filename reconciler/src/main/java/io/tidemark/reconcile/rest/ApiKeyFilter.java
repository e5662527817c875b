package io.tidemark.reconcile.rest;

import io.tidemark.reconcile.service.ReconciliationService;
import jakarta.annotation.Priority;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.ext.Provider;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.List;

/**
 * Checks the API key of write endpoints before their body is read. Keys are compared in constant
 * time and never logged or echoed.
 */
@Provider
@ApiKeyRequired
@Priority(Priorities.AUTHENTICATION)
public class ApiKeyFilter implements ContainerRequestFilter {
  public static final String HEADER = "X-API-Key";

  // Filters are built before runtime config exists: the keys are read at the first request.
  private final jakarta.inject.Provider<ReconciliationService> service;
  private volatile List<byte[]> keys;

  public ApiKeyFilter(jakarta.inject.Provider<ReconciliationService> service) {
    this.service = service;
  }

  private List<byte[]> keys() {
    List<byte[]> k = keys;
    if (k == null) {
      k = keys(service.get());
      keys = k;
    }
    return k;
  }

  static List<byte[]> keys(ReconciliationService service) {
    return service.settings().apiKeys().stream()
        .map(x -> x.getBytes(StandardCharsets.UTF_8))
        .toList();
  }

  @Override
  public void filter(ContainerRequestContext request) {
    check(request, keys());
  }

  /** Aborts the request with 401 unless its header holds one of the keys. */
  static void check(ContainerRequestContext request, List<byte[]> keys) {
    String given = request.getHeaderString(HEADER);
    if (given == null || given.isBlank()) {
      request.abortWith(
          ApiError.of(
                  ErrorCode.UNAUTHORIZED,
                  "Cannot accept the request: header " + HEADER + " is missing")
              .toResponse());
      return;
    }
    byte[] g = given.getBytes(StandardCharsets.UTF_8);
    boolean ok = false;
    for (byte[] k : keys) {
      ok |= MessageDigest.isEqual(k, g);
    }
    if (!ok) {
      request.abortWith(
          ApiError.of(
                  ErrorCode.UNAUTHORIZED,
                  "Cannot accept the request: the " + HEADER + " header holds no valid key")
              .toResponse());
    }
  }
}
