package io.tidemark.reconcile.rest;

import io.quarkus.vertx.http.runtime.filters.Filters;
import io.tidemark.reconcile.config.HostPolicy;
import io.tidemark.reconcile.service.ReconciliationService;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.json.JsonObject;
import io.vertx.core.net.HostAndPort;
import io.vertx.ext.web.RoutingContext;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Provider;

/**
 * Refuses, before any route runs (the status page and {@code /q/*} included), a request whose host
 * ({@code Host}, or HTTP/2's {@code :authority}) is not one of {@code tidemark.api.allowed-hosts}
 * (421), and a call to {@code /api} whose {@code Origin} is not the host it was sent to (403). A
 * page that rebinds its DNS name to the loopback address sends its own name and origin, so it reads
 * nothing. {@code /q/health} answers any host: load balancers probe it by address, and it shows no
 * data.
 */
@ApplicationScoped
public class HostFilter {
  /** Before every other filter (Quarkus' CORS filter is 300 and above). */
  static final int PRIORITY = 1_000;

  private final Provider<ReconciliationService> service;
  private volatile HostPolicy policy;

  public HostFilter(Provider<ReconciliationService> service) {
    this.service = service;
  }

  void register(@Observes Filters filters) {
    filters.register(this::filter, PRIORITY);
  }

  private HostPolicy policy() {
    HostPolicy p = policy;
    if (p == null) {
      p = service.get().settings().hosts();
      policy = p;
    }
    return p;
  }

  private void filter(RoutingContext ctx) {
    String path = ctx.normalizedPath();
    String host = authority(ctx);
    if (!isHealth(path) && !policy().allowsHost(host)) {
      refuse(
          ctx,
          ErrorCode.MISDIRECTED_HOST,
          "Cannot serve the request: host '"
              + (host == null ? "" : host)
              + "' is not a name of this service ("
              + HostPolicy.KEY
              + ")");
      return;
    }
    String origin = ctx.request().getHeader(HttpHeaders.ORIGIN);
    if (isApi(path) && !HostPolicy.sameOrigin(origin, host)) {
      refuse(
          ctx,
          ErrorCode.CROSS_ORIGIN,
          "Cannot serve the request: origin '"
              + origin
              + "' is not this service's own ("
              + ctx.request().scheme()
              + "://"
              + host
              + ")");
      return;
    }
    ctx.next();
  }

  /**
   * The host the request was sent to: {@code Host} on HTTP/1.1, {@code :authority} on HTTP/2 (which
   * carries no Host header); null when it names none.
   */
  private static String authority(RoutingContext ctx) {
    HostAndPort a = ctx.request().authority();
    if (a == null || a.host() == null || a.host().isEmpty()) {
      return null;
    }
    String host = a.host();
    if (host.indexOf(':') >= 0 && !host.startsWith("[")) {
      host = "[" + host + "]";
    }
    return a.port() >= 0 ? host + ":" + a.port() : host;
  }

  private static boolean isHealth(String path) {
    return path.equals("/q/health") || path.startsWith("/q/health/");
  }

  private static boolean isApi(String path) {
    return path.equals("/api") || path.startsWith("/api/");
  }

  private static void refuse(RoutingContext ctx, ErrorCode code, String message) {
    ctx.response()
        .setStatusCode(code.status())
        .putHeader(HttpHeaders.CONTENT_TYPE, "application/json")
        .end(new JsonObject().put("code", code.name()).put("message", message).encode());
  }
}
