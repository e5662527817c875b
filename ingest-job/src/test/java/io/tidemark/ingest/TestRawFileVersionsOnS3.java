package io.tidemark.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.ingest.checkpoint.Checkpoint;
import io.tidemark.ingest.discovery.PartitionLister;
import io.tidemark.ingest.kernel.RawFile;
import io.tidemark.model.testing.AwsEmulator;
import io.tidemark.model.testing.AwsService;
import io.tidemark.model.testing.AwsSuite;
import io.tidemark.model.testing.AwsTest;
import java.time.LocalDate;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Tags;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * On S3 a raw file's version is told by its ETag, which the listing gives: no checksum is read, and
 * an object put again with the same size in the same second (S3's modification times have second
 * precision) is another version.
 */
@AwsSuite(services = AwsService.S3)
@Tags({@Tag("aws"), @Tag("spark")})
class TestRawFileVersionsOnS3 extends SparkTestSupport {
  private static final String BUCKET = "tidemark-versions";
  private static final String KEY = "raw/customers/ingest_date=2024-03-01/a.parquet";
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

  @AwsTest
  void theListingGivesEachObjectItsETagAndAnotherBodyOfTheSameSizeIsAnotherVersion() {
    try (S3Client s3 = S3Lake.s3(aws)) {
      s3.createBucket(b -> b.bucket(BUCKET));
      s3.putObject(b -> b.bucket(BUCKET).key(KEY), RequestBody.fromString("version one"));
      String etag = s3.headObject(b -> b.bucket(BUCKET).key(KEY)).eTag().replace("\"", "");
      RawFile first = list().get(0);
      assertThat(first.fingerprint()).isEqualTo("etag=" + etag);
      assertThat(first.stamp())
          .isEqualTo(first.size() + ":" + first.modificationTime() + ":etag=" + etag);
      Checkpoint cp = Checkpoint.advance(null, "b1", null, List.of(first), 2);

      s3.putObject(b -> b.bucket(BUCKET).key(KEY), RequestBody.fromString("version two"));
      RawFile second = list().get(0);
      assertThat(second.size()).isEqualTo(first.size());
      assertThat(second.fingerprint()).isNotEqualTo(first.fingerprint()).startsWith("etag=");
      // Even were the times equal, the ETag tells the versions apart, without a checksum.
      RawFile sameTime =
          new RawFile(
              second.path(),
              second.partition(),
              second.name(),
              second.size(),
              first.modificationTime(),
              second.fingerprint());
      assertThat(
              cp.isProcessed(
                  sameTime,
                  f -> {
                    throw new AssertionError("checksummed " + f.path());
                  }))
          .isFalse();
      assertThat(cp.isProcessed(first, f -> f)).isTrue();
    }
  }

  private List<RawFile> list() {
    return new PartitionLister(
            spark.sparkContext().hadoopConfiguration(),
            "s3://" + BUCKET + "/raw/customers",
            "ingest_date")
        .files(LocalDate.parse("2024-03-01"));
  }
}
