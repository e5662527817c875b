package io.tidemark.e2e.trino;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * A real Trino 483 server for the tests, run as its own process: Athena engine v3 is built on
 * Trino, so the reconciler's Athena SQL is proved on Trino over the same raw Parquet files and
 * curated Iceberg tables that the DuckDB engine reads.
 *
 * <h2>How it is launched</h2>
 *
 * Trino 483's classes are Java 25 bytecode, while the build and the tests stay on Java 17. The
 * {@code trino-harness} module resolves Trino's jars (trino-main, trino-hive, trino-iceberg,
 * trino-hdfs, sqlite-jdbc; versions pinned by Trino's own {@code trino-root} pom) and writes their
 * runtime classpath to {@code trino-harness/target/trino.classpath}. This fixture runs {@code
 * $TRINO_JAVA_HOME/bin/java} (default {@value #DEFAULT_JAVA_HOME}) in source-file mode on {@code
 * trino-harness/src/main/launcher/TidemarkTrino.java} with that classpath, {@code
 * -Duser.timezone=UTC -Xmx1500m --add-modules=jdk.incubator.vector}. The launcher starts Trino's
 * in-process test server ({@code TestingTrinoServer}: one coordinator that also runs the tasks)
 * with the Hive and Iceberg plugins and dynamic catalogs, listening on 127.0.0.1 only, on a port it
 * picks and prints in its ready line. The tests talk to it with {@code io.trino:trino-jdbc} 483,
 * which is Java 11 bytecode and runs here. Its output goes to {@code
 * target/trino/trino-<port>.log}. The process stops on {@link #close()}, on this JVM's exit (a
 * shutdown hook), and by itself when its standard input closes, so a killed test JVM does not leave
 * it behind. Without Java 25 the fixture fails and says how to get it; it never skips.
 *
 * <p>Start-up, measured on the 2-core machine: about 12 s from process start to the first answer
 * when alone (3 s compiling the launcher, 8-9 s for Trino's server to come up), 15-16 s while a
 * Spark session starts beside it. It takes about 1.5 GB of heap.
 *
 * <h2>Catalogs</h2>
 *
 * Tests add catalogs with {@code CREATE CATALOG}:
 *
 * <ul>
 *   <li>{@link #createRawCatalog} - a Hive catalog over local raw Parquet, read as Athena reads a
 *       Hive table: {@code hive.metastore = 'file'} in a folder of the test, {@code
 *       fs.native-local.enabled = 'true'} with {@code local.location = '/'} (so {@code
 *       local:///abs/path} is {@code /abs/path}), {@code hive.parquet.time-zone = 'UTC'},
 *       timestamps at Trino's default millisecond precision (Athena's for Hive tables; a {@code
 *       timestamp(6)} column is then refused), {@code hive.ignore-absent-partitions = 'true'} (a
 *       projected day with no folder reads as empty, as on Athena, where Trino would otherwise fail
 *       with "Partition location does not exist") and {@code hive.table-statistics-enabled =
 *       'false'}: the cost-based join planner asks the file metastore for the statistics of every
 *       projected partition, which it never stored, and fails with "Partition 'schema.table' not
 *       found" on any query that joins the table (Athena plans projected partitions without
 *       metastore statistics). Tables in it come from {@code RawTable.trinoDdl}, the Trino twin of
 *       the Athena DDL: partition projection on {@code ingest_date} ({@code
 *       partition_projection_enabled = true}; column {@code partition_projection_type = 'date'},
 *       format {@code yyyy-MM-dd}, interval 1 DAYS). Its {@code "$path"} reads {@code
 *       local:///abs/path/ingest_date=D/file.parquet} ({@link #localUri}; Athena's reads {@code
 *       s3://bucket/key}), and {@code "$file_modified_time"} is a {@code timestamp(3) with time
 *       zone} in UTC.
 *   <li>{@link #createIcebergCatalog} - an Iceberg catalog on the very JDBC catalog (SQLite) that
 *       Spark commits to: {@code iceberg.catalog.type = 'jdbc'}, {@code
 *       iceberg.jdbc-catalog.driver-class = 'org.sqlite.JDBC'}, {@code connection-url =
 *       'jdbc:sqlite:<warehouse>/catalog.db'}, {@code catalog-name = 'tidemark'}, {@code
 *       default-warehouse-dir = <warehouse>}. Spark's warehouse is a plain path, so its file
 *       locations have no scheme; Trino's native file systems refuse those, so the catalog reads
 *       through Hadoop's local file system ({@code fs.hadoop.enabled = 'true'}, trino-hdfs is on
 *       Trino's classpath). Trino reads the current metadata pointer from the catalog for each
 *       query, so every Spark commit (and MERGE's position deletes) is seen at once. {@code
 *       iceberg.metadata-cache.enabled = 'false'}: Trino's in-memory cache of small files also
 *       holds data files, so a data file deleted under Trino would still be read, where Athena
 *       fails the query ("data file lost" in the fault suite). {@code
 *       iceberg.table-statistics-enabled = 'false'}: with the cache off, the planner would read
 *       every manifest again for each query's statistics; the statistics choose join orders, never
 *       answers, and the fault suite's Trino queries took 17 % less time without them (10.1 s
 *       against 12.2 s a reconciliation, same machine).
 * </ul>
 *
 * <h2>What Trino cannot show here that Athena does</h2>
 *
 * <ul>
 *   <li>Athena's {@code "$path"} is an {@code s3://} URI and its tables live in Glue; here paths
 *       are local and the metastore is a file metastore or the SQLite JDBC catalog.
 *   <li>Athena's execution parameters ({@code ExecutionParameters}) are substituted by Athena as
 *       literals before planning; over JDBC, {@code ?} parameters are bound by a {@code
 *       PREPARE}/{@code EXECUTE USING}, which only approximates that.
 *   <li>Athena's partition projection range may use {@code NOW}-relative bounds and injected types;
 *       only the {@code date} projection is proved here. Workgroup limits, result reuse, the
 *       query-result files in S3 and Athena's own error messages are not reproduced.
 * </ul>
 */
public final class TrinoServer implements AutoCloseable {
  static final String DEFAULT_JAVA_HOME = "/usr/lib/jvm/temurin-25-jdk-amd64";
  private static final Pattern READY = Pattern.compile("TIDEMARK-TRINO READY port=(\\d+)");
  private static final Duration START_TIMEOUT = Duration.ofMinutes(3);

  private final Process process;
  private final OutputStream keepAlive;
  private final Path log;
  private final Path dataDir;
  private final int port;
  private final Duration startupTime;
  private final Thread shutdownHook;

  /** The catalogs created through this server, dropped when a shared server is handed back. */
  private final Set<String> catalogs = new LinkedHashSet<>();

  /** Whether {@link #close} hands the server back ({@link #shared}) instead of stopping it. */
  private boolean shared;

  private static TrinoServer sharedServer;

  private TrinoServer(
      Process process,
      OutputStream keepAlive,
      Path log,
      Path dataDir,
      int port,
      Duration startupTime) {
    this.process = process;
    this.keepAlive = keepAlive;
    this.log = log;
    this.dataDir = dataDir;
    this.port = port;
    this.startupTime = startupTime;
    this.shutdownHook = new Thread(this::stop, "trino-server-stop");
    Runtime.getRuntime().addShutdownHook(shutdownHook);
  }

  /**
   * The suite's one Trino, started on first use and stopped when the test JVM exits: starting Trino
   * and warming its planner costs tens of seconds, paid once per suite run instead of once per test
   * class. {@link #close} on it drops the catalogs the caller created (their names can be used
   * again) and leaves the server running; only one user holds it at a time, as test classes run one
   * after another.
   */
  public static synchronized TrinoServer shared() {
    if (sharedServer == null || !sharedServer.process.isAlive()) {
      sharedServer = start();
      sharedServer.shared = true;
    }
    return sharedServer;
  }

  /** Starts a Trino of the caller's own and waits until it answers queries. */
  public static TrinoServer start() {
    Path javaHome = javaHome();
    Path java = javaHome.resolve("bin/java");
    if (!Files.isExecutable(java)) {
      throw new IllegalStateException(
          "Trino 483 needs a Java 25 runtime, and "
              + java
              + " is not there. Install a JDK 25 (on this project's machines Temurin's JDK 25 sits"
              + " in "
              + DEFAULT_JAVA_HOME
              + "; elsewhere e.g. `apt-get install temurin-25-jdk` from Adoptium's apt"
              + " repository, or SDKMAN's `sdk install java 25-tem`) and point the TRINO_JAVA_HOME"
              + " environment variable (or -Dtidemark.trino.java-home) at it.");
    }
    int major = javaMajor(javaHome);
    if (major < 25) {
      throw new IllegalStateException(
          "Trino 483 needs Java 25 or newer, and "
              + javaHome
              + " is Java "
              + major
              + ". Point TRINO_JAVA_HOME (or -Dtidemark.trino.java-home) at a JDK 25, e.g. "
              + DEFAULT_JAVA_HOME
              + ".");
    }
    Path classpathFile = path("tidemark.trino.classpath", "trino-harness/target/trino.classpath");
    Path launcher =
        path("tidemark.trino.launcher", "trino-harness/src/main/launcher/TidemarkTrino.java");
    if (!Files.isRegularFile(classpathFile) || !Files.isRegularFile(launcher)) {
      throw new IllegalStateException(
          "Trino's classpath "
              + classpathFile
              + " or launcher "
              + launcher
              + " is missing: build the trino-harness module first (mvn -pl trino-harness"
              + " generate-resources, or any reactor build that includes src/test).");
    }
    try {
      String classpath = Files.readString(classpathFile).trim();
      Path logDir = path("tidemark.trino.log-dir", "target/trino");
      Files.createDirectories(logDir);
      Path dataDir = Files.createTempDirectory(logDir, "data-");
      Path log = Files.createTempFile(logDir, "trino-", ".log");
      List<String> command = new ArrayList<>();
      command.add(java.toString());
      command.addAll(
          List.of(
              "-Xmx1500m",
              "-XX:+UseG1GC",
              "-XX:+ExitOnOutOfMemoryError",
              "-XX:-OmitStackTraceInFastThrow",
              "-Duser.timezone=UTC",
              "-Dfile.encoding=UTF-8",
              "-Djdk.attach.allowAttachSelf=true",
              "-XX:+EnableDynamicAgentLoading",
              "--add-modules=jdk.incubator.vector",
              "--enable-native-access=ALL-UNNAMED",
              "--sun-misc-unsafe-memory-access=allow",
              "-cp",
              classpath,
              launcher.toString(),
              "--port",
              "0",
              "--data-dir",
              dataDir.toString()));
      long started = System.nanoTime();
      ProcessBuilder pb =
          new ProcessBuilder(command)
              .redirectErrorStream(true)
              .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
      pb.environment().put("TZ", "UTC");
      Process process = pb.start();
      // Trino stops when this stream closes: on close(), or when this JVM dies however it dies.
      OutputStream keepAlive = process.getOutputStream();
      int port = awaitReady(process, log, started);
      TrinoServer server =
          new TrinoServer(
              process,
              keepAlive,
              log,
              dataDir,
              port,
              Duration.ofNanos(System.nanoTime() - started));
      return server;
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot start Trino: " + e.getMessage(), e);
    }
  }

  private static int awaitReady(Process process, Path log, long started) throws IOException {
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    int port = -1;
    long deadline = started + START_TIMEOUT.toNanos();
    while (System.nanoTime() < deadline) {
      if (!process.isAlive()) {
        throw new IllegalStateException(
            "Trino exited with " + process.exitValue() + " before it was ready:\n" + tail(log));
      }
      if (port < 0) {
        Matcher m = READY.matcher(Files.readString(log, StandardCharsets.ISO_8859_1));
        if (m.find()) {
          port = Integer.parseInt(m.group(1));
        }
      }
      if (port > 0) {
        try {
          HttpResponse<String> info =
              http.send(
                  HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/v1/info"))
                      .timeout(Duration.ofSeconds(5))
                      .build(),
                  HttpResponse.BodyHandlers.ofString());
          if (info.statusCode() == 200 && info.body().contains("\"starting\":false")) {
            return port;
          }
        } catch (IOException e) {
          // not listening yet
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IllegalStateException("interrupted while Trino started", e);
        }
      }
      try {
        Thread.sleep(250);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while Trino started", e);
      }
    }
    process.destroyForcibly();
    throw new IllegalStateException(
        "Trino was not ready within " + START_TIMEOUT + ":\n" + tail(log));
  }

  /** The feature version a JDK's {@code release} file states; 0 when it states none. */
  private static int javaMajor(Path javaHome) {
    try {
      for (String line : Files.readAllLines(javaHome.resolve("release"))) {
        Matcher m = Pattern.compile("^JAVA_VERSION=\"(\\d+)").matcher(line);
        if (m.find()) {
          return Integer.parseInt(m.group(1));
        }
      }
    } catch (IOException e) {
      // no release file: let the launcher itself fail, with its log in the message
      return Integer.MAX_VALUE;
    }
    return 0;
  }

  private static Path javaHome() {
    String p = System.getProperty("tidemark.trino.java-home");
    if (p == null || p.isBlank()) {
      p = System.getenv("TRINO_JAVA_HOME");
    }
    return Path.of(p == null || p.isBlank() ? DEFAULT_JAVA_HOME : p);
  }

  /** A path from a system property (set by the suite's pom), else relative to the tree's root. */
  private static Path path(String property, String fromRoot) {
    String p = System.getProperty(property);
    if (p != null && !p.isBlank()) {
      return Path.of(p).toAbsolutePath().normalize();
    }
    Path dir = Path.of("").toAbsolutePath();
    for (Path d = dir; d != null; d = d.getParent()) {
      if (Files.isDirectory(d.resolve("trino-harness"))) {
        return d.resolve(fromRoot);
      }
    }
    return dir.resolve(fromRoot);
  }

  private static String tail(Path log) {
    try {
      List<String> lines = Files.readAllLines(log, StandardCharsets.ISO_8859_1);
      return lines.subList(Math.max(0, lines.size() - 60), lines.size()).stream()
          .collect(Collectors.joining("\n"));
    } catch (IOException e) {
      return "(no log: " + e.getMessage() + ")";
    }
  }

  /** {@code jdbc:trino://127.0.0.1:<port>}. */
  public String jdbcUrl() {
    return "jdbc:trino://127.0.0.1:" + port;
  }

  public int port() {
    return port;
  }

  /** From process start until the server answered. */
  public Duration startupTime() {
    return startupTime;
  }

  /** Trino's log file. */
  public Path log() {
    return log;
  }

  /** A new JDBC connection (user {@code tidemark}, UTC session time zone), no default catalog. */
  public Connection connect() {
    return connect(null, null);
  }

  /** A new JDBC connection with a default catalog and schema (either may be null). */
  public Connection connect(String catalog, String schema) {
    Properties p = new Properties();
    p.setProperty("user", "tidemark");
    p.setProperty("timezone", "UTC");
    String url =
        jdbcUrl() + (catalog == null ? "" : "/" + catalog + (schema == null ? "" : "/" + schema));
    try {
      return DriverManager.getConnection(url, p);
    } catch (SQLException e) {
      throw new IllegalStateException(
          "Cannot connect to Trino at " + url + ": " + e.getMessage(), e);
    }
  }

  /** Runs one statement that returns no rows of interest (DDL, CALL, ...). */
  public void execute(String sql) {
    try (Connection c = connect();
        Statement s = c.createStatement()) {
      s.execute(sql);
    } catch (SQLException e) {
      throw new IllegalStateException("Trino refused: " + sql + "\n" + e.getMessage(), e);
    }
  }

  /** {@code CREATE CATALOG name USING connector WITH (properties)}. */
  public void createCatalog(String name, String connector, Map<String, String> properties) {
    String with =
        new TreeMap<>(properties)
            .entrySet().stream()
                .map(e -> quoteIdentifier(e.getKey()) + " = " + quoteLiteral(e.getValue()))
                .collect(Collectors.joining(", "));
    execute("CREATE CATALOG " + name + " USING " + connector + " WITH (" + with + ")");
    catalogs.add(name);
  }

  /**
   * A Hive catalog over local files as Athena reads them (see the class comment): a file metastore
   * under {@code metastoreDir}, Trino's native local file system rooted at {@code /}, Parquet
   * timestamps read as UTC at millisecond precision, absent projected partitions empty, no
   * metastore statistics.
   */
  public void createRawCatalog(String name, Path metastoreDir) {
    try {
      Files.createDirectories(metastoreDir);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    createCatalog(
        name,
        "hive",
        Map.of(
            "hive.metastore", "file",
            "hive.metastore.catalog.dir", localUri(metastoreDir),
            "fs.native-local.enabled", "true",
            "local.location", "/",
            "hive.parquet.time-zone", "UTC",
            // Athena reads a projected partition with no folder as empty; Trino fails without it.
            "hive.ignore-absent-partitions", "true",
            // Projected partitions have no statistics in the file metastore: joins fail without it.
            "hive.table-statistics-enabled", "false",
            // Athena reads an unpartitioned table's sub-folders (a DMS folder's CDC date folders).
            "hive.recursive-directories", "true"));
  }

  /**
   * An Iceberg catalog on the SQLite JDBC catalog that Spark commits to ({@code
   * CatalogSpec.localJdbc(warehouse)}), reading Spark's scheme-less file locations through Hadoop's
   * local file system.
   */
  public void createIcebergCatalog(String name, Path warehouse) {
    Path w = warehouse.toAbsolutePath().normalize();
    createCatalog(
        name,
        "iceberg",
        Map.of(
            "iceberg.catalog.type", "jdbc",
            "iceberg.jdbc-catalog.driver-class", "org.sqlite.JDBC",
            "iceberg.jdbc-catalog.connection-url", "jdbc:sqlite:" + w + "/catalog.db",
            "iceberg.jdbc-catalog.catalog-name", "tidemark",
            "iceberg.jdbc-catalog.default-warehouse-dir", w.toString(),
            "fs.hadoop.enabled", "true",
            // Trino keeps small files it read in memory by default, data files included: a data
            // file deleted under it would still be read, where Athena fails the query.
            "iceberg.metadata-cache.enabled", "false",
            "iceberg.table-statistics-enabled", "false"));
  }

  /** How Trino's native local file system names a local path: {@code local:///abs/path}. */
  public static String localUri(Path path) {
    return "local://" + path.toAbsolutePath().normalize();
  }

  static String quoteIdentifier(String s) {
    return "\"" + s.replace("\"", "\"\"") + "\"";
  }

  static String quoteLiteral(String s) {
    return "'" + s.replace("'", "''") + "'";
  }

  private void stop() {
    try {
      keepAlive.close();
    } catch (IOException ignored) {
      // the process may already be gone
    }
    List<ProcessHandle> children = process.descendants().toList();
    process.destroy();
    try {
      if (!process.waitFor(20, java.util.concurrent.TimeUnit.SECONDS)) {
        process.destroyForcibly();
        process.waitFor(10, java.util.concurrent.TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    }
    children.stream().filter(ProcessHandle::isAlive).forEach(ProcessHandle::destroyForcibly);
    // Trino's own scratch space; the log stays for whoever reads the build's output.
    try (var files = Files.walk(dataDir)) {
      files.sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
    } catch (IOException ignored) {
      // best effort: it lives under target/
    }
  }

  @Override
  public void close() {
    if (shared) {
      for (String name : List.copyOf(catalogs)) {
        execute("DROP CATALOG IF EXISTS " + name);
        catalogs.remove(name);
      }
      return;
    }
    stop();
    try {
      Runtime.getRuntime().removeShutdownHook(shutdownHook);
    } catch (IllegalStateException ignored) {
      // already shutting down
    }
  }
}
