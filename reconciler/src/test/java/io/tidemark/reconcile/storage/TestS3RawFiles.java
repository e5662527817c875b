package io.tidemark.reconcile.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.tidemark.model.contract.DatasetContract;
import io.tidemark.model.contract.RawLayout.StrayEntry;
import io.tidemark.model.testing.AwsEmulator;
import io.tidemark.model.testing.AwsService;
import io.tidemark.model.testing.AwsSuite;
import io.tidemark.model.testing.AwsTest;
import io.tidemark.reconcile.fixtures.Contracts;
import io.tidemark.reconcile.fixtures.S3Clients;
import io.tidemark.reconcile.kernel.EngineException;
import io.tidemark.reconcile.storage.RawFiles.RawFile;
import io.tidemark.reconcile.storage.S3RawFiles.S3Listing;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Raw files listed on an emulator's S3 (moto, and LocalStack where Docker exists) under the
 * raw-layer contract. Both page ListObjectsV2 at 1,000 keys, as S3 does, so a partition of 1,050
 * files takes two calls.
 */
@AwsSuite(services = AwsService.S3)
@Tag("aws")
class TestS3RawFiles {
  private static final String BUCKET = "tidemark-raw";
  private static final String DATASET = "lake/customers/";
  private static final String LOCATION = "s3://" + BUCKET + "/lake/customers";

  @TempDir Path dir;
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

  private Instant put(String relativeKey, String body) {
    s3.putObject(r -> r.bucket(BUCKET).key(DATASET + relativeKey), RequestBody.fromString(body));
    return s3.headObject(r -> r.bucket(BUCKET).key(DATASET + relativeKey)).lastModified();
  }

  /** Entries every layout test needs: hidden ones, strays, a data file in upper case. */
  private static final List<String> ODD_ENTRIES =
      List.of(
          "ingest_date=2026-03-09/_SUCCESS",
          "ingest_date=2026-03-09/.part-0.parquet.crc",
          "ingest_date=2026-03-09/notes.txt",
          "ingest_date=2026-03-09/UPPER.PARQUET",
          "ingest_date=2026-03-09/nested/deeper.parquet",
          "_temporary/0/task.parquet",
          ".staging/a.parquet",
          ".DS_Store",
          "_SUCCESS",
          "README.md",
          "ingest_date=2026-3-7/x.parquet",
          "Ingest_Date=2026-03-08/y.parquet",
          "misc/z.parquet");

  private static final List<StrayEntry> EXPECTED_STRAYS =
      List.of(
          new StrayEntry(
              LOCATION + "/Ingest_Date=2026-03-08",
              "the partition column is 'ingest_date' (names are case-sensitive)"),
          StrayEntry.file(LOCATION + "/README.md"),
          // Inside a date folder too, as the job's discovery names them (one walker, RawListing).
          new StrayEntry(
              LOCATION + "/ingest_date=2026-03-09/nested",
              "a folder inside the date folders ingest_date=2026-03-09"),
          new StrayEntry(
              LOCATION + "/ingest_date=2026-03-09/notes.txt", "not a .parquet data file"),
          new StrayEntry(LOCATION + "/ingest_date=2026-3-7", "'2026-3-7' is not a date YYYY-MM-DD"),
          new StrayEntry(LOCATION + "/misc", "not a ingest_date=YYYY-MM-DD partition folder"));

