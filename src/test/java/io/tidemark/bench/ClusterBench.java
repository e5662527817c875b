package io.tidemark.bench;

import io.tidemark.ingest.config.IngestSpark;
import io.tidemark.ingest.merge.MergePlanner;
import io.tidemark.model.config.CatalogSpec;
import io.tidemark.model.json.Json;
import io.tidemark.model.report.IngestCounts;
import io.tidemark.model.report.IngestRunReport;
import io.tidemark.model.report.IngestStatus;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * B8: the packaged job jar on a Spark standalone cluster ({@link StandaloneCluster}: a master and
 * two workers on loopback, every executor a JVM of its own with a small heap) against the same jar
 * in {@code local[2]}, both through {@code spark-submit}, over one raw layer: an initial load of N
 * keys, a day with 1 % changes, then a day with 25 % changes, whose batch is above the planner's
 * broadcast cap ({@link MergePlanner#BROADCAST_MAX_KEYS}) from 8M keys on, so its planning and
 * MERGE are shuffled across the executors. Each run's counts and the curated tables at the end must
 * be the same; the cluster's driver runs with a 1 GB heap, which a collection of the table's keys
 * on the driver would overflow at 10M keys.
 */
final class ClusterBench {
  static final String MAIN = "io.tidemark.ingest.cli.IngestCommand";
  static final String DRIVER_HEAP = "1g";
  static final String EXECUTOR_HEAP = "1g";
  static final int WORKERS = 2;
  private static final Duration RUN_TIMEOUT = Duration.ofMinutes(40);
  private static final String BIG_DAY = "2024-03-03";

  /** One run on both: the cluster's and local[2]'s. */
  record Pair(String what, Run cluster, Run local) {}

  record Run(StandaloneCluster.Submitted submitted, IngestRunReport report) {}

  record Result(
      List<Pair> runs,
      long clusterRows,
      long localRows,
      boolean sameTable,
      int executors,
      List<String> problems) {}

  private final Path dir;
  private final long keys;
  private final Consumer<String> out;
  private final Path jobJar;
  private final List<String> jvmOptions;

  ClusterBench(Path dir, long keys, Path jobJar, List<String> jvmOptions, Consumer<String> out) {
    this.dir = dir;
    this.keys = keys;
    this.jobJar = jobJar;
    this.jvmOptions = jvmOptions;
    this.out = out;
  }

  Result run() throws Exception {
    Path raw = dir.resolve("raw").resolve("customers");
    BenchMain.RawData data = new BenchMain.RawData(raw);
    Path onCluster = pipeline("cluster", raw);
    Path onLocal = pipeline("local", raw);
    List<String> platform = StandaloneCluster.platformClassPath(jobJar);
    List<Pair> runs = new ArrayList<>();
    List<String> problems = new ArrayList<>();
    int executors;
    out.accept("B8 starting a standalone cluster: a master and " + WORKERS + " workers...");
    try (StandaloneCluster cluster =
        new StandaloneCluster(
            dir.resolve("cluster-processes"), platform, jvmOptions, WORKERS, 1, EXECUTOR_HEAP)) {
      out.accept("B8 generating the initial load...");
      data.initialLoad(keys);
      runs.add(both(cluster, "initial load", onCluster, onLocal, problems));
      data.changeDay(keys);
      runs.add(both(cluster, "a day with 1 % changes", onCluster, onLocal, problems));
      long newKeys = keys + Math.max(1, keys * 8 / 4000);
      data.changeDay(keys, newKeys, 250, BIG_DAY);
      runs.add(both(cluster, "a day with 25 % changes", onCluster, onLocal, problems));
      executors = cluster.executorsLaunched();
    }
    if (!problems.isEmpty()) {
      return new Result(runs, -1, -1, false, executors, problems);
    }
    out.accept("B8 comparing the two curated tables...");
    List<String> c;
    List<String> l;
    SparkSession spark =
        IngestSpark.local(2).config("spark.sql.adaptive.enabled", "true").getOrCreate();
    try {
      spark.sparkContext().setLogLevel("ERROR");
      // A session each: the embedded catalog keeps its tables under the catalog's name, the same
      // for both pipelines, so each is read through a catalog of that name in its own session.
      c = digest(spark.newSession(), onCluster);
      l = digest(spark.newSession(), onLocal);
    } finally {
      spark.stop();
    }
    boolean same = c.equals(l);
    if (!same) {
      problems.add("the curated tables differ: cluster " + c + ", local[2] " + l);
    }
    return new Result(
        runs, Long.parseLong(c.get(0)), Long.parseLong(l.get(0)), same, executors, problems);
  }

  /**
   * A pipeline folder: the demo's contract over the shared raw layer, its own catalog and state.
   */
  private Path pipeline(String name, Path raw) throws IOException {
    Path root = Files.createDirectories(dir.resolve(name));
    Files.createDirectories(root.resolve("state"));
    Path demo = Path.of("examples/demo/tidemark.yaml");
    String contract = Files.readString(demo, StandardCharsets.UTF_8);
    String replaced =
        contract.replace("location: raw/customers", "location: " + raw.toAbsolutePath());
    if (replaced.equals(contract)) {
      throw new IllegalStateException("Cannot find the raw location in " + demo);
    }
    Files.writeString(root.resolve("tidemark.yaml"), replaced);
    return root;
  }

  private Pair both(
      StandaloneCluster cluster, String what, Path onCluster, Path onLocal, List<String> problems)
      throws IOException, InterruptedException {
    out.accept("B8 " + what + " on the cluster...");
    Run c = submit(cluster, cluster.masterUrl(), onCluster, DRIVER_HEAP, what, problems);
    out.accept("B8 " + what + " in local[2]...");
    // local[2] runs its executors inside the driver: it gets the heap the cluster's three JVMs
    // have.
    Run l = submit(cluster, "local[2]", onLocal, "3g", what, problems);
    if (c.report() != null && l.report() != null) {
      IngestCounts cc = c.report().counts();
      IngestCounts lc = l.report().counts();
      if (!counts(cc).equals(counts(lc))) {
        problems.add(what + ": the counts differ: cluster " + counts(cc) + ", local " + counts(lc));
      }
    }
    return new Pair(what, c, l);
  }

  private Run submit(
      StandaloneCluster cluster,
      String master,
      Path pipeline,
      String driverHeap,
      String what,
      List<String> problems)
      throws IOException, InterruptedException {
    String name = (master.startsWith("local") ? "local" : "cluster") + "-" + runs(pipeline);
    Map<String, String> conf = new LinkedHashMap<>();
    conf.put("spark.driver.bindAddress", "127.0.0.1");
    conf.put("spark.driver.host", "127.0.0.1");
    conf.put("spark.ui.enabled", "false");
    conf.put("spark.sql.shuffle.partitions", "8");
    conf.put("spark.local.dir", Files.createDirectories(dir.resolve(name + "-tmp")).toString());
    conf.put("spark.executor.memory", EXECUTOR_HEAP);
    conf.put("spark.executor.cores", "1");
    conf.put("spark.cores.max", Integer.toString(WORKERS));
    conf.put("spark.executor.extraJavaOptions", String.join(" ", jvmOptions));
    // The embedded catalog's SQLite driver is in the job jar; Iceberg's JDBC catalog, loaded with
    // Spark's jars, finds drivers only on the driver's own class path (spark-submit
    // --driver-class-path), as the job's error says when it is missing.
    conf.put("spark.driver.extraClassPath", jobJar.toString());
    List<String> args =
        List.of(
            "--contract",
            pipeline.resolve("tidemark.yaml").toString(),
            "--dataset",
            "customers",
            "--state-root",
            pipeline.resolve("state").toString(),
            "--run-id",
            name);
    StandaloneCluster.Submitted s =
        cluster.submit(
            master, jobJar, MAIN, driverHeap, conf, args, dir.resolve(name + ".log"), RUN_TIMEOUT);
    IngestRunReport report = report(pipeline, name);
    if (s.exitCode() != 0 || report == null || report.status() != IngestStatus.SUCCEEDED) {
      problems.add(what + " on " + master + " did not succeed: " + s.describe());
    }
    return new Run(s, report);
  }

  private static int runs(Path pipeline) throws IOException {
    Path runs = pipeline.resolve("state").resolve("_runs");
    if (!Files.exists(runs)) {
      return 1;
    }
    try (Stream<Path> s = Files.walk(runs)) {
      return (int) s.filter(p -> p.toString().endsWith(".json")).count() + 1;
    }
  }

  private static IngestRunReport report(Path pipeline, String runId) throws IOException {
    Path runs = pipeline.resolve("state").resolve("_runs");
    if (!Files.exists(runs)) {
      return null;
    }
    try (Stream<Path> s = Files.walk(runs)) {
      for (Path p : s.filter(p -> p.toString().endsWith(".json")).toList()) {
        IngestRunReport r = Json.read(p, IngestRunReport.class);
        if (runId.equals(r.runId())) {
          return r;
        }
      }
    }
    return null;
  }

  private static List<Long> counts(IngestCounts c) {
    return List.of(
        c.recordsRead(),
        c.recordsInserted(),
        c.recordsUpdated(),
        c.recordsDeleted(),
        c.recordsUnchanged(),
        c.recordsInvalid(),
        c.deletesOfUnknownKeys());
  }

  /**
   * The curated table's row count and two order-independent digests of its rows (the exact sums, as
   * decimals, of two different hashes of every row's columns: 64-bit xxHash and 32-bit Murmur3):
   * equal tables give equal digests, and a single differing value changes both.
   */
  private static List<String> digest(SparkSession spark, Path pipeline) {
    CatalogSpec local = CatalogSpec.localJdbc(pipeline.resolve("warehouse").toString());
    IngestSpark.register(spark, local);
    String catalog = local.name();
    String cols = "customer_id, customer_name, email, updated_at";
    Row r =
        spark
            .sql(
                "SELECT count(*), sum(CAST(xxhash64("
                    + cols
                    + ") AS DECIMAL(38, 0))), sum(CAST(hash("
                    + cols
                    + ") AS DECIMAL(38, 0))) FROM "
                    + catalog
                    + ".curated.customers")
            .first();
    return List.of(String.valueOf(r.get(0)), String.valueOf(r.get(1)), String.valueOf(r.get(2)));
  }
}
