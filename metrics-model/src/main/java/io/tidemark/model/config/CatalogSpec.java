package io.tidemark.model.config;

import io.tidemark.model.json.Checks;
import java.util.Map;
import java.util.TreeMap;

/**
 * How to reach the Iceberg catalog holding the curated and quarantine tables. Both halves build the
 * catalog from these properties with Iceberg's own {@code CatalogUtil}, so the job and the
 * reconciler always agree on where the tables are.
 *
 * <p>The embedded default is a JDBC catalog on a SQLite file beside the warehouse: commits are
 * atomic compare-and-swap updates, even between processes. On AWS, use the Glue catalog ({@code
 * type=glue}, {@code warehouse=s3://...}).
 *
 * @param name the catalog's name, e.g. {@code tidemark}
 * @param properties Iceberg catalog properties ({@code type}/{@code catalog-impl}, {@code
 *     warehouse}, {@code uri}, ...)
 */
public record CatalogSpec(String name, Map<String, String> properties) {
  public static final String NAME_DEFAULT = "tidemark";

  public CatalogSpec {
    name = Checks.identifier("name", name == null ? NAME_DEFAULT : name);
    Checks.required("properties", properties);
    if (!properties.containsKey("warehouse")) {
      throw new io.tidemark.model.json.InvalidDocumentException(
          "properties.warehouse", null, "is required");
    }
    properties = java.util.Collections.unmodifiableMap(new TreeMap<>(properties));
  }

  /**
   * This catalog with a relative local {@code warehouse} and a relative SQLite {@code uri} resolved
   * against the working folder (see {@link LocalPaths}); remote and absolute locations unchanged. A
   * relative warehouse would be recorded relative in the catalog and in every table's metadata.
   */
  public CatalogSpec withAbsoluteLocalPaths() {
    Map<String, String> props = new TreeMap<>(properties);
    props.computeIfPresent("warehouse", (k, v) -> LocalPaths.absolute(v));
    props.computeIfPresent("uri", (k, v) -> LocalPaths.absoluteSqliteUrl(v));
    return props.equals(properties) ? this : new CatalogSpec(name, props);
  }

  /** The embedded default: a JDBC catalog on {@code <warehouse>/catalog.db} (SQLite). */
  public static CatalogSpec localJdbc(String warehouse) {
    String w = warehouse.endsWith("/") ? warehouse.substring(0, warehouse.length() - 1) : warehouse;
    return new CatalogSpec(
        NAME_DEFAULT,
        Map.of(
            "catalog-impl",
            "org.apache.iceberg.jdbc.JdbcCatalog",
            "uri",
            "jdbc:sqlite:" + w + "/catalog.db",
            "jdbc.schema-version",
            "V1",
            "warehouse",
            w));
  }
}
