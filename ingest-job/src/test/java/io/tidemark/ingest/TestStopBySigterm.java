package io.tidemark.ingest;

import static io.tidemark.ingest.RawFixtures.u;
import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.ingest.config.IngestSettings;
import io.tidemark.ingest.config.IngestSpark;
import io.tidemark.ingest.kernel.FailurePoint;
import io.tidemark.ingest.lease.RunLeases;
import io.tidemark.ingest.run.IngestJob;
import io.tidemark.ingest.run.IngestOutcome;
import io.tidemark.model.config.CatalogSpec;
import io.tidemark.model.json.Json;
import io.tidemark.model.report.IngestErrorCode;
import io.tidemark.model.report.IngestRunReport;
import io.tidemark.model.report.IngestStatus;
import io.tidemark.model.testing.MotoServer;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Tags;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * A run stopped by SIGTERM (an operator's stop, a scheduler's timeout) leaves a trace: the job runs
 * as its own JVM, with its state root on S3 (an emulator) so that it holds a run lease, waits at a
 * point of the run (the {@code --pause-at} drill), and is sent SIGTERM ({@link Process#destroy()}
 * on Linux). Before its commit it reports FAILED with {@code STOPPED_BY_SIGTERM} and exits 143;
 * after it, the batch is committed and the report says so. Either way the lease is released and the
 * next run ends as if nothing had happened.
 */
@Tags({@Tag("aws"), @Tag("spark")})
class TestStopBySigterm extends SparkTestSupport {
  private static final String BUCKET = "tidemark-sigterm";
  private static MotoServer moto;
  private static S3Client s3;
  private static int runs;

  @TempDir Path dir;
  private String prefix;
  private String catalogName;

  @BeforeAll
  static void startMoto() {
    moto = MotoServer.start();
    S3Lake.connect(spark, moto);
    s3 = S3Lake.s3(moto);
    s3.createBucket(b -> b.bucket(BUCKET));
  }

  @AfterAll
  static void stopMoto() {
    S3Lake.disconnect();
    if (s3 != null) {
      s3.close();
    }
    if (moto != null) {
      moto.close();
    }
  }

  @Test
  void aRunStoppedBeforeItsCommitReportsFailedReleasesItsLeaseAndTheNextRunDoesItAll()
      throws Exception {
    IngestSettings s = layout();
    Child child = start(s, FailurePoint.AFTER_READ);
    child.awaitPause();
    assertThat(leaseBody(s)).as("the lease while the run waits").isNotNull();

    child.process.destroy(); // SIGTERM

    int exit = child.awaitExit();
    IngestSpark.register(spark, s.catalog()); // to read the child's tables here
    IngestRunReport stopped = onlyReport(s, child);
    assertThat(stopped.status()).as(child.output()).isEqualTo(IngestStatus.FAILED);
    assertThat(stopped.errorCode()).isEqualTo(IngestErrorCode.STOPPED_BY_SIGTERM);
    assertThat(stopped.error())
        .isEqualTo(
            "Cannot finish batch "
                + stopped.batchId()
                + ": stopped by SIGTERM at AFTER_READ; nothing was published to "
                + catalogName
                + ".curated.customers and rerunning is safe");
    assertThat(exit).as(child.output()).isEqualTo(143);
    assertThat(leaseBody(s)).as("the lease after the stop").isNull();
    assertThat(spark.catalog().tableExists(s.curatedSparkName())).isFalse();

    IngestOutcome next = new IngestJob(spark, s).run();
    assertThat(next.report().status()).as(next.report().error()).isEqualTo(IngestStatus.SUCCEEDED);
    assertThat(next.report().batchId()).isEqualTo(stopped.batchId());
    assertThat(next.report().counts().recordsInserted()).isEqualTo(10);
    assertThat(count(s.curatedSparkName())).isEqualTo(10);
    assertThat(curated(s)).hasSize(10);
    assertThat(leaseBody(s)).isNull();
  }

  @Test
  void aRunStoppedAfterItsCommitReportsTheCommittedBatchNotAFailure() throws Exception {
    IngestSettings s = layout();
    Child child = start(s, FailurePoint.AFTER_COMMIT);
    child.awaitPause();
    assertThat(leaseBody(s)).as("the lease while the run waits").isNotNull();

    child.process.destroy(); // SIGTERM

    int exit = child.awaitExit();
    IngestSpark.register(spark, s.catalog()); // to read the child's tables here
    IngestRunReport r = onlyReport(s, child);
    assertThat(r.status()).as(child.output()).isEqualTo(IngestStatus.SUCCEEDED);
    assertThat(r.errorCode()).isNull();
    assertThat(r.snapshotId()).isNotNull();
    assertThat(r.warnings())
        .contains(
            "Stopped by SIGTERM after batch "
                + r.batchId()
                + " was committed (snapshot "
                + r.snapshotId()
                + "): the batch is on the table, and this report accounts for it");
    assertThat(exit).as(child.output()).isZero();
    assertThat(leaseBody(s)).isNull();
    assertThat(curated(s)).hasSize(10);

    IngestOutcome next = new IngestJob(spark, s).run();
    assertThat(next.report().status())
        .as(next.report().error())
        .isEqualTo(IngestStatus.NOTHING_TO_DO);
    assertThat(count(s.curatedSparkName())).isEqualTo(10);
  }

  // ------------------------------------------------------------------ layout and child JVM

  /** Ten records of raw and a local catalog; the state (reports and lease) on the emulator. */
  private IngestSettings layout() throws Exception {
    runs++;
    prefix = "p" + runs;
    catalogName = "sigterm" + runs;
    Files.createDirectories(dir.resolve("warehouse"));
    List<RawFixtures.Rec> recs = new ArrayList<>();
    for (int i = 1; i <= 10; i++) {
      recs.add(u(String.format("K%02d", i), "Name " + i, "2024-03-19T10:00:00Z"));
    }
    RawFixtures.write(dir.resolve("raw/customers"), "2024-03-19", "a.parquet", recs);
    return IngestSettings.of(
            Contracts.customers(dir.resolve("raw/customers").toString(), "curated.customers"),
            new CatalogSpec(catalogName, catalogProperties()),
            "s3://" + BUCKET + "/" + prefix + "/state")
        .withClock(Clock.fixed(NOW, ZoneOffset.UTC));
  }

  private Map<String, String> catalogProperties() {
    Map<String, String> p =
        new HashMap<>(CatalogSpec.localJdbc(dir.resolve("warehouse").toString()).properties());
    p.put("client.region", MotoServer.REGION);
    p.put("s3.endpoint", moto.endpoint().toString());
    p.put("s3.path-style-access", "true");
    return p;
  }

  private String leaseBody(IngestSettings s) {
    String key = prefix + "/state/" + RunLeases.LEASES_FOLDER + "/curated.customers.json";
    try {
      return s3.getObjectAsBytes(b -> b.bucket(BUCKET).key(key)).asUtf8String();
    } catch (NoSuchKeyException e) {
      return null;
    }
  }

  /** The one run report under the state root. */
  private IngestRunReport onlyReport(IngestSettings s, Child child) {
    // (S3A leaves folder markers, keys ending in '/', beside the reports.)
    List<S3Object> reports =
        s3.listObjectsV2(b -> b.bucket(BUCKET).prefix(prefix + "/state/_runs/")).contents().stream()
            .filter(o -> o.key().endsWith(".json"))
            .toList();
    assertThat(reports).as("run reports; %s", child.output()).hasSize(1);
    String body =
        s3.getObjectAsBytes(b -> b.bucket(BUCKET).key(reports.get(0).key())).asUtf8String();
    return Json.read(body, IngestRunReport.class);
  }

  private record Child(Process process, Path log) {
    String output() {
      try {
        String s = Files.readString(log, StandardCharsets.UTF_8);
        return s.length() > 8000 ? s.substring(s.length() - 8000) : s;
      } catch (java.io.IOException e) {
        return "(no output: " + e + ")";
      }
    }

    /** Waits until the run says it reached its pause point; fails if the child ends first. */
    void awaitPause() throws Exception {
      long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(5);
      while (!output().contains("tidemark-ingest: pause drill at")) {
        assertThat(process.isAlive()).as("the child is running; %s", output()).isTrue();
        assertThat(System.nanoTime()).as("the child reaches its pause point").isLessThan(deadline);
        Thread.sleep(200);
      }
    }

    int awaitExit() throws Exception {
      try {
        assertThat(process.waitFor(3, TimeUnit.MINUTES))
            .as("the child ends; %s", output())
            .isTrue();
        return process.exitValue();
      } finally {
        process.destroyForcibly();
      }
    }
  }

  /**
   * The job's command line in its own JVM, on this JVM's class path, module opens and Spark
   * settings (the test JVMs' interpreted evaluation: this test is about stopping, not codegen).
   */
  private Child start(IngestSettings s, FailurePoint pauseAt) throws Exception {
    String endpoint = moto.endpoint().toString();
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    for (String a : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
      if (a.startsWith("--add-opens")
          || a.startsWith("--add-exports")
          || a.startsWith("-Dspark.sql.codegen.")) {
        cmd.add(a);
      }
    }
    cmd.add("-Xmx1g");
    cmd.add("-Djava.io.tmpdir=" + Files.createDirectories(dir.resolve("child-tmp")));
    cmd.add("-Daws.disableEc2Metadata=true");
    Map<String, String> hadoop = new HashMap<>();
    hadoop.put("fs.s3.impl", "org.apache.hadoop.fs.s3a.S3AFileSystem");
    hadoop.put("fs.s3a.endpoint", endpoint);
    hadoop.put("fs.s3a.endpoint.region", MotoServer.REGION);
    hadoop.put("fs.s3a.path.style.access", "true");
    hadoop.put("fs.s3a.connection.ssl.enabled", "false");
    hadoop.put("fs.s3a.access.key", MotoServer.ACCESS_KEY);
    hadoop.put("fs.s3a.secret.key", MotoServer.SECRET_KEY);
    hadoop.forEach((k, v) -> cmd.add("-Dspark.hadoop." + k + "=" + v));
    cmd.add("-cp");
    cmd.add(System.getProperty("java.class.path"));
    cmd.add("io.tidemark.ingest.cli.IngestCommand");
    cmd.addAll(
        List.of(
            "--raw-root",
            dir.resolve("raw").toString(),
            "--dataset",
            "customers",
            "--key-columns",
            "customer_id",
            "--change-marker",
            "updated_at",
            "--operation-column",
            "op",
            "--payload-columns",
            "customer_name,email",
            "--state-root",
            s.stateRoot(),
            "--warehouse",
            dir.resolve("warehouse").toString(),
            "--catalog-name",
            catalogName,
            "--spark-master",
            "local[2]",
            "--pause-at",
            pauseAt.name()));
    for (var e : catalogProperties().entrySet()) {
      if (!e.getKey().equals("warehouse")) {
        cmd.add("--catalog-property");
        cmd.add(e.getKey() + "=" + e.getValue());
      }
    }
    Path log = dir.resolve("child-" + pauseAt + ".log");
    ProcessBuilder pb =
        new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile());
    Map<String, String> env = pb.environment();
    env.put("SPARK_LOCAL_IP", "127.0.0.1");
    env.put("AWS_ACCESS_KEY_ID", MotoServer.ACCESS_KEY);
    env.put("AWS_SECRET_ACCESS_KEY", MotoServer.SECRET_KEY);
    env.put("AWS_REGION", MotoServer.REGION);
    env.put("AWS_EC2_METADATA_DISABLED", "true");
    return new Child(pb.start(), log);
  }
}