  @AwsTest
  void everyPageIsListedAndTheContractHolds() throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      List<Future<Instant>> puts = new ArrayList<>();
      IntStream.range(0, 1_050)
          .forEach(
              i ->
                  puts.add(
                      pool.submit(
                          () ->
                              put(
                                  String.format("ingest_date=2026-03-09/part-%04d.parquet", i),
                                  "row " + i))));
      for (Future<Instant> f : puts) {
        f.get();
      }
    } finally {
      pool.shutdownNow();
    }
    ODD_ENTRIES.forEach(e -> put(e, "x"));
    s3.putObject(r -> r.bucket(BUCKET).key(DATASET), RequestBody.empty()); // a folder marker
    Instant early = put("ingest_date=2026-03-06/early.parquet", "early");
    // S3 dates objects to the second: let the late file land in a later one.
    await()
        .atMost(Duration.ofSeconds(5))
        .until(() -> Instant.now().truncatedTo(ChronoUnit.SECONDS).isAfter(early));
    Instant late = put("ingest_date=2026-03-06/late.parquet", "late!");
    DatasetContract raw = onLocation(LOCATION);

    S3Listing all = S3RawFiles.list(s3, raw, null);

    assertThat(all.listing().files()).hasSize(1_050 + 1 + 2);
    assertThat(all.listing().strays()).isEqualTo(EXPECTED_STRAYS);
    assertThat(all.listCalls())
        .as("the dataset folder, two pages of 2026-03-09, one of 2026-03-06")
        .isEqualTo(4);
    assertThat(all.listing().files())
        .extracting(RawFile::path)
        .contains(
            LOCATION + "/ingest_date=2026-03-09/UPPER.PARQUET",
            LOCATION + "/ingest_date=2026-03-09/part-1049.parquet")
        .doesNotContain(LOCATION + "/ingest_date=2026-03-09/nested/deeper.parquet")
        .isSorted();
    assertThat(all.listing().files().get(0))
        .isEqualTo(
            new RawFile(
                LOCATION + "/ingest_date=2026-03-06/early.parquet",
                LocalDate.parse("2026-03-06"),
                5,
                early));

    S3Listing recent = S3RawFiles.list(s3, raw, LocalDate.parse("2026-03-09"), late);

    assertThat(recent.listing().files())
        .as("of the old partition, only the file that arrived since the window start")
        .hasSize(1_050 + 1 + 1)
        .extracting(RawFile::path)
        .contains(LOCATION + "/ingest_date=2026-03-06/late.parquet")
        .doesNotContain(LOCATION + "/ingest_date=2026-03-06/early.parquet");
    assertThat(recent.listing().strays()).isEqualTo(EXPECTED_STRAYS);

    S3Listing fromDateOnly = S3RawFiles.list(s3, raw, LocalDate.parse("2026-03-09"));
    assertThat(fromDateOnly.listing().files()).hasSize(1_050 + 1);
    assertThat(fromDateOnly.listCalls()).as("the old partition is not listed").isEqualTo(3);
  }

  @AwsTest
  void s3AndALocalFolderListTheSameLayoutAlike() throws Exception {
    List<String> entries = new ArrayList<>(ODD_ENTRIES);
    entries.addAll(
        List.of(
            "ingest_date=2026-03-09/a.parquet",
            "ingest_date=2026-03-09/b [1].parquet",
            "ingest_date=2026-03-01/old.parquet"));
    Path local = dir.resolve("customers");
    for (String e : entries) {
      put(e, "x");
      Path file = local.resolve(e);
      Files.createDirectories(file.getParent());
      Files.writeString(file, "x");
    }

    for (LocalDate from : new LocalDate[] {null, LocalDate.parse("2026-03-05")}) {
      RawFiles.Listing onS3 = S3RawFiles.list(s3, onLocation(LOCATION), from).listing();
      RawFiles.Listing onDisk = RawFiles.list(onLocation(local.toString()), from);

      assertThat(onS3.files())
          .extracting(f -> f.path().substring(LOCATION.length() + 1) + " " + f.partitionDate())
          .isEqualTo(
              onDisk.files().stream()
                  .map(f -> local.relativize(Path.of(f.path())) + " " + f.partitionDate())
                  .toList());
      assertThat(onS3.strays())
          .extracting(s -> s.path().substring(LOCATION.length() + 1) + " " + s.problem())
          .isEqualTo(
              onDisk.strays().stream()
                  .map(s -> local.relativize(Path.of(s.path())) + " " + s.problem())
                  .toList());
    }
  }

  @AwsTest
  void aLocationWithNoObjectsIsAnOutageNotAnEmptyDataset() {
    assertThatThrownBy(() -> S3RawFiles.list(s3, onLocation(LOCATION), null))
        .isInstanceOf(EngineException.class)
        .hasMessage(
            "Cannot list raw files: raw location s3://tidemark-raw/lake/customers holds no objects");
    assertThatThrownBy(() -> S3RawFiles.list(s3, onLocation("s3://no-such-bucket/customers"), null))
        .isInstanceOf(EngineException.class)
        .hasMessageStartingWith("Cannot list raw files under s3://no-such-bucket/customers/: ");
  }

  /** The customers contract over raw files at {@code location}. */
  private static DatasetContract onLocation(String location) {
    return Contracts.customers("customers", location, "curated.customers");
  }
}
