package io.tidemark.reconcile.report;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tidemark.model.json.Json;
import io.tidemark.model.report.ReconciliationMode;
import io.tidemark.model.report.ReconciliationReport;
import io.tidemark.model.report.ReconciliationStatus;
import io.tidemark.model.testing.AwsEmulator;
import io.tidemark.model.testing.AwsService;
import io.tidemark.model.testing.AwsSuite;
import io.tidemark.model.testing.AwsTest;
import io.tidemark.reconcile.fixtures.S3Clients;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * The S3 report store on an emulator's S3 (moto, and LocalStack where Docker exists), which honours
 * conditional writes: a PutObject with {@code If-None-Match: *} over an existing key, or with a
 * stale {@code If-Match} ETag, gets 412.
 */
@AwsSuite(services = AwsService.S3)
@Tag("aws")
class TestS3ReportStore {
  private static final String BUCKET = "tidemark-state";
  private static final String PREFIX = "prod/state";
  private static final Instant T = Instant.parse("2026-03-10T02:00:00Z");

  private S3Client s3;

  @BeforeEach
  void bucket(AwsEmulator aws) {
    s3 = S3Clients.on(aws);
    s3.createBucket(r -> r.bucket(BUCKET));
  }

  @AfterEach
  void closeClient() {
    s3.close();
  }

  private S3ReportStore store() {
    return new S3ReportStore(s3, BUCKET, PREFIX);
  }

  private static ReconciliationReport running(
      String id, String dataset, Instant start, Instant to, String trigger) {
    return new ReconciliationReport(
        ReconciliationReport.SCHEMA_VERSION,
        id,
        "default",
        dataset,
        ReconciliationMode.WINDOW,
        null,
        to,
        "athena",
        trigger,
        ReconciliationStatus.RUNNING,
        start,
        null,
        List.of(),
        0,
        0.0,
        null,
        null,
        null);
  }

  private ReconciliationReport stored(String key) {
    return Json.read(
        s3.getObjectAsBytes(r -> r.bucket(BUCKET).key(key)).asString(StandardCharsets.UTF_8),
        ReconciliationReport.class);
  }

  @AwsTest
  void reportsAreObjectsDatedByStartAndSurviveARestart() {
    S3ReportStore store = store();
    ReconciliationReport r = running("r1", "customers", T, T, "test");
    store.save(r);
    store.save(r.withOutcome(ReconciliationStatus.PASSED, T.plusSeconds(5), List.of(), 7, null));
    store.save(running("r2", "orders", T.plusSeconds(60), T.plusSeconds(60), "test"));

    assertThat(
            s3.listObjectsV2(x -> x.bucket(BUCKET)).contents().stream().map(S3Object::key).toList())
        .containsExactlyInAnyOrder(
            "prod/state/_reconciliation/dt=2026-03-10/r1.json",
            "prod/state/_reconciliation/dt=2026-03-10/r2.json");
    assertThat(stored("prod/state/_reconciliation/dt=2026-03-10/r1.json").status())
        .isEqualTo(ReconciliationStatus.PASSED);

    S3ReportStore reopened = store();
    assertThat(reopened.find("r1").orElseThrow().status()).isEqualTo(ReconciliationStatus.PASSED);
    assertThat(reopened.find("r1").orElseThrow().bytesScanned()).isEqualTo(7);
    assertThat(reopened.list(Optional.empty(), 10))
        .extracting(ReconciliationReport::id)
        .containsExactly("r2", "r1");
    assertThat(reopened.list(Optional.of("customers"), 10))
        .extracting(ReconciliationReport::id)
        .containsExactly("r1");
    assertThat(reopened.list(Optional.empty(), 1)).hasSize(1);
    assertThat(reopened.lastPassedWindowEnd("customers")).contains(T);
    assertThat(reopened.lastPassedWindowEnd("orders")).isEmpty();
  }

  @AwsTest
  void aRunningReportFoundAtStartIsRewrittenAbandoned() {
    store().save(running("r1", "customers", T, T, "test"));

    S3ReportStore afterCrash = store();
    List<ReconciliationReport> abandoned = afterCrash.abandonRunning(T.plusSeconds(3600));

    assertThat(abandoned).extracting(ReconciliationReport::id).containsExactly("r1");
    ReconciliationReport onS3 = store().find("r1").orElseThrow();
    assertThat(onS3.status()).isEqualTo(ReconciliationStatus.ABANDONED);
    assertThat(onS3.finishedAt()).isEqualTo(T.plusSeconds(3600));
    assertThat(onS3.error()).contains("stopped while this run was RUNNING");
    assertThat(afterCrash.abandonRunning(T.plusSeconds(7200))).isEmpty();
    assertThat(afterCrash.lastPassedWindowEnd("customers"))
        .as("an abandoned run is no window start")
        .isEmpty();
  }

  @AwsTest
  void anUnreadableReportDoesNotHideTheOthers() {
    store().save(running("r1", "customers", T, T, "test"));
    s3.putObject(
        r -> r.bucket(BUCKET).key("prod/state/_reconciliation/dt=2026-03-10/broken.json"),
        RequestBody.fromString("{not json"));

    S3ReportStore store = store();
    assertThat(store.find("r1")).isPresent();
    assertThat(store.unreadable())
        .extracting(UnreadableReport::location)
        .containsExactly(
            "s3://" + BUCKET + "/prod/state/_reconciliation/dt=2026-03-10/broken.json");
  }

  @AwsTest
  void aSecondCreateOfTheSameReportIsRefusedAndTheFirstKept() {
    S3ReportStore replicaA = store();
    S3ReportStore replicaB = store();
    replicaA.save(running("r1", "customers", T, T, "replica-a"));

    assertThatThrownBy(() -> replicaB.save(running("r1", "customers", T, T, "replica-b")))
        .isInstanceOfSatisfying(
            ReportConflictException.class, e -> assertThat(e.id()).isEqualTo("r1"))
        .hasMessage(
            "Cannot save reconciliation report r1:"
                + " s3://tidemark-state/prod/state/_reconciliation/dt=2026-03-10/r1.json already"
                + " exists (another replica created it); not overwritten");
    assertThat(stored("prod/state/_reconciliation/dt=2026-03-10/r1.json").trigger())
        .isEqualTo("replica-a");
    assertThat(replicaB.find("r1")).as("the refused report is not indexed").isEmpty();
  }

  @AwsTest
  void aRewriteOverAnotherWritersChangeIsRefused() {
    S3ReportStore first = store();
    ReconciliationReport r = running("r1", "customers", T, T, "test");
    first.save(r);
    store().abandonRunning(T.plusSeconds(60));

    assertThatThrownBy(
            () ->
                first.save(
                    r.withOutcome(
                        ReconciliationStatus.PASSED, T.plusSeconds(90), List.of(), 0, null)))
        .isInstanceOf(ReportConflictException.class)
        .hasMessageStartingWith(
            "Cannot save reconciliation report r1:"
                + " s3://tidemark-state/prod/state/_reconciliation/dt=2026-03-10/r1.json was"
                + " changed by another writer since this process wrote ETag ");
    assertThat(stored("prod/state/_reconciliation/dt=2026-03-10/r1.json").status())
        .isEqualTo(ReconciliationStatus.ABANDONED);
  }
}
