package io.tidemark.ingest;

import static io.tidemark.ingest.RawFixtures.u;
import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.ingest.config.IngestSettings;
import io.tidemark.ingest.kernel.FailurePoint;
import io.tidemark.ingest.kernel.FailurePoints;
import io.tidemark.ingest.lease.LeaseHolder;
import io.tidemark.ingest.lease.RunLeases;
import io.tidemark.ingest.run.IngestJob;
import io.tidemark.ingest.run.IngestOutcome;
import io.tidemark.model.config.CatalogSpec;
import io.tidemark.model.contract.DatasetContract;
import io.tidemark.model.json.Json;
import io.tidemark.model.report.IngestErrorCode;
import io.tidemark.model.report.IngestRunReport;
import io.tidemark.model.report.IngestStatus;
import io.tidemark.model.testing.AwsEmulator;
import io.tidemark.model.testing.AwsService;
import io.tidemark.model.testing.AwsSuite;
import io.tidemark.model.testing.AwsTest;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Tags;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;

/**
 * The job's own state on S3, on an AWS emulator with the tables in the Glue catalog there: at most
 * one run works on a table (the run lease, a conditional-write object under the state root), and a
 * run report, once written, is never overwritten. The Glue catalog's own commit is the subject of
 * {@link TestGlueVersionIdOnMoto}.
 */
@AwsSuite(services = {AwsService.S3, AwsService.GLUE})
@Tags({@Tag("aws"), @Tag("spark")})
class TestStateOnS3 extends SparkTestSupport {
  private static final String BUCKET = "tidemark-lease";
  private static final Duration TTL = Duration.ofSeconds(2);
  private static int tests;

  @TempDir Path dir;
  private AwsEmulator aws;
  private S3Client s3;
  private String prefix;

  @BeforeEach
  void oneDayOfRawOnS3(AwsEmulator aws) {
    this.aws = aws;
    S3Lake.connect(spark, aws);
    s3 = S3Lake.s3(aws);
    s3.createBucket(b -> b.bucket(BUCKET));
    prefix = "t" + (++tests);
    List<RawFixtures.Rec> recs = new java.util.ArrayList<>();
    for (int i = 1; i <= 10; i++) {
      recs.add(u(String.format("K%02d", i), "Name " + i, "2024-03-19T10:00:00Z"));
    }
    Path raw = dir.resolve("raw");
    RawFixtures.write(raw, "2024-03-19", "a.parquet", recs);
    S3Lake.upload(s3, BUCKET, prefix + "/raw/customers", raw, new java.util.HashSet<>());
  }

  @AfterAll
  static void forgetCredentials() {
    S3Lake.disconnect();
  }

  @AfterEach
  void noLeaseLeftBehind() {
    // Each test ends with its lease released or removed; a leftover would block the next run.
    try {
      assertThat(leaseBody()).as("lease object after the test").isNull();
    } finally {
      s3.close();
    }
  }

  private IngestSettings onS3() {
    DatasetContract spec =
        Contracts.customers(
            "s3://" + BUCKET + "/" + prefix + "/raw/customers", prefix + ".customers");
    // One catalog per Spark session: each test has its own namespace in the same warehouse.
    return IngestSettings.of(
            spec,
            new CatalogSpec("gluelease", S3Lake.glueCatalog(aws, "s3://" + BUCKET + "/warehouse")),
            "s3://" + BUCKET + "/" + prefix + "/state")
        .withClock(Clock.fixed(NOW, ZoneOffset.UTC))
        .withLeaseTtl(TTL);
  }

  private String leaseKey() {
    return prefix + "/state/" + RunLeases.LEASES_FOLDER + "/" + prefix + ".customers.json";
  }

  private String leaseBody() {
    try {
      return s3.getObjectAsBytes(b -> b.bucket(BUCKET).key(leaseKey())).asUtf8String();
    } catch (NoSuchKeyException e) {
      return null;
    }
  }

