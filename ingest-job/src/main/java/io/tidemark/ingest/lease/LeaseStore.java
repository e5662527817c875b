package io.tidemark.ingest.lease;

import java.util.Optional;

/**
 * One small object that supports compare-and-swap writes: created only when absent, replaced or
 * deleted only while it still has the version (ETag) the caller read. S3 offers exactly this with
 * {@code If-None-Match: *} and {@code If-Match: <etag>}.
 */
public interface LeaseStore extends AutoCloseable {
  /** The object's body and version. */
  record Versioned(String body, String version) {}

  /** Where the object lives, for messages. */
  String location();

  /** The object, or empty when there is none. */
  Optional<Versioned> read();

  /** Creates the object when there is none; the new version, or empty when it exists. */
  Optional<String> create(String body);

  /** Replaces the object if it still has {@code version}; the new version, or empty if not. */
  Optional<String> replace(String body, String version);

  /** Deletes the object if it still has {@code version}; whether it did. */
  boolean delete(String version);

  /** Releases the store's client, if it owns one. */
  @Override
  default void close() {}
}
