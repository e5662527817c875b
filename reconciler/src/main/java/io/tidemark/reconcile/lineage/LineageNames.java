package io.tidemark.reconcile.lineage;

import java.net.URI;

/**
 * OpenLineage dataset names for Tidemark's places, after the specification's naming conventions: an
 * object store location is namespace {@code scheme://bucket} and name its path without the leading
 * slash; a local path is namespace {@code file} and name the absolute path.
 */
public final class LineageNames {
  private LineageNames() {}

  /** A dataset's namespace and name. */
  public record Name(String namespace, String name) {}

  /** The name of a location: {@code s3://lake/raw/orders} is {@code (s3://lake, raw/orders)}. */
  public static Name location(String location) {
    URI uri = URI.create(location.contains("://") ? location : "file://" + location);
    String scheme = uri.getScheme();
    String path = uri.getPath() == null ? "" : uri.getPath();
    if ("file".equals(scheme)) {
      return new Name("file", path);
    }
    String name = path.startsWith("/") ? path.substring(1) : path;
    return new Name(scheme + "://" + uri.getAuthority(), name);
  }
}
