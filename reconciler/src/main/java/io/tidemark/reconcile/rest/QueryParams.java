package io.tidemark.reconcile.rest;

import io.tidemark.reconcile.service.InvalidRequestException;
import jakarta.ws.rs.core.UriInfo;
import java.util.Set;
import java.util.TreeSet;

/** Query parameters an endpoint does not take are refused, so a typo is not silently ignored. */
final class QueryParams {
  private QueryParams() {}

  static void onlyKnown(String action, UriInfo uri, String... known) {
    Set<String> allowed = Set.of(known);
    for (String name : new TreeSet<>(uri.getQueryParameters().keySet())) {
      if (!allowed.contains(name)) {
        throw new InvalidRequestException(
            action,
            name,
            uri.getQueryParameters().getFirst(name),
            "unknown query parameter (known: " + new TreeSet<>(allowed) + ")");
      }
    }
  }
}
