package io.tidemark.model.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.HttpURLConnection;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Starts the real {@code moto_server} AWS emulator on a free loopback port for a test, and stops it
 * after: the moto backend of {@link AwsEmulator}, and the one moto launcher of the project. When
 * moto is not installed, tests fail with a message saying how to install it, never skip.
 */
public final class MotoServer implements AwsEmulator {
  public static final String ACCESS_KEY = "test";
  public static final String SECRET_KEY = "test";
  public static final String REGION = "us-east-1";

  private static final int ATTEMPTS = 3;

  private final Process process;
  private final int port;
  private final Path log;

  private MotoServer(Process process, int port, Path log) {
    this.process = process;
    this.port = port;
    this.log = log;
  }

  /**
   * Starts moto_server on 127.0.0.1 and waits (at most 60 s) until it answers. The port is free
   * when chosen but another process may take it before moto binds it (two builds on one machine):
   * then moto exits at once while the other process answers, so a moto that died right after
   * answering is started again on another port, up to three times.
   */
  public static MotoServer start() {
    for (int attempt = 1; ; attempt++) {
      MotoServer moto;
      try {
        moto = startOnce();
      } catch (Exited e) {
        if (attempt == ATTEMPTS) {
          throw e;
        }
        continue;
      }
      try {
        Thread.sleep(300);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        moto.close();
        throw new IllegalStateException("interrupted while starting moto_server", e);
      }
      if (moto.process.isAlive()) {
        return moto;
      }
      String tail = moto.tail();
      moto.close();
      if (attempt == ATTEMPTS) {
        throw new IllegalStateException(
            "moto_server exited right after starting, " + ATTEMPTS + " times: " + tail);
      }
    }
  }

  private static MotoServer startOnce() {
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
        String tail = tail();
        close();
        throw new Exited(
            "moto_server exited with code "
                + process.exitValue()
                + ": "
                + tail
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
        close();
        throw new IllegalStateException("interrupted while waiting for moto_server", e);
      }
    }
    String tail = tail();
    close();
    throw new IllegalStateException("moto_server did not answer within " + timeout + ": " + tail);
  }

  /** moto_server stopped before it answered: its port may have been taken meanwhile. */
  private static final class Exited extends IllegalStateException {
    Exited(String message) {
      super(message);
    }
  }

  private String tail() {
    try {
      String s = Files.readString(log);
      return s.length() > 2000 ? s.substring(s.length() - 2000) : s;
    } catch (IOException e) {
      return "(no log)";
    }
  }

  /** The moto behind an emulator that a moto-only suite was given; fails for any other. */
  public static MotoServer of(AwsEmulator emulator) {
    if (emulator instanceof MotoServer moto) {
      return moto;
    }
    throw new IllegalStateException(
        "this test drives moto's control API, but runs on " + emulator.backend().label());
  }

  @Override
  public AwsBackend backend() {
    return AwsBackend.MOTO;
  }

  @Override
  public URI endpoint() {
    return URI.create("http://127.0.0.1:" + port);
  }

  @Override
  public String region() {
    return REGION;
  }

  @Override
  public String accessKey() {
    return ACCESS_KEY;
  }

  @Override
  public String secretKey() {
    return SECRET_KEY;
  }

  public int port() {
    return port;
  }

  /**
   * POSTs a JSON body to one of moto's own control endpoints, e.g. {@code
   * /moto-api/static/athena/query-results}, and fails unless moto accepts it.
   */
  public void control(String path, String json) {
    try {
      HttpResponse<String> response =
          HttpClient.newHttpClient()
              .send(
                  HttpRequest.newBuilder(endpoint().resolve(path))
                      .header("Content-Type", "application/json")
                      .timeout(Duration.ofSeconds(30))
                      .POST(HttpRequest.BodyPublishers.ofString(json, StandardCharsets.UTF_8))
                      .build(),
                  HttpResponse.BodyHandlers.ofString());
      if (response.statusCode() / 100 != 2) {
        throw new IllegalStateException(
            "moto refused " + path + ": " + response.statusCode() + " " + response.body());
      }
    } catch (IOException e) {
      throw new IllegalStateException("Cannot reach moto at " + path + ": " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** Forgets every resource moto holds: buckets, queries, queued results, state transitions. */
  @Override
  public void reset() {
    control("/moto-api/reset", "{}");
    control("/moto-api/state-manager/unset-transition", "{\"model_name\":\"athena::execution\"}");
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

  @Override
  public String toString() {
    return "moto_server on " + endpoint();
  }
}
