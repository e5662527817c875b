package io.tidemark.model.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.HttpURLConnection;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Starts the real {@code moto_server} AWS emulator on a free loopback port for a test, and stops it
 * after. When moto is not installed, tests fail with a message saying how to install it, never
 * skip.
 */
public final class MotoServer implements AutoCloseable {
  public static final String ACCESS_KEY = "test";
  public static final String SECRET_KEY = "test";
  public static final String REGION = "us-east-1";

  private final Process process;
  private final int port;
  private final Path log;

  private MotoServer(Process process, int port, Path log) {
    this.process = process;
    this.port = port;
    this.log = log;
  }

  /** Starts moto_server on 127.0.0.1 and waits until it answers. */
  public static MotoServer start() {
    int port = freePort();
    List<String> command = command(port);
    try {
      Path log = Files.createTempFile("moto-", ".log");
      ProcessBuilder pb =
          new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
      pb.environment().put("AWS_ACCESS_KEY_ID", ACCESS_KEY);
      pb.environment().put("AWS_SECRET_ACCESS_KEY", SECRET_KEY);
      pb.environment().put("AWS_DEFAULT_REGION", REGION);
      Process p = pb.start();
      MotoServer server = new MotoServer(p, port, log);
      server.awaitReady(Duration.ofSeconds(60));
      return server;
    } catch (IOException e) {
      throw new IllegalStateException(
          "Cannot start moto_server ("
              + String.join(" ", command)
              + "): "
              + e.getMessage()
              + ". Install it with: pip install \"moto[server]\"",
          e);
    }
  }

  private static List<String> command(int port) {
    String explicit = System.getenv("MOTO_SERVER");
    if (explicit != null && !explicit.isBlank()) {
      return List.of(explicit, "-H", "127.0.0.1", "-p", Integer.toString(port));
    }
    for (String dir : System.getenv().getOrDefault("PATH", "").split(java.io.File.pathSeparator)) {
      if (Files.isExecutable(Path.of(dir, "moto_server"))) {
        return List.of(
            Path.of(dir, "moto_server").toString(),
            "-H",
            "127.0.0.1",
            "-p",
            Integer.toString(port));
      }
    }
    return List.of("python3", "-m", "moto.server", "-H", "127.0.0.1", "-p", Integer.toString(port));
  }

  private void awaitReady(Duration timeout) {
    Instant deadline = Instant.now().plus(timeout);
    while (Instant.now().isBefore(deadline)) {
      if (!process.isAlive()) {
        throw new IllegalStateException(
            "moto_server exited with code "
                + process.exitValue()
                + ": "
                + tail()
                + ". Install it with: pip install \"moto[server]\"");
      }
      try {
        HttpURLConnection c =
            (HttpURLConnection) endpoint().resolve("/moto-api/").toURL().openConnection();
        c.setConnectTimeout(500);
        c.setReadTimeout(2000);
        if (c.getResponseCode() > 0) {
          return;
        }
      } catch (IOException notYet) {
        // not listening yet
      }
      try {
        Thread.sleep(200);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while waiting for moto_server", e);
      }
    }
    close();
    throw new IllegalStateException("moto_server did not answer within " + timeout + ": " + tail());
  }

  private String tail() {
    try {
      String s = Files.readString(log);
      return s.length() > 2000 ? s.substring(s.length() - 2000) : s;
    } catch (IOException e) {
      return "(no log)";
    }
  }

  public URI endpoint() {
    return URI.create("http://127.0.0.1:" + port);
  }

  public int port() {
    return port;
  }

  /** A port nobody listens on: for "endpoint down" tests. */
  public static int freePort() {
    try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public void close() {
    process.destroy();
    try {
      if (!process.waitFor(10, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    try {
      Files.deleteIfExists(log);
    } catch (IOException ignored) {
      // a leftover temp log is harmless
    }
  }
}
