package io.tidemark.ingest.config;

import io.tidemark.ingest.kernel.IngestException;
import io.tidemark.model.config.CatalogSpec;
import io.tidemark.model.report.IngestErrorCode;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.spark.sql.SparkSession;

/**
 * The Spark settings the job relies on: Iceberg's SQL extensions (MERGE), the catalog from a {@link
 * CatalogSpec}, UTC session time. The job never builds its session: callers (the CLI, tests, Glue)
 * do, with {@link #builder} or their own, and the job checks it with {@link #register}.
 */
public final class IngestSpark {
  public static final String EXTENSIONS =
      "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions";

  /**
   * The most updated and deleted rows of a batch that the job deletes by their file and position
   * (read by the batch's plan, written as position-delete files on the driver) rather than with a
   * MERGE that reads the table again; 0 MERGEs every batch. Default {@link
   * #POSITION_DELETES_DEFAULT_MAX_ROWS} (the positions are collected on the driver, a few hundred
   * bytes a row: about 150 MB at the default).
   */
  public static final String POSITION_DELETES_MAX_ROWS =
      "spark.tidemark.ingest.positionDeletesMaxRows";

  /** {@link #POSITION_DELETES_MAX_ROWS}'s default. */
  public static final long POSITION_DELETES_DEFAULT_MAX_ROWS = 500_000;

  private IngestSpark() {}

  /**
   * The session's {@link #POSITION_DELETES_MAX_ROWS}, or its default when unset.
   *
   * @throws IngestException INVALID_CONFIG naming the setting and its value when it is not a whole
   *     number of rows, zero or more
   */
  public static long positionDeletesMaxRows(SparkSession spark) {
    String set = spark.conf().get(POSITION_DELETES_MAX_ROWS, null);
    if (set == null) {
      return POSITION_DELETES_DEFAULT_MAX_ROWS;
    }
    long rows;
    try {
      rows = Long.parseLong(set.trim());
    } catch (NumberFormatException e) {
      rows = -1;
    }
    if (rows < 0) {
      throw new IngestException(
          IngestErrorCode.INVALID_CONFIG,
          "Cannot run ingest: Spark property "
              + POSITION_DELETES_MAX_ROWS
              + " must be a whole number of rows, 0 or more (0 always MERGEs), not '"
              + set
              + "'");
    }
    return rows;
  }

  /** The Spark properties that declare the catalog, e.g. {@code spark.sql.catalog.tidemark}. */
  public static Map<String, String> catalogConf(CatalogSpec catalog) {
    Map<String, String> conf = new LinkedHashMap<>();
    String prefix = "spark.sql.catalog." + catalog.name();
    conf.put(prefix, "org.apache.iceberg.spark.SparkCatalog");
    catalog.properties().forEach((k, v) -> conf.put(prefix + "." + k, v));
    // Every statement must see the table's latest commit: another process may have committed.
    conf.putIfAbsent(prefix + ".cache-enabled", "false");
    return conf;
  }

  /**
   * A session builder with the extensions, the catalog and UTC. {@code master} may be null when the
   * launcher (spark-submit, Glue) sets it.
   */
  public static SparkSession.Builder builder(CatalogSpec catalog, String master) {
    SparkSession.Builder b =
        SparkSession.builder()
            .appName("tidemark-ingest")
            .config("spark.sql.extensions", EXTENSIONS)
            .config("spark.sql.session.timeZone", "UTC");
    if (master != null) {
      b.master(master);
    }
    catalogConf(catalog).forEach(b::config);
    return b;
  }

  /** A small local session for tests and laptops: loopback only, no UI, few shuffle partitions. */
  public static SparkSession.Builder local(CatalogSpec catalog, int cores) {
    SparkSession.Builder b = local(cores);
    catalogConf(catalog).forEach(b::config);
    return b;
  }

