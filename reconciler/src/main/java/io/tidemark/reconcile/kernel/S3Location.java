package io.tidemark.reconcile.kernel;

import java.util.Objects;
import java.util.function.Consumer;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Response;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * A place on S3: a bucket and a key prefix, from an {@code s3://bucket/prefix} URI. The prefix has
 * no leading slash and, unless empty, ends in one, so that {@code prefix + name} is a child.
 *
 * @param bucket the bucket
 * @param prefix the folder-like key prefix: empty, or ending in {@code /}
 */
public record S3Location(String bucket, String prefix) {
  public S3Location {
    Objects.requireNonNull(bucket, "bucket is null");
    Objects.requireNonNull(prefix, "prefix is null");
    if (bucket.isBlank() || bucket.contains("/")) {
      throw new IllegalArgumentException(
          "Cannot use S3 bucket '" + bucket + "': not a bucket name");
    }
    while (prefix.startsWith("/")) {
      prefix = prefix.substring(1);
    }
    if (!prefix.isEmpty() && !prefix.endsWith("/")) {
      prefix = prefix + "/";
    }
  }

  /** The location of an {@code s3://bucket/prefix} URI. */
  public static S3Location parse(String uri) {
    Objects.requireNonNull(uri, "uri is null");
    if (!uri.startsWith("s3://")) {
      throw new IllegalArgumentException("Cannot read " + uri + " from S3: not an s3:// URI");
    }
    String rest = uri.substring("s3://".length());
    int slash = rest.indexOf('/');
    return slash < 0
        ? new S3Location(rest, "")
        : new S3Location(rest.substring(0, slash), rest.substring(slash + 1));
  }

  /** The {@code s3://bucket/key} URI of a key in this bucket. */
  public String uri(String key) {
    return "s3://" + bucket + "/" + key;
  }

  /**
   * Lists one folder level of this bucket under {@code prefix} ({@code /} as delimiter), every
   * page.
   *
   * @param objects receives the objects directly under the prefix
   * @param folders receives the sub-folders' prefixes
   * @return the ListObjectsV2 calls it made
   * @throws software.amazon.awssdk.core.exception.SdkException as the client throws it
   */
  public int listLevel(
      S3Client s3, String prefix, Consumer<S3Object> objects, Consumer<String> folders) {
    int calls = 0;
    String token = null;
    do {
      String pageToken = token;
      ListObjectsV2Response page =
          s3.listObjectsV2(
              r -> r.bucket(bucket).prefix(prefix).delimiter("/").continuationToken(pageToken));
      calls++;
      page.contents().forEach(objects);
      page.commonPrefixes().forEach(p -> folders.accept(p.prefix()));
      token = Boolean.TRUE.equals(page.isTruncated()) ? page.nextContinuationToken() : null;
    } while (token != null);
    return calls;
  }

  @Override
  public String toString() {
    return uri(prefix);
  }
}
