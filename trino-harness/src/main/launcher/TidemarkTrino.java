import io.trino.connector.CatalogManagerConfig.CatalogMangerKind;
import io.trino.plugin.hive.HivePlugin;
import io.trino.plugin.iceberg.IcebergPlugin;
import io.trino.server.testing.TestingTrinoServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * A single-node Trino 483 for the end-to-end suite, run as its own process on Java 25 in
 * source-file mode: {@code java -cp $(cat target/trino.classpath) TidemarkTrino.java --port N
 * --data-dir DIR}.
 *
 * <p>Trino's in-process test server (coordinator that also runs tasks) with the Hive and Iceberg
 * plugins installed and dynamic catalogs, so clients add catalogs with {@code CREATE CATALOG ...
 * USING hive|iceberg WITH (...)}. It listens on 127.0.0.1 only, prints {@code TIDEMARK-TRINO READY
 * port=N} once it accepts queries, and stops when its standard input closes (the parent that
 * started it has gone) or on SIGTERM.
 */
public final class TidemarkTrino {
  public static void main(String[] args) throws Exception {
    int port = 0;
    Path dataDir = null;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--port" -> port = Integer.parseInt(args[++i]);
        case "--data-dir" -> dataDir = Path.of(args[++i]);
        default -> throw new IllegalArgumentException("unknown argument " + args[i]);
      }
    }
    if (dataDir == null) {
      dataDir = Files.createTempDirectory("tidemark-trino");
    }
    Files.createDirectories(dataDir);
    long started = System.nanoTime();
    TestingTrinoServer server =
        TestingTrinoServer.builder()
            .setBaseDataDir(Optional.of(dataDir))
            .setCatalogMangerKind(CatalogMangerKind.DYNAMIC)
            .addProperty("http-server.http.port", Integer.toString(port))
            .build();
    server.installPlugin(new HivePlugin());
    server.installPlugin(new IcebergPlugin());
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  try {
                    server.close();
                  } catch (Exception e) {
                    e.printStackTrace();
                  }
                }));
    System.out.println(
        "TIDEMARK-TRINO READY port="
            + server.getAddress().getPort()
            + " url="
            + server.getBaseUrl()
            + " startup_ms="
            + (System.nanoTime() - started) / 1_000_000);
    System.out.flush();
    // The parent holds our stdin open; end of stream means it has gone, so we go too.
    while (System.in.read() >= 0) {
      // ignore input
    }
    System.out.println("TIDEMARK-TRINO stopping: stdin closed");
    System.exit(0);
  }
}
