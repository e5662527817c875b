package io.tidemark.ingest.lease;

import io.tidemark.ingest.s3.S3State;
import java.util.Objects;
import java.util.Optional;
import software.amazon.awssdk.core.ResponseBytes;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * A {@link LeaseStore} on one S3 object, with S3's conditional writes: {@code If-None-Match: *} to
 * create, {@code If-Match: <etag>} to renew, take over or delete.
 */
public final class S3LeaseStore implements LeaseStore {
  /** Precondition Failed: the object exists (create) or has another ETag (replace, delete). */
  private static final int PRECONDITION_FAILED = 412;

  /** Conflict: another conditional write to the key was in flight; the caller lost the race. */
  private static final int CONFLICT = 409;

  private static final int NOT_FOUND = 404;

  private final S3Client s3;
  private final String bucket;
  private final String key;

  /** A store on the object at {@code at}; {@link #close()} closes {@code s3}. */
  public S3LeaseStore(S3Client s3, S3State.Key at) {
    this.s3 = Objects.requireNonNull(s3, "s3 is null");
    this.bucket = at.bucket();
    this.key = at.key();
  }

  @Override
  public void close() {
    s3.close();
  }

  @Override
  public String location() {
    return "s3://" + bucket + "/" + key;
  }

  @Override
  public Optional<Versioned> read() {
    try {
      ResponseBytes<GetObjectResponse> got = s3.getObjectAsBytes(b -> b.bucket(bucket).key(key));
      return Optional.of(new Versioned(got.asUtf8String(), got.response().eTag()));
    } catch (S3Exception e) {
      if (e.statusCode() == NOT_FOUND) {
        return Optional.empty();
      }
      throw e;
    }
  }

  @Override
  public Optional<String> create(String body) {
    try {
      return Optional.of(
          s3.putObject(
                  b -> b.bucket(bucket).key(key).ifNoneMatch("*").contentType("application/json"),
                  RequestBody.fromString(body))
              .eTag());
    } catch (S3Exception e) {
      if (e.statusCode() == PRECONDITION_FAILED || e.statusCode() == CONFLICT) {
        return Optional.empty();
      }
      throw e;
    }
  }

  @Override
  public Optional<String> replace(String body, String version) {
    try {
      return Optional.of(
          s3.putObject(
                  b -> b.bucket(bucket).key(key).ifMatch(version).contentType("application/json"),
                  RequestBody.fromString(body))
              .eTag());
    } catch (S3Exception e) {
      if (e.statusCode() == PRECONDITION_FAILED
          || e.statusCode() == CONFLICT
          || e.statusCode() == NOT_FOUND) {
        return Optional.empty();
      }
      throw e;
    }
  }

  @Override
  public boolean delete(String version) {
    try {
      s3.deleteObject(b -> b.bucket(bucket).key(key).ifMatch(version));
      return true;
    } catch (S3Exception e) {
      if (e.statusCode() == PRECONDITION_FAILED
          || e.statusCode() == CONFLICT
          || e.statusCode() == NOT_FOUND) {
        return false;
      }
      throw e;
    }
  }
}
