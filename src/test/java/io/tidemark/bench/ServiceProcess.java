package io.tidemark.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The packaged reconciler service ({@code reconciler/target/quarkus-app}) in a process of its own,
 * as {@code bin/reconciler --demo} starts it over a pipeline folder, on a free loopback port: what
 * B3 and B4 measure is what an operator runs, resident set included.
 */
public final class ServiceProcess implements AutoCloseable {
  static final Path APP = Path.of("reconciler/target/quarkus-app/quarkus-run.jar");
  static final String CDS_ARCHIVE = "app-cds.jsa";
  private static final ObjectMapper JSON = new ObjectMapper();

  private final Process process;
  private final URI base;
  private final String apiKey;
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  /** From process start until {@code /q/health/ready} first answered 200. */
  final Duration startToReady;

  private ServiceProcess(Process process, URI base, String apiKey, Duration startToReady) {
    this.process = process;
    this.base = base;
    this.apiKey = apiKey;
    this.startToReady = startToReady;
  }

  /**
   * Starts the service over a pipeline folder ({@code raw/}, {@code warehouse/}, {@code state/})
   * and waits until it is ready; its log goes to {@code log}.
   */
  public static ServiceProcess start(Path pipelineRoot, Path log)
      throws IOException, InterruptedException {
    // From the repository's root (the benchmarks) or from the end-to-end module's folder.
    Path app = Files.isRegularFile(APP) ? APP : Path.of("../..").resolve(APP);
    if (!Files.isRegularFile(app)) {
      throw new IllegalStateException(
          "Cannot find the packaged reconciler at "
              + APP.toAbsolutePath()
              + ": build it with mvn -pl reconciler -am package -DskipTests");
    }
    int port;
    try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      port = s.getLocalPort();
    }
    String apiKey = "bench-" + Long.toHexString(System.nanoTime());
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    List<String> cmd = new ArrayList<>(List.of(java));
    // The package's class-data sharing archive, which the JVM only takes from a start in the
    // package's folder with the launcher named as when the archive was made.
    Path folder = app.toAbsolutePath().normalize().getParent();
    boolean cds = Files.exists(folder.resolve(CDS_ARCHIVE));
    if (cds) {
      cmd.add("-XX:SharedArchiveFile=" + CDS_ARCHIVE);
    }
    cmd.addAll(
        List.of(
            "-Dquarkus.http.port=" + port,
            "-Dtidemark.state-root=" + pipelineRoot.resolve("state"),
            // The pipeline's own contract file: the datasets, their raw folders and the catalog.
            "-Dtidemark.contract=" + pipelineRoot.resolve("tidemark.yaml"),
            "-jar",
            cds ? app.getFileName().toString() : app.toAbsolutePath().normalize().toString()));
    ProcessBuilder pb =
        new ProcessBuilder(cmd)
            .directory(folder.toFile())
            .redirectErrorStream(true)
            .redirectOutput(log.toFile());
    pb.environment().put("TIDEMARK_API_KEYS", apiKey);
    long t0 = System.nanoTime();
    Process p = pb.start();
    URI base = URI.create("http://127.0.0.1:" + port);
    ServiceProcess service = new ServiceProcess(p, base, apiKey, null);
    long deadline = t0 + TimeUnit.SECONDS.toNanos(60);
    while (true) {
      if (!p.isAlive()) {
        throw new IllegalStateException(
            "The reconciler exited with " + p.exitValue() + " while starting; see " + log);
      }
      if (service.ready()) {
        return new ServiceProcess(p, base, apiKey, Duration.ofNanos(System.nanoTime() - t0));
      }
      if (System.nanoTime() > deadline) {
        p.destroyForcibly();
        throw new IllegalStateException("The reconciler was not ready within 60 s; see " + log);
      }
      Thread.sleep(10);
    }
  }

  /** The service's base URL on loopback. */
  public URI base() {
    return base;
  }

  /** The API key the service accepts. */
  public String apiKey() {
    return apiKey;
  }

  private boolean ready() throws InterruptedException {
    try {
      HttpResponse<Void> r =
          http.send(
              HttpRequest.newBuilder(base.resolve("/q/health/ready"))
                  .timeout(Duration.ofSeconds(2))
                  .build(),
              HttpResponse.BodyHandlers.discarding());
      return r.statusCode() == 200;
    } catch (IOException e) {
      return false; // not listening yet
    }
  }

  /**
   * One reconciliation through {@code POST /api/reconciliations}, followed until it finished.
   *
   * @param from window start (ISO-8601), or null for a full reconciliation
   * @param to window end (ISO-8601), or null
   */
  Reconciliation reconcile(String from, String to) throws IOException, InterruptedException {
    var body = JSON.createObjectNode().put("dataset", "customers");
    body.put("mode", from == null ? "full" : "window");
    if (from != null) {
      body.put("from", from).put("to", to);
    }
    // The previous run's report can read finished a moment before the service lets the dataset
    // go (it still publishes metrics and alarms): a 409 then only means "not yet".
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    HttpResponse<String> started;
    long t0;
    while (true) {
      t0 = System.nanoTime();
      started =
          http.send(
              HttpRequest.newBuilder(base.resolve("/api/reconciliations"))
                  .header("Content-Type", "application/json")
                  .header("X-API-Key", apiKey)
                  .POST(HttpRequest.BodyPublishers.ofString(body.toString()))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      if (started.statusCode() != 409 || System.nanoTime() > deadline) {
        break;
      }
      Thread.sleep(50);
    }
    if (started.statusCode() != 202) {
      throw new IllegalStateException(
          "POST /api/reconciliations answered " + started.statusCode() + ": " + started.body());
    }
    String location = JSON.readTree(started.body()).path("location").asText();
    while (true) {
      HttpResponse<String> r =
          http.send(
              HttpRequest.newBuilder(base.resolve(location)).build(),
              HttpResponse.BodyHandlers.ofString());
      JsonNode report = JSON.readTree(r.body());
      if (!"RUNNING".equals(report.path("status").asText())) {
        return new Reconciliation(report, Duration.ofNanos(System.nanoTime() - t0));
      }
      Thread.sleep(20);
    }
  }

  /**
   * A finished reconciliation as the API reports it.
   *
   * @param report the report (status, rule results)
   * @param wall from the POST until the report said it finished (polled every 20 ms)
   */
  record Reconciliation(JsonNode report, Duration wall) {
    /** Rules that did not pass, with their observed values, for a bench that must fail loudly. */
    List<String> notPassed(List<String> ignored) {
      List<String> out = new ArrayList<>();
      for (JsonNode rule : report.path("results")) {
        String name = rule.path("ruleId").asText();
        if (!"PASS".equals(rule.path("status").asText()) && !ignored.contains(name)) {
          out.add(name + "=" + rule.path("observed").asText() + " " + rule.path("reason").asText());
        }
      }
      return out;
    }
  }

  /** The service's resident set now, from {@code /proc}, or -1 where there is none. */
  long rss() {
    return BenchMain.procStatus(process.pid(), "VmRSS:");
  }

  /** The service's peak resident set so far, or -1. */
  long peakRss() {
    return BenchMain.procStatus(process.pid(), "VmHWM:");
  }

  @Override
  public void close() throws InterruptedException {
    process.destroy();
    if (!process.waitFor(20, TimeUnit.SECONDS)) {
      process.destroyForcibly().waitFor();
    }
  }
}
