package io.tidemark.reconcile.rest;

import io.tidemark.reconcile.service.ReconciliationService;
import jakarta.annotation.Priority;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.ext.Provider;
import java.util.List;

/**
 * Puts the read endpoints behind the API keys when {@code tidemark.api.protect-reads} is on (by
 * default, when the service listens beyond loopback): they show raw locations and sample keys.
 */
@Provider
@ReadKeyRequired
@Priority(Priorities.AUTHENTICATION)
public class ReadAccessFilter implements ContainerRequestFilter {
  // Filters are built before runtime config exists: the settings are read at the first request.
  private final jakarta.inject.Provider<ReconciliationService> service;
  private volatile List<byte[]> keys;

  public ReadAccessFilter(jakarta.inject.Provider<ReconciliationService> service) {
    this.service = service;
  }

  @Override
  public void filter(ContainerRequestContext request) {
    List<byte[]> k = keys;
    if (k == null) {
      ReconciliationService s = service.get();
      k = s.settings().protectReads() ? ApiKeyFilter.keys(s) : null;
      if (k == null) {
        return;
      }
      keys = k;
    }
    ApiKeyFilter.check(request, k);
  }
}