  private void putLease(String runId, Instant expiresAt) {
    LeaseHolder other =
        new LeaseHolder(runId, "customers", prefix + ".customers", "host-b", NOW, expiresAt);
    s3.putObject(b -> b.bucket(BUCKET).key(leaseKey()), RequestBody.fromString(Json.write(other)));
  }

  private long curatedRows(IngestSettings s) {
    return spark.table(s.curatedSparkName()).count();
  }

  /** Runs the job on another thread, holding it at {@code point} until {@code go} opens. */
  private CompletableFuture<IngestOutcome> runHeldAt(
      IngestSettings s, FailurePoint point, CountDownLatch arrived, CountDownLatch go) {
    FailurePoints hold =
        p -> {
          if (p == point) {
            arrived.countDown();
            try {
              assertThat(go.await(60, TimeUnit.SECONDS)).isTrue();
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
          }
        };
    return CompletableFuture.supplyAsync(() -> new IngestJob(spark, s, hold).run());
  }

  @AwsTest
  void aSecondRunWhileTheFirstWorksExitsZeroNamingTheHolderAndTheFirstCommits() throws Exception {
    IngestSettings s = onS3();
    CountDownLatch arrived = new CountDownLatch(1);
    CountDownLatch go = new CountDownLatch(1);
    CompletableFuture<IngestOutcome> first = runHeldAt(s, FailurePoint.AFTER_READ, arrived, go);
    assertThat(arrived.await(2, TimeUnit.MINUTES)).isTrue();
    LeaseHolder holder = Json.read(leaseBody(), LeaseHolder.class);
    // Held for more than twice the lease's time to live: only renewal keeps it.
    Thread.sleep(TTL.multipliedBy(2).plusMillis(500).toMillis());

    IngestOutcome second = new IngestJob(spark, s).run();

    assertThat(second.report().status()).isEqualTo(IngestStatus.LEASE_HELD);
    assertThat(second.exitCode()).isZero();
    assertThat(second.report().batchId()).isNull();
    assertThat(second.report().warnings())
        .singleElement(org.assertj.core.api.InstanceOfAssertFactories.STRING)
        .contains("run " + holder.runId())
        .contains("s3://" + BUCKET + "/" + leaseKey());
    LeaseHolder renewed = Json.read(leaseBody(), LeaseHolder.class);
    assertThat(renewed.runId()).isEqualTo(holder.runId());
    assertThat(renewed.expiresAt()).isAfter(holder.expiresAt());

    go.countDown();
    IngestOutcome firstDone = first.get(3, TimeUnit.MINUTES);
    assertThat(firstDone.report().status()).isEqualTo(IngestStatus.SUCCEEDED);
    assertThat(firstDone.report().runId()).isEqualTo(holder.runId());
    assertThat(curatedRows(s)).isEqualTo(10);
    assertThat(leaseBody()).as("released at the end of the run").isNull();
    // Both runs left their report; the held one says so.
    List<IngestRunReport> reports = reports();
    assertThat(reports)
        .extracting(IngestRunReport::status)
        .containsExactlyInAnyOrder(IngestStatus.SUCCEEDED, IngestStatus.LEASE_HELD);
  }

  @AwsTest
  void aBackfillAndANormalRunNeverWorkOnTheTableAtOnce() throws Exception {
    IngestSettings s = onS3();
    IngestSettings backfill =
        s.backfill(LocalDate.parse("2024-03-19"), LocalDate.parse("2024-03-19"));
    assertThat(new IngestJob(spark, s).run().report().status()).isEqualTo(IngestStatus.SUCCEEDED);

    // A backfill at work holds the table: the nightly run waits its turn (exit 0, names it).
    CountDownLatch arrived = new CountDownLatch(1);
    CountDownLatch go = new CountDownLatch(1);
    CompletableFuture<IngestOutcome> first =
        runHeldAt(backfill, FailurePoint.AFTER_READ, arrived, go);
    assertThat(arrived.await(2, TimeUnit.MINUTES)).isTrue();
    LeaseHolder holder = Json.read(leaseBody(), LeaseHolder.class);
    IngestOutcome nightly = new IngestJob(spark, s).run();
    assertThat(nightly.report().status()).isEqualTo(IngestStatus.LEASE_HELD);
    assertThat(nightly.exitCode()).isZero();
    assertThat(nightly.report().warnings())
        .singleElement(org.assertj.core.api.InstanceOfAssertFactories.STRING)
        .contains("run " + holder.runId());
    go.countDown();
    IngestOutcome done = first.get(3, TimeUnit.MINUTES);
    assertThat(done.report().status()).as(done.report().error()).isEqualTo(IngestStatus.SUCCEEDED);
    assertThat(done.report().runId()).isEqualTo(holder.runId());

    // And the other way round: a backfill started while the nightly run works does nothing.
    Path nextDay = dir.resolve("raw2");
    RawFixtures.write(
        nextDay, "2024-03-20", "a.parquet", List.of(u("K11", "x", "2024-03-19T12:00:00Z")));
    S3Lake.upload(s3, BUCKET, prefix + "/raw/customers", nextDay, new java.util.HashSet<>());
    CountDownLatch arrived2 = new CountDownLatch(1);
    CountDownLatch go2 = new CountDownLatch(1);
    CompletableFuture<IngestOutcome> second = runHeldAt(s, FailurePoint.AFTER_READ, arrived2, go2);
    IngestOutcome refused;
    try {
      assertThat(arrived2.await(2, TimeUnit.MINUTES)).isTrue();
      refused = new IngestJob(spark, backfill).run();
    } finally {
      go2.countDown();
    }
    assertThat(refused.report().status()).isEqualTo(IngestStatus.LEASE_HELD);
    assertThat(refused.report().mode()).isEqualTo(io.tidemark.model.report.IngestMode.BACKFILL);
    assertThat(second.get(3, TimeUnit.MINUTES).report().status()).isEqualTo(IngestStatus.SUCCEEDED);
    assertThat(curatedRows(s)).isEqualTo(11);
  }

  @AwsTest
  void aCrashedHoldersLeaseLapsesAndTheNextRunTakesItOverAndCommitsOnce() throws Exception {
    IngestSettings s = onS3();
    FailurePoints crash =
        p -> {
          if (p == FailurePoint.BEFORE_PUBLISH) {
            throw new SimulatedCrash();
          }
        };
    try {
      new IngestJob(spark, s, crash).run();
    } catch (SimulatedCrash expected) {
      // the run died holding the lease
    }
    LeaseHolder crashed = Json.read(leaseBody(), LeaseHolder.class);

    IngestOutcome tooSoon = new IngestJob(spark, s).run();
    assertThat(tooSoon.report().status()).isEqualTo(IngestStatus.LEASE_HELD);
    assertThat(tooSoon.report().warnings().get(0)).contains(crashed.runId());

    Thread.sleep(Duration.between(Instant.now(), crashed.expiresAt()).toMillis() + 300);
    IngestOutcome next = new IngestJob(spark, s).run();
    assertThat(next.report().status())
        .as(String.valueOf(next.report().error()))
        .isEqualTo(IngestStatus.SUCCEEDED);
    assertThat(curatedRows(s)).isEqualTo(10);
    assertThat(new IngestJob(spark, s).run().report().status())
        .isEqualTo(IngestStatus.NOTHING_TO_DO);
  }

  @AwsTest
  void aRunWhoseLeaseWasTakenOverDoesNotCommit() throws Exception {
    IngestSettings s = onS3();
    CountDownLatch arrived = new CountDownLatch(1);
    CountDownLatch go = new CountDownLatch(1);
    CompletableFuture<IngestOutcome> run = runHeldAt(s, FailurePoint.BEFORE_COMMIT, arrived, go);
    assertThat(arrived.await(2, TimeUnit.MINUTES)).isTrue();
    // Another run takes the lease over (as if this one had hung past its expiry).
    putLease("run-b", Instant.now().plus(Duration.ofMinutes(5)));
    go.countDown();

    IngestOutcome lost = run.get(3, TimeUnit.MINUTES);
    assertThat(lost.report().status()).isEqualTo(IngestStatus.FAILED);
    assertThat(lost.report().errorCode()).isEqualTo(IngestErrorCode.LEASE_LOST);
    assertThat(lost.exitCode()).isEqualTo(1);
    assertThat(lost.report().error()).contains("taken over").contains("nothing committed");
    assertThat(lost.report().snapshotId()).isNull();
    assertThat(curatedRows(s)).isZero();
    assertThat(Json.read(leaseBody(), LeaseHolder.class).runId())
        .as("the other run's lease is left alone")
        .isEqualTo("run-b");

    s3.deleteObject(b -> b.bucket(BUCKET).key(leaseKey()));
    assertThat(new IngestJob(spark, s).run().report().status()).isEqualTo(IngestStatus.SUCCEEDED);
    assertThat(curatedRows(s)).isEqualTo(10);
  }

  @AwsTest
  void anObjectThatIsNotALeaseStopsTheRunNamingIt() {
    IngestSettings s = onS3();
    s3.putObject(b -> b.bucket(BUCKET).key(leaseKey()), RequestBody.fromString("not json"));

    IngestOutcome out = new IngestJob(spark, s).run();

    assertThat(out.report().status()).isEqualTo(IngestStatus.FAILED);
    assertThat(out.exitCode()).isEqualTo(1);
    assertThat(out.report().error())
        .contains("s3://" + BUCKET + "/" + leaseKey())
        .contains("is not a Tidemark run lease");
    s3.deleteObject(b -> b.bucket(BUCKET).key(leaseKey()));
  }

  @AwsTest
  void aRunReportOnS3IsCreatedOnceAndNeverOverwritten() throws Exception {
    IngestSettings s = onS3();
    IngestOutcome out = new IngestJob(spark, s).run();
    assertThat(out.report().status()).isEqualTo(IngestStatus.SUCCEEDED);
    assertThat(out.reportLocation()).startsWith("s3://" + BUCKET + "/" + prefix + "/state/_runs/");
    String key = out.reportLocation().substring(("s3://" + BUCKET + "/").length());
    String written = s3.getObjectAsBytes(b -> b.bucket(BUCKET).key(key)).asUtf8String();
    assertThat(Json.read(written, IngestRunReport.class)).isEqualTo(out.report());

    // A second writer of the same report (a later run rebuilding a report it thinks is missing)
    // leaves the first one as it is.
    IngestRunReport other =
        Json.read(written.replace("\"SUCCEEDED\"", "\"ALREADY_COMMITTED\""), IngestRunReport.class);
    assertThat(
            io.tidemark.ingest.report.RunReports.write(
                s, other, spark.sparkContext().hadoopConfiguration()))
        .isEqualTo(out.reportLocation());
    assertThat(s3.getObjectAsBytes(b -> b.bucket(BUCKET).key(key)).asUtf8String())
        .isEqualTo(written);
  }

  private List<IngestRunReport> reports() {
    return s3
        .listObjectsV2(b -> b.bucket(BUCKET).prefix(prefix + "/state/_runs/"))
        .contents()
        .stream()
        .filter(o -> o.key().endsWith(".json"))
        .map(
            o ->
                Json.read(
                    s3.getObjectAsBytes(b -> b.bucket(BUCKET).key(o.key())).asUtf8String(),
                    IngestRunReport.class))
        .toList();
  }

  /** A crash drill: an Error, which the job lets through as a dying process would. */
  static final class SimulatedCrash extends Error {}
}
