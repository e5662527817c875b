package io.tidemark.ingest.kernel;

import java.util.Objects;

/**
 * What identifies one version of a raw file: its size, its modification time and, where one is
 * known, a fingerprint of its content ({@code etag=...}, the object store's ETag, or {@code
 * sha256=...}, a checksum of the bytes). Size and modification time alone miss a file rewritten
 * with the same size and a preserved modification time ({@code rsync -t}, {@code cp -p}).
 *
 * <p>As text ({@link #text()}, what checkpoints hold): {@code size:mtime:fingerprint}, or {@code
 * size:mtime} for a stamp written before fingerprints, which {@link #parse} still reads.
 *
 * @param size the file's length in bytes
 * @param modificationTime its modification time, epoch milliseconds
 * @param fingerprint its content fingerprint; null when not known
 */
public record FileStamp(long size, long modificationTime, String fingerprint) {
  public FileStamp {
    if (size < 0) {
      throw new IllegalArgumentException("Cannot stamp a file: size " + size + " is negative");
    }
    if (fingerprint != null && (fingerprint.isBlank() || fingerprint.indexOf(':') >= 0)) {
      throw new IllegalArgumentException(
          "Cannot stamp a file: fingerprint '" + fingerprint + "' is blank or holds a ':'");
    }
  }

  /** Reads {@code size:mtime} or {@code size:mtime:fingerprint}. */
  public static FileStamp parse(String text) {
    Objects.requireNonNull(text, "text is null");
    String[] parts = text.split(":", 3);
    if (parts.length < 2) {
      throw new IllegalArgumentException(
          "Cannot read file stamp '" + text + "': expected size:mtime or size:mtime:fingerprint");
    }
    try {
      return new FileStamp(
          Long.parseLong(parts[0]), Long.parseLong(parts[1]), parts.length == 3 ? parts[2] : null);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "Cannot read file stamp '" + text + "': size and mtime must be whole numbers", e);
    }
  }

  public String text() {
    return size + ":" + modificationTime + (fingerprint == null ? "" : ":" + fingerprint);
  }

  /** Whether both have the same size and modification time (fingerprints aside). */
  public boolean sameSizeAndTime(FileStamp other) {
    return size == other.size && modificationTime == other.modificationTime;
  }
}
