package io.tidemark.model.lineage;

import io.tidemark.model.config.CatalogSpec;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.UUID;

/**
 * The OpenLineage names both halves give Tidemark's places and runs, so that a lineage tool links
 * the ingest job's output to the reconciliation's input. Places follow the specification's naming
 * conventions: an object store location is namespace {@code scheme://bucket} and name its path
 * without the leading slash; a local path is namespace {@code file} and name the absolute path. A
 * curated table is named by its qualified name in the namespace of its catalog's warehouse.
 */
public final class LineageNames {
  /** The jobs' namespace unless configured. */
  public static final String NAMESPACE_DEFAULT = "tidemark";

  /** The endpoint under an OpenLineage HTTP URL that takes events unless configured. */
  public static final String ENDPOINT_DEFAULT = "/api/v1/lineage";

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

  /** The name of a table ({@code namespace.table}) of a catalog. */
  public static Name table(CatalogSpec catalog, String qualifiedTable) {
    String warehouse = catalog.properties().get("warehouse");
    return new Name(warehouse.contains(":") ? warehouse : "file://" + warehouse, qualifiedTable);
  }

  /** A run id derived from one of Tidemark's ids: a name-based UUID of kind and id. */
  public static UUID runId(String kind, String id) {
    return UUID.nameUUIDFromBytes(("tidemark-" + kind + ":" + id).getBytes(StandardCharsets.UTF_8));
  }
}
