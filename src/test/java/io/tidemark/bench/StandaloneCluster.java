package io.tidemark.bench;

import java.io.File;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import java.util.zip.ZipFile;

/**
 * A Spark standalone cluster on loopback, as an operator starts one with {@code
 * start-master.sh}/{@code start-worker.sh}: a master and workers, each a JVM of its own, the
 * workers launching every executor in a JVM of its own. Spark's distribution is not downloaded: its
 * jars are the ones this build resolved from Maven, linked into a Spark home ({@code jars/}, {@code
 * RELEASE}) that the workers build their executors' class path from, as they do from a real
 * distribution's. Jobs are submitted through {@code org.apache.spark.deploy.SparkSubmit}, which is
 * what {@code spark-submit} runs.
 */
final class StandaloneCluster implements AutoCloseable {
  private static final Duration READY_TIMEOUT = Duration.ofMinutes(2);

  private final Path dir;
  private final Path sparkHome;
  private final List<String> platform;
  private final List<String> jvmOptions;
  private final List<Process> processes = new ArrayList<>();
  private final String masterUrl;

  /**
   * Starts the master and {@code workers} workers of {@code coresEach} cores and {@code memoryEach}
   * memory for executors (e.g. {@code 1g}), and waits until every worker has registered.
   *
   * @param platform the class path Spark's platform provides (Spark, Scala, Hadoop, Iceberg): what
   *     a distribution's {@code jars/} holds, without the job jar
   * @param jvmOptions the module opens Spark needs on Java 17
   */
  StandaloneCluster(
      Path dir,
      List<String> platform,
      List<String> jvmOptions,
      int workers,
      int coresEach,
      String memoryEach)
      throws IOException, InterruptedException {
    this.dir = Files.createDirectories(dir);
    this.platform = platform;
    this.jvmOptions = jvmOptions;
    this.sparkHome = sparkHome(dir.resolve("spark-home"), platform);
    int port = freePort();
    this.masterUrl = "spark://127.0.0.1:" + port;
    try {
      start(
          "master",
          List.of(
              "org.apache.spark.deploy.master.Master",
              "--host",
              "127.0.0.1",
              "--port",
              Integer.toString(port),
              "--webui-port",
              Integer.toString(freePort())));
      for (int w = 1; w <= workers; w++) {
        Path work = Files.createDirectories(dir.resolve("worker-" + w));
        start(
            "worker-" + w,
            List.of(
                "org.apache.spark.deploy.worker.Worker",
                "--host",
                "127.0.0.1",
                "--port",
                Integer.toString(freePort()),
                "--webui-port",
                Integer.toString(freePort()),
                "--cores",
                Integer.toString(coresEach),
                "--memory",
                memoryEach,
                "--work-dir",
                work.toString(),
                masterUrl));
      }
      for (int w = 1; w <= workers; w++) {
        awaitLine(dir.resolve("worker-" + w + ".log"), "Successfully registered with master");
      }
    } catch (IOException | InterruptedException | RuntimeException e) {
      close();
      throw e;
    }
  }

  String masterUrl() {
    return masterUrl;
  }

  /** The executor JVMs the workers launched so far (one folder per executor in their work dirs). */
  int executorsLaunched() throws IOException {
    int n = 0;
    // <worker's work dir>/<application>/<executor>/stderr
    try (Stream<Path> s = Files.walk(dir, 4)) {
      for (Path p : s.toList()) {
        if (p.getFileName().toString().equals("stderr")
            && p.getParent().getParent().getFileName().toString().startsWith("app-")) {
          n++;
        }
      }
    }
    return n;
  }

