package io.tidemark.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.ingest.config.IngestSettings;
import io.tidemark.ingest.run.IngestJob;
import io.tidemark.ingest.run.IngestOutcome;
import io.tidemark.model.config.CatalogSpec;
import io.tidemark.model.contract.DatasetContract;
import io.tidemark.model.report.IngestStatus;
import io.tidemark.model.testing.AwsEmulator;
import io.tidemark.model.testing.AwsService;
import io.tidemark.model.testing.AwsSuite;
import io.tidemark.model.testing.AwsTest;
import java.nio.file.Path;
import java.time.Clock;
import java.time.ZoneOffset;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Tags;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * The production path on AWS, on an AWS emulator (moto_server; LocalStack too where Docker exists
 * and its edition serves Glue): raw files in S3 (read through Hadoop's S3A file system, {@code
 * s3://} mapped to it as Glue and EMR map it to theirs), the curated, quarantine and tombstone
 * tables in the Glue Data Catalog with their files on S3 (Iceberg's GlueCatalog and S3FileIO), run
 * reports on S3. Two days ingested there must leave exactly what the same two days leave in local
 * folders.
 */
@AwsSuite(services = {AwsService.S3, AwsService.GLUE})
@Tags({@Tag("aws"), @Tag("spark")})
class TestOnS3AndGlue extends SparkTestSupport {
  private static final String BUCKET = "tidemark-lake";

  @TempDir Path dir;
  private final java.util.Set<String> landed = new java.util.HashSet<>();
  private AwsEmulator aws;

  @BeforeEach
  void connect(AwsEmulator aws) {
    this.aws = aws;
    S3Lake.connect(spark, aws);
  }

  @AfterAll
  static void forgetCredentials() {
    S3Lake.disconnect();
  }

  private IngestSettings onAws() {
    DatasetContract spec =
        Contracts.customers("s3://" + BUCKET + "/raw/customers", "curated.customers");
    return IngestSettings.of(
            spec,
            new CatalogSpec("glue", S3Lake.glueCatalog(aws, "s3://" + BUCKET + "/warehouse")),
            "s3://" + BUCKET + "/state")
        .withClock(Clock.fixed(NOW, ZoneOffset.UTC));
  }

  @AwsTest
  void twoDaysOnS3AndGlueLeaveWhatTheyLeaveLocally() {
    IngestSettings local = settings(dir.resolve("local"));
    Path raw = Path.of(local.dataset().raw().location());
    try (S3Client s3 = S3Lake.s3(aws)) {
      s3.createBucket(b -> b.bucket(BUCKET));
      IngestSettings aws = onAws();

      RawFixtures.write(raw, "2024-03-18", "a.parquet", S3Lake.dayOne());
      S3Lake.upload(s3, BUCKET, "raw/customers", raw, landed);
      assertRun(new IngestJob(spark, local).run());
      assertRun(new IngestJob(spark, aws).run());

      RawFixtures.write(raw, "2024-03-19", "b.parquet", S3Lake.dayTwo());
      S3Lake.upload(s3, BUCKET, "raw/customers", raw, landed);
      IngestOutcome localDay2 = new IngestJob(spark, local).run();
      IngestOutcome awsDay2 = new IngestJob(spark, aws).run();
      assertRun(localDay2);
      assertRun(awsDay2);

      assertThat(curated(aws))
          .isEqualTo(curated(local))
          .hasSize(20)
          .containsKeys("K01", "K21")
          .doesNotContainKey("K02");
      assertThat(curated(aws).get("K01").get(0)).isEqualTo("Ann B");
      assertThat(awsDay2.report().counts()).isEqualTo(localDay2.report().counts());
      // Discovery on S3: the root's prefixes, then one prefix per partition in the lookback.
      assertThat(awsDay2.partitionsListed()).hasSize(2);
      System.out.println("S3 list calls day 2: " + awsDay2.report().discoveryListCalls());
      assertThat(awsDay2.report().discoveryListCalls()).isBetween(3, 6);
      assertThat(awsDay2.report().watermarkAfter()).isEqualTo(localDay2.report().watermarkAfter());
      assertThat(count(aws.curatedSparkName() + "_quarantine"))
          .isEqualTo(1)
          .isEqualTo(count(local.curatedSparkName() + "_quarantine"));
      // Run reports on S3, one per run.
      assertThat(
              s3.listObjectsV2(b -> b.bucket(BUCKET).prefix("state/_runs/")).contents().stream()
                  .filter(o -> o.key().endsWith(".json"))
                  .count())
          .isEqualTo(2);
    }
  }

  private static void assertRun(IngestOutcome outcome) {
    assertThat(outcome.report().status()).isEqualTo(IngestStatus.SUCCEEDED);
  }
}
