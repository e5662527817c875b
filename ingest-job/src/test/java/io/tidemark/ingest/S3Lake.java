package io.tidemark.ingest;

import io.tidemark.model.testing.AwsEmulator;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.spark.sql.SparkSession;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * The job's AWS path pointed at an emulator: Hadoop's S3A for {@code s3://} raw files and run
 * reports, Iceberg's Glue catalog and S3FileIO for the tables, an S3 client for the test itself.
 */
final class S3Lake {
  /** The endpoint Hadoop's cached S3A file systems point at. */
  private static URI hadoopEndpoint;

  private S3Lake() {}

  /** Points the session's S3A and the default AWS credential chain at {@code aws}. */
  static void connect(SparkSession spark, AwsEmulator aws) {
    // Iceberg's AWS clients take the default credential chain: the emulator's throw-away keys.
    System.setProperty("aws.accessKeyId", aws.accessKey());
    System.setProperty("aws.secretAccessKey", aws.secretKey());
    System.setProperty("aws.region", aws.region());
    if (hadoopEndpoint != null && !hadoopEndpoint.equals(aws.endpoint())) {
      try {
        FileSystem.closeAll(); // cached S3A file systems still point at the other emulator
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    hadoopEndpoint = aws.endpoint();
    Configuration hadoop = spark.sparkContext().hadoopConfiguration();
    hadoop.set("fs.s3.impl", "org.apache.hadoop.fs.s3a.S3AFileSystem");
    hadoop.set("fs.s3a.endpoint", aws.endpoint().toString());
    hadoop.set("fs.s3a.endpoint.region", aws.region());
    hadoop.set("fs.s3a.path.style.access", "true");
    hadoop.set("fs.s3a.access.key", aws.accessKey());
    hadoop.set("fs.s3a.secret.key", aws.secretKey());
    hadoop.set("fs.s3a.connection.ssl.enabled", "false");
  }

  /** Forgets the credentials {@link #connect} set. */
  static void disconnect() {
    System.clearProperty("aws.accessKeyId");
    System.clearProperty("aws.secretAccessKey");
    System.clearProperty("aws.region");
    hadoopEndpoint = null;
  }

  static S3Client s3(AwsEmulator aws) {
    return aws.configure(S3Client.builder()).forcePathStyle(true).build();
  }

  /** Iceberg catalog properties: the Glue catalog and S3FileIO on the emulator. */
  static Map<String, String> glueCatalog(AwsEmulator aws, String warehouse) {
    Map<String, String> p = new HashMap<>();
    p.put("type", "glue");
    p.put("warehouse", warehouse);
    p.put("client.region", aws.region());
    p.put("glue.endpoint", aws.endpoint().toString());
    p.put("s3.endpoint", aws.endpoint().toString());
    p.put("s3.path-style-access", "true");
    return p;
  }

  /**
   * Lands the raw files under {@code raw} not landed yet at {@code s3://bucket/prefix/...}, as an
   * exporter would (a file put again is a new delivery: its modification time changes).
   */
  static void upload(S3Client s3, String bucket, String prefix, Path raw, Set<String> landed) {
    try (Stream<Path> files = Files.walk(raw)) {
      for (Path f : files.filter(Files::isRegularFile).toList()) {
        String rel = raw.relativize(f).toString().replace('\\', '/');
        if (rel.contains("/.") || rel.startsWith(".") || rel.endsWith(".crc") || !landed.add(rel)) {
          continue;
        }
        s3.putObject(b -> b.bucket(bucket).key(prefix + "/" + rel), RequestBody.fromFile(f));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Day one of the AWS-path scenario (2024-03-18): keys K01..K20 and a row without a key. */
  static List<RawFixtures.Rec> dayOne() {
    List<RawFixtures.Rec> day = new ArrayList<>();
    for (int i = 1; i <= 20; i++) {
      day.add(RawFixtures.u(String.format("K%02d", i), "Name " + i, "2024-03-18T10:00:00Z"));
    }
    day.add(RawFixtures.u("", "no key", "2024-03-18T10:00:00Z"));
    return day;
  }

  /** Day two (2024-03-19): K01 updated, K02 deleted, K21 new. */
  static List<RawFixtures.Rec> dayTwo() {
    return List.of(
        RawFixtures.u("K01", "Ann B", "2024-03-19T09:00:00Z"),
        RawFixtures.d("K02", "2024-03-19T09:00:00Z"),
        RawFixtures.u("K21", "Dee", "2024-03-19T09:00:00Z"));
  }
}
