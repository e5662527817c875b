package io.tidemark.stack;

import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A folder in S3, from an {@code s3://bucket/prefix} URI: what the stack's roles are granted and
 * its tables point at.
 *
 * @param bucket the bucket's name
 * @param prefix the folder's key prefix, without a leading or trailing {@code /}; never empty
 */
record S3Location(String bucket, String prefix) {
  private static final Pattern URI =
      Pattern.compile("s3://([a-z0-9][a-z0-9.-]{1,61}[a-z0-9])(/.*)?");

  S3Location {
    Objects.requireNonNull(bucket, "bucket is null");
    Objects.requireNonNull(prefix, "prefix is null");
  }

  /**
   * The folder a URI names.
   *
   * @return null when {@code uri} is not {@code s3://bucket/folder}; {@link #problem} says why
   */
  static S3Location parse(String uri) {
    Matcher m = URI.matcher(uri == null ? "" : uri);
    if (!m.matches()) {
      return null;
    }
    String path = m.group(2) == null ? "" : m.group(2);
    String prefix = path.replaceAll("^/+", "").replaceAll("/+$", "");
    if (prefix.isEmpty() || prefix.contains("//")) {
      return null;
    }
    return new S3Location(m.group(1), prefix);
  }

  /** Why {@link #parse} refuses a URI, for a message that follows the value. */
  static String problem(String uri) {
    if (uri == null || !uri.startsWith("s3://")) {
      return "is not an s3:// location; an AWS stack reads raw files and writes tables in S3 only";
    }
    Matcher m = URI.matcher(uri);
    if (!m.matches()) {
      return "does not start with a valid bucket name (s3://bucket/folder)";
    }
    return "names no folder, or an empty path segment (s3://bucket/folder, one slash between"
        + " folders)";
  }

  /** {@code s3://bucket/prefix}. */
  String uri() {
    return "s3://" + bucket + "/" + prefix;
  }
}