  /** A small local session without a catalog yet: the job registers its catalog at run time. */
  public static SparkSession.Builder local(int cores) {
    return SparkSession.builder()
        .appName("tidemark-ingest")
        .master("local[" + cores + "]")
        .config("spark.sql.extensions", EXTENSIONS)
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.ui.enabled", "false")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.sql.shuffle.partitions", String.valueOf(Math.max(2, cores)))
        .config("spark.default.parallelism", String.valueOf(Math.max(2, cores)));
  }

  /**
   * Makes sure the session can reach the catalog: sets the catalog's properties when the session
   * does not declare the catalog yet, and refuses a session that declares it differently, lacks the
   * Iceberg extensions or sets one of the job's own properties to a value it cannot use.
   */
  public static void register(SparkSession spark, CatalogSpec catalog) {
    String ext = spark.conf().get("spark.sql.extensions", "");
    if (!ext.contains(EXTENSIONS)) {
      throw new IngestException(
          IngestErrorCode.INVALID_CONFIG,
          "Cannot run ingest: the Spark session lacks spark.sql.extensions="
              + EXTENSIONS
              + " (set it when building the session)");
    }
    for (Map.Entry<String, String> e : catalogConf(catalog).entrySet()) {
      String current = spark.conf().get(e.getKey(), null);
      if (current == null) {
        spark.conf().set(e.getKey(), e.getValue());
      } else if (!current.equals(e.getValue()) && !e.getKey().endsWith(".cache-enabled")) {
        throw new IngestException(
            IngestErrorCode.INVALID_CONFIG,
            "Cannot run ingest: Spark property "
                + e.getKey()
                + " is '"
                + current
                + "' but the catalog spec says '"
                + e.getValue()
                + "'");
      }
    }
    spark.conf().set("spark.sql.session.timeZone", "UTC");
    positionDeletesMaxRows(spark);
    requireJdbcDriverVisible(catalog, org.apache.iceberg.jdbc.JdbcCatalog.class.getClassLoader());
    createLocalSqliteFolder(catalog);
  }

  /** The JDBC driver class of each URI scheme Tidemark's embedded catalog uses. */
  private static final Map<String, String> JDBC_DRIVERS = Map.of("jdbc:sqlite:", "org.sqlite.JDBC");

  /**
   * Refuses a JDBC catalog whose driver Iceberg's JDBC catalog cannot reach. Iceberg connects
   * through {@link java.sql.DriverManager}, which only hands out drivers its caller's class loader
   * can see; under {@code spark-submit} the job jar, which carries the embedded catalog's SQLite
   * driver, is loaded by a child of the loader that holds Spark's and Iceberg's jars, so the driver
   * is there and yet unusable, and Spark would go on to read the catalog's name as a namespace.
   *
   * @param icebergLoader the class loader of Iceberg's JDBC catalog
   */
  static void requireJdbcDriverVisible(CatalogSpec catalog, ClassLoader icebergLoader) {
    String uri = catalog.properties().get("uri");
    if (uri == null) {
      return;
    }
    for (Map.Entry<String, String> d : JDBC_DRIVERS.entrySet()) {
      if (!uri.startsWith(d.getKey())) {
        continue;
      }
      try {
        Class.forName(d.getValue(), false, icebergLoader);
      } catch (ClassNotFoundException e) {
        throw new IngestException(
            IngestErrorCode.INVALID_CONFIG,
            "Cannot use catalog "
                + catalog.name()
                + " at "
                + uri
                + ": its JDBC driver "
                + d.getValue()
                + " is in the job jar, where Iceberg's JDBC catalog (loaded with Spark's own jars)"
                + " cannot see it. Put the job jar on the driver's class path too: spark-submit"
                + " --driver-class-path <job jar> (or spark.driver.extraClassPath)",
            e);
      }
    }
  }

  /** SQLite creates its file but not the folder: make the local warehouse folder exist. */
  static void createLocalSqliteFolder(CatalogSpec catalog) {
    String uri = catalog.properties().get("uri");
    if (uri == null || !uri.startsWith("jdbc:sqlite:")) {
      return;
    }
    String file = uri.substring("jdbc:sqlite:".length());
    if (file.startsWith("file:")) {
      file = file.substring("file:".length());
    }
    int q = file.indexOf('?');
    if (q >= 0) {
      file = file.substring(0, q);
    }
    if (file.isEmpty() || file.startsWith(":memory:")) {
      return;
    }
    java.nio.file.Path parent = java.nio.file.Path.of(file).toAbsolutePath().getParent();
    try {
      java.nio.file.Files.createDirectories(parent);
    } catch (java.io.IOException e) {
      throw new IngestException(
          IngestErrorCode.INVALID_CONFIG,
          "Cannot create the local catalog folder " + parent + ": " + e.getMessage(),
          e);
    }
  }
}
