package io.tidemark.reconcile.rest;

import io.tidemark.reconcile.service.InvalidRequestException;
import jakarta.ws.rs.core.UriInfo;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * Query parameters an endpoint does not take are refused, so a typo is not silently ignored; so is
 * a parameter given more than once, which would otherwise silently take one of its values.
 */
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
      List<String> values = uri.getQueryParameters().get(name);
      if (values.size() > 1) {
        throw new InvalidRequestException(
            action,
            name,
            values.stream().collect(Collectors.joining("', '")),
            "given " + values.size() + " times; give it once");
      }
    }
  }
}
