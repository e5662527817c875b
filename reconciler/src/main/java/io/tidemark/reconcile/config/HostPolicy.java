package io.tidemark.reconcile.config;

import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Which {@code Host} headers the service answers and which {@code Origin}s may call its API. A
 * DNS-rebinding page reaches a loopback service under its own name and origin: refusing names that
 * are not the service's, and origins that are not the request's own host, keeps it out.
 *
 * @param allowed the allowed names, lower case, each with its port or without (any port)
 */
public record HostPolicy(List<Entry> allowed) {
  public static final String KEY = "tidemark.api.allowed-hosts";

  /** A name, an IPv4 address or a bracketed IPv6 address, and an optional port. */
  private static final Pattern HOST =
      Pattern.compile(
          "^(\\[[0-9A-Fa-f:.]+\\]|[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?)(?::([0-9]{1,5}))?$");

  /** One allowed name; {@code port} null for any port, {@code host} {@code *} for any host. */
  public record Entry(String host, Integer port) {}

  public HostPolicy {
    allowed = List.copyOf(allowed);
  }

  /**
   * Parses the configured names.
   *
   * @throws InvalidConfigException naming {@code tidemark.api.allowed-hosts[i]} for a value that is
   *     not a host name
   */
  public static HostPolicy of(List<String> names) {
    List<Entry> out = new ArrayList<>();
    for (int i = 0; i < names.size(); i++) {
      String n = names.get(i).trim();
      if (n.equals("*")) {
        out.add(new Entry("*", null));
        continue;
      }
      Entry e = parse(n);
      if (e == null || (e.port() != null && e.port() > 65535)) {
        throw new InvalidConfigException(
            KEY + "[" + i + "]",
            names.get(i),
            "not a host name (a name, an IPv4 address or a bracketed IPv6 address such as [::1],"
                + " optionally with :port; or * for any)");
      }
      out.add(e);
    }
    if (out.isEmpty()) {
      throw new InvalidConfigException(KEY, "", "is empty: the service would answer no request");
    }
    return new HostPolicy(out);
  }

  private static Entry parse(String hostAndPort) {
    Matcher m = HOST.matcher(hostAndPort);
    if (!m.matches()) {
      return null;
    }
    Integer port = m.group(2) == null ? null : Integer.valueOf(m.group(2));
    return new Entry(m.group(1).toLowerCase(Locale.ROOT), port);
  }

  /** Whether a request's {@code Host} header names this service; false when it is absent. */
  public boolean allowsHost(String hostHeader) {
    if (hostHeader == null) {
      return allowed.stream().anyMatch(e -> e.host().equals("*"));
    }
    Entry given = parse(hostHeader.trim());
    for (Entry e : allowed) {
      if (e.host().equals("*")) {
        return true;
      }
      if (given != null
          && e.host().equals(given.host())
          && (e.port() == null || e.port().equals(given.port()))) {
        return true;
      }
    }
    return false;
  }

  /**
   * Whether a request's {@code Origin} is its own host: absent (same-origin GETs send none) or
   * naming exactly the host the request was sent to, whatever the scheme (a TLS-terminating load
   * balancer sees {@code https} origins over plain HTTP). {@code null} (a sandboxed or local page)
   * is never the service's own.
   */
  public static boolean sameOrigin(String origin, String hostHeader) {
    if (origin == null) {
      return true;
    }
    if (hostHeader == null) {
      return false;
    }
    URI uri;
    try {
      uri = URI.create(origin.trim());
    } catch (IllegalArgumentException e) {
      return false;
    }
    if (uri.getScheme() == null || uri.getRawAuthority() == null || uri.getRawPath() == null) {
      return false;
    }
    if (!uri.getRawPath().isEmpty() || uri.getRawQuery() != null || uri.getRawUserInfo() != null) {
      return false;
    }
    String authority = uri.getRawAuthority().toLowerCase(Locale.ROOT);
    String host = hostHeader.trim().toLowerCase(Locale.ROOT);
    if (authority.equals(host)) {
      return true;
    }
    // The default port may be left out of either.
    String scheme = uri.getScheme().toLowerCase(Locale.ROOT);
    String port = scheme.equals("https") ? ":443" : scheme.equals("http") ? ":80" : null;
    return port != null && (authority.equals(host + port) || host.equals(authority + port));
  }
}
