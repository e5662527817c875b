package io.tidemark.model.config;

import java.nio.file.Path;
import java.util.regex.Pattern;

/**
 * Local locations made absolute. A relative path means "from the folder this process started in":
 * written into a catalog, a table's metadata or a run report, it would send every other process
 * (the reconciler, the job started elsewhere, a copy of the warehouse) to the wrong place. Both
 * halves resolve what they are configured with once, at start, before anything is written or read.
 */
public final class LocalPaths {
  /** A URI scheme ({@code s3:}, {@code file:}, {@code hdfs:}), or a JDBC URL's {@code jdbc:}. */
  private static final Pattern SCHEME = Pattern.compile("^[A-Za-z][A-Za-z0-9+.-]*:.*");

  private static final String SQLITE = "jdbc:sqlite:";

  private LocalPaths() {}

  /** Whether a location is a local path without a scheme that does not start at the root. */
  public static boolean isRelative(String location) {
    return location != null
        && !location.isBlank()
        && !SCHEME.matcher(location).matches()
        && !Path.of(location).isAbsolute();
  }

  /**
   * The location as an absolute, normalized path when it is a relative local path (see {@link
   * #isRelative}), resolved against the working folder; any other location unchanged.
   */
  public static String absolute(String location) {
    if (!isRelative(location)) {
      return location;
    }
    return Path.of(location).toAbsolutePath().normalize().toString();
  }

  /**
   * A {@code jdbc:sqlite:} URL whose database file is a relative path, with that path made absolute
   * (a query string stays as it is); any other URL unchanged.
   */
  public static String absoluteSqliteUrl(String url) {
    if (url == null || !url.startsWith(SQLITE)) {
      return url;
    }
    String rest = url.substring(SQLITE.length());
    int query = rest.indexOf('?');
    String file = query < 0 ? rest : rest.substring(0, query);
    if (file.isEmpty() || file.startsWith(":") || !isRelative(file)) {
      return url; // :memory:, or already absolute, or a file: URI
    }
    return SQLITE + absolute(file) + (query < 0 ? "" : rest.substring(query));
  }
}
