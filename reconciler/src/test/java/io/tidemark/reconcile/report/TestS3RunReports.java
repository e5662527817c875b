package io.tidemark.reconcile.report;

import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.model.json.Json;
import io.tidemark.model.report.DiscoveryMode;
import io.tidemark.model.report.IngestCounts;
import io.tidemark.model.report.IngestMode;
import io.tidemark.model.report.IngestRunReport;
import io.tidemark.model.report.IngestStatus;
import io.tidemark.model.testing.AwsEmulator;
import io.tidemark.model.testing.AwsService;
import io.tidemark.model.testing.AwsSuite;
import io.tidemark.model.testing.AwsTest;
import io.tidemark.reconcile.fixtures.S3Clients;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;

/** Run reports read from an emulator's S3 (moto; LocalStack too) under the ingest job's layout. */
@AwsSuite(services = AwsService.S3)
@Tag("aws")
class TestS3RunReports {
  private static final String BUCKET = "tidemark-state";
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

  private void land(String pipeline, String dataset, String runId, Instant finishedAt) {
    IngestRunReport r =
        IngestRunReport.builder()
            .runId(runId)
            .batchId("batch-" + runId)
            .pipeline(pipeline)
            .dataset(dataset)
            .mode(IngestMode.INCREMENTAL)
            .discoveryMode(DiscoveryMode.FILES)
            .status(IngestStatus.SUCCEEDED)
            .startedAt(finishedAt.minusSeconds(60))
            .finishedAt(finishedAt)
            .watermarkAfter(finishedAt.toString())
            .lookback(Duration.ofHours(1))
            .counts(new IngestCounts(4, 4, 0, 0, 30, 27, 3, 2, 22, 20, 0, 1, 0, 1, 0))
            .snapshotId(1L)
            .build();
    LocalDate dt = LocalDate.ofInstant(r.startedAt(), ZoneOffset.UTC);
    put("state/_runs/dt=" + dt + "/" + runId + ".json", Json.write(r));
  }

  private void put(String key, String body) {
    s3.putObject(r -> r.bucket(BUCKET).key(key), RequestBody.fromString(body));
  }

  @AwsTest
  void theRunsOfOneDatasetThatFinishedInTheWindowAreRead() {
    land("default", "customers", "old", T.minus(Duration.ofDays(3)));
    land("default", "customers", "before", T.minusSeconds(1));
    land("default", "customers", "atStart", T);
    land("default", "customers", "inside", T.plusSeconds(600));
    land("default", "customers", "atEnd", T.plusSeconds(3600));
    land("default", "customers", "after", T.plusSeconds(3601));
    land("default", "orders", "otherDataset", T.plusSeconds(600));
    land("backfill", "customers", "otherPipeline", T.plusSeconds(600));
    put("state/_runs/dt=2026-03-10/.inside.json.tmp", "{partial");
    put("state/_runs/dt=2026-03-10/.hidden.json", "{partial");
    put("state/_runs/not-a-day/x.json", "{not read");

    List<IngestRunReport> runs =
        new S3RunReports(s3, BUCKET, "state")
            .read("default", "customers", T, T.plusSeconds(3600))
            .reports();

    assertThat(runs)
        .extracting(IngestRunReport::runId)
        .containsExactlyInAnyOrder("inside", "atEnd");
    assertThat(
            new S3RunReports(s3, BUCKET, "state")
                .read("default", "customers", null, T.plusSeconds(3600))
                .reports())
        .extracting(IngestRunReport::runId)
        .containsExactlyInAnyOrder("old", "before", "atStart", "inside", "atEnd");
  }

  @AwsTest
  void aRunStartedTheDayBeforeTheWindowIsFound() {
    land("default", "customers", "overnight", Instant.parse("2026-03-10T00:00:30Z"));

    assertThat(
            new S3RunReports(s3, BUCKET, "state")
                .read("default", "customers", Instant.parse("2026-03-10T00:00:00Z"), T)
                .reports())
        .extracting(IngestRunReport::runId)
        .containsExactly("overnight");
  }

  /** Before this change one truncated report made the whole read fail. */
  @AwsTest
  void anUnreadableReportIsSkippedAndNamed() {
    land("default", "customers", "inside", T);
    put("state/_runs/dt=2026-03-10/broken.json", "{\"runId\":\"trunc");

    RunReportSource.Listing listing =
        new S3RunReports(s3, BUCKET, "state").read("default", "customers", null, T);

    assertThat(listing.reports()).extracting(IngestRunReport::runId).containsExactly("inside");
    assertThat(listing.unreadable())
        .singleElement()
        .satisfies(
            u -> {
              assertThat(u.kind()).isEqualTo("run");
              assertThat(u.location())
                  .isEqualTo("s3://tidemark-state/state/_runs/dt=2026-03-10/broken.json");
              assertThat(u.message())
                  .startsWith(
                      "Cannot read run report"
                          + " s3://tidemark-state/state/_runs/dt=2026-03-10/broken.json: ")
                  .endsWith("; skipped");
            });
  }

  /**
   * The newest runs read only the newest day folders, each object once; an object that lands or
   * changes later is fetched when its day is read again.
   */
  @AwsTest
  void theNewestRunsReadOnlyTheNewestDaysAndEachObjectOnce() {
    for (int day = 0; day < 10; day++) {
      for (int run = 0; run < 3; run++) {
        Instant at = T.minus(Duration.ofDays(day)).plusSeconds(run * 600L);
        land("default", "customers", "d" + day + "-r" + run, at);
      }
    }
    S3RunReports reports = new S3RunReports(s3, BUCKET, "state");

    assertThat(reports.newest("default", "customers", 4).reports())
        .extracting(IngestRunReport::runId)
        .containsExactly("d0-r2", "d0-r1", "d0-r0", "d1-r2");
    assertThat(reports.parsedCount())
        .as("days 0 and 1 hold the four, and day 2 may hold a run that ended after them")
        .isEqualTo(9);
    reports.newest("default", "customers", 4);
    assertThat(reports.parsedCount()).as("nothing changed: nothing fetched again").isEqualTo(9);

    land("default", "customers", "new", T.plusSeconds(3000));
    assertThat(reports.newest("default", "customers", 1).reports())
        .extracting(IngestRunReport::runId)
        .containsExactly("new");
    assertThat(reports.parsedCount()).isEqualTo(10);
  }

  @AwsTest
  void noRunsFolderMeansNoRuns() {
    RunReportSource.Listing listing =
        new S3RunReports(s3, BUCKET, "state").read("default", "customers", null, T);
    assertThat(listing.reports()).isEmpty();
    assertThat(listing.unreadable()).isEmpty();
  }
}
