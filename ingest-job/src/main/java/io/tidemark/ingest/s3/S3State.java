package io.tidemark.ingest.s3;

import io.tidemark.ingest.config.IngestSettings;
import java.net.URI;
import java.util.Locale;
import org.apache.iceberg.aws.AwsClientFactories;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * The run's own objects on S3 (run reports, the run lease), written with S3's conditional requests,
 * which Hadoop's file system API does not offer everywhere Glue and EMR run.
 */
public final class S3State {
  private S3State() {}

  /** An object's bucket and key. */
  public record Key(String bucket, String key) {
    /** Parses {@code s3://bucket/key} (or {@code s3a://}). */
    public static Key of(String location) {
      URI uri = URI.create(location.replace(" ", "%20"));
      String path = uri.getRawPath() == null ? "" : uri.getRawPath().replaceFirst("^/", "");
      if (!onS3(location) || uri.getHost() == null || path.isEmpty()) {
        throw new IllegalArgumentException("not an s3://bucket/key location: " + location);
      }
      return new Key(uri.getHost(), path.replace("%20", " "));
    }

    @Override
    public String toString() {
      return "s3://" + bucket + "/" + key;
    }
  }

  /** Whether a state root or location is on S3 ({@code s3://} or {@code s3a://}). */
  public static boolean onS3(String location) {
    String scheme = URI.create(location.replace(" ", "%20")).getScheme();
    return scheme != null
        && (scheme.toLowerCase(Locale.ROOT).equals("s3")
            || scheme.toLowerCase(Locale.ROOT).equals("s3a"));
  }

  /**
   * An S3 client as the catalog's properties describe it ({@code s3.endpoint}, {@code
   * client.region}, credentials...): the settings Iceberg's S3FileIO uses for the table's files.
   * The caller closes it.
   */
  public static S3Client client(IngestSettings settings) {
    return AwsClientFactories.from(settings.catalog().properties()).s3();
  }
}