  /** Starts {@code main} on the platform's class path, as Spark's launch scripts do. */
  private void start(String name, List<String> mainAndArgs) throws IOException {
    List<String> cmd = new ArrayList<>();
    cmd.add(java());
    cmd.addAll(jvmOptions);
    cmd.add("-Xmx512m");
    cmd.add("-cp");
    cmd.add(sparkHome.resolve("jars") + File.separator + "*");
    cmd.addAll(mainAndArgs);
    ProcessBuilder pb =
        new ProcessBuilder(cmd)
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve(name + ".log").toFile());
    environment(pb.environment());
    processes.add(pb.start());
  }

  /**
   * Submits an application in client mode: this call's process is the driver, the cluster's
   * executors do the work. Returns what {@code spark-submit} exited with.
   *
   * @param conf Spark settings, each passed as {@code --conf k=v}
   */
  Submitted submit(
      String master,
      Path appJar,
      String mainClass,
      String driverMemory,
      Map<String, String> conf,
      List<String> args,
      Path log,
      Duration timeout)
      throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>();
    cmd.add(java());
    cmd.addAll(jvmOptions);
    cmd.add("-Xmx" + driverMemory);
    cmd.add("-cp");
    // What spark-submit's launcher does with --driver-class-path in client mode: the driver's own
    // class path, before Spark's jars (set once the JVM runs, the property would come too late).
    List<String> driverPath = new ArrayList<>();
    String extra = conf.get("spark.driver.extraClassPath");
    if (extra != null) {
      driverPath.add(extra);
    }
    driverPath.addAll(platform);
    cmd.add(String.join(File.pathSeparator, driverPath));
    cmd.add("org.apache.spark.deploy.SparkSubmit");
    cmd.addAll(List.of("--master", master, "--deploy-mode", "client"));
    cmd.addAll(List.of("--class", mainClass, "--driver-memory", driverMemory));
    conf.forEach(
        (k, v) -> {
          cmd.add("--conf");
          cmd.add(k + "=" + v);
        });
    cmd.add(appJar.toString());
    cmd.addAll(args);
    ProcessBuilder pb =
        new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile());
    environment(pb.environment());
    long t0 = System.nanoTime();
    Process p = pb.start();
    long peakRss = -1;
    try {
      // The driver's resident set, sampled while it runs: its peak is read from /proc at the end.
      while (!p.waitFor(1, TimeUnit.SECONDS)) {
        peakRss = Math.max(peakRss, BenchMain.procStatus(p.pid(), "VmHWM:"));
        if (System.nanoTime() - t0 > timeout.toNanos()) {
          p.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
          throw new IllegalStateException(
              "The job did not end within " + timeout + "; its output is in " + log);
        }
      }
    } finally {
      if (p.isAlive()) {
        p.destroyForcibly();
      }
    }
    return new Submitted(p.exitValue(), Duration.ofNanos(System.nanoTime() - t0), peakRss, log);
  }

  /** What one {@code spark-submit} came to: its exit code, wall time and driver's peak RSS. */
  record Submitted(int exitCode, Duration wall, long driverPeakRss, Path log) {
    String describe() throws IOException {
      String out = Files.readString(log, StandardCharsets.UTF_8);
      return "exit "
          + exitCode
          + "; output tail:\n"
          + out.substring(Math.max(0, out.length() - 4000));
    }
  }

  private void environment(Map<String, String> env) {
    env.put("SPARK_HOME", sparkHome.toString());
    env.put("SPARK_LOCAL_IP", "127.0.0.1");
    // A distribution's launcher reads the Scala version from its build folders, which this Spark
    // home has none of; a distribution names it the same way.
    env.put("SPARK_SCALA_VERSION", "2.13");
    env.put("SPARK_LOG_DIR", dir.toString());
    env.remove("SPARK_CONF_DIR");
    env.remove("HADOOP_CONF_DIR");
    env.remove("SPARK_WORKER_OPTS");
    env.remove("SPARK_DAEMON_JAVA_OPTS");
  }

  private static String java() {
    return Path.of(System.getProperty("java.home"), "bin", "java").toString();
  }

  /**
   * A Spark home with the platform's jars linked into {@code jars/} and a {@code RELEASE} file, the
   * two things Spark's launcher looks for to take a folder as an installed distribution.
   */
  private static Path sparkHome(Path home, List<String> platform) throws IOException {
    Path jars = Files.createDirectories(home.resolve("jars"));
    Set<String> names = new HashSet<>();
    for (String entry : platform) {
      Path jar = Path.of(entry).toAbsolutePath();
      String name = jar.getFileName().toString();
      // Two artifacts may share a file name; the second is linked under a prefix.
      String linked = names.add(name) ? name : names.size() + "-" + name;
      Files.createSymbolicLink(jars.resolve(linked), jar);
    }
    Files.writeString(home.resolve("RELEASE"), "Spark from Maven artifacts (Tidemark's bench)\n");
    return home;
  }

  /**
   * The class path a Spark platform provides, from this JVM's: every jar except this project's own
   * modules and whatever the job jar carries itself (the job jar brings those, shaded or not).
   */
  static List<String> platformClassPath(Path jobJar) throws IOException {
    Set<String> carried = new HashSet<>();
    try (ZipFile z = new ZipFile(jobJar.toFile())) {
      z.stream()
          .map(java.util.zip.ZipEntry::getName)
          .filter(e -> e.endsWith(".class") && !e.startsWith("META-INF/"))
          .map(e -> e.startsWith("io/tidemark/shaded/") ? e.substring(19) : e)
          .forEach(carried::add);
    }
    List<String> platform = new ArrayList<>();
    for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
      Path p = Path.of(entry);
      String unix = entry.replace('\\', '/');
      boolean ours =
          unix.contains("/io/tidemark/") || p.getFileName().toString().startsWith("tidemark-");
      boolean jackson = unix.contains("/com/fasterxml/jackson/core/");
      if (!Files.isRegularFile(p) || ours || (!jackson && carries(p, carried))) {
        continue;
      }
      platform.add(p.toAbsolutePath().toString());
    }
    return platform;
  }

  private static boolean carries(Path jar, Set<String> carried) throws IOException {
    try (ZipFile z = new ZipFile(jar.toFile())) {
      return z.stream()
          .map(java.util.zip.ZipEntry::getName)
          .anyMatch(e -> e.endsWith(".class") && carried.contains(e));
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  private void awaitLine(Path log, String line) throws IOException, InterruptedException {
    long deadline = System.nanoTime() + READY_TIMEOUT.toNanos();
    while (System.nanoTime() < deadline) {
      if (Files.exists(log) && Files.readString(log, StandardCharsets.UTF_8).contains(line)) {
        return;
      }
      for (Process p : processes) {
        if (!p.isAlive()) {
          throw new IllegalStateException(
              "A process of the cluster ended (exit "
                  + p.exitValue()
                  + "); see the logs in "
                  + dir);
        }
      }
      Thread.sleep(250);
    }
    throw new IllegalStateException(
        "No '" + line + "' in " + log + " within " + READY_TIMEOUT + "; see the logs in " + dir);
  }

  /** Stops the workers, then the master (their executors end with them). */
  @Override
  public void close() {
    for (int i = processes.size() - 1; i >= 0; i--) {
      Process p = processes.get(i);
      p.descendants().forEach(ProcessHandle::destroy);
      p.destroy();
      try {
        if (!p.waitFor(20, TimeUnit.SECONDS)) {
          p.descendants().forEach(ProcessHandle::destroyForcibly);
          p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        p.destroyForcibly();
      }
    }
    processes.clear();
  }
}
