package io.tidemark.ingest.kernel;

import java.time.LocalDate;
import java.util.Objects;

/**
 * One raw file as listed.
 *
 * @param path the fully qualified path, e.g. {@code
 *     file:/raw/customers/ingest_date=2024-01-01/a.parquet}
 * @param partition the date of its {@code ingest_date=} folder
 * @param name the file name within the partition
 * @param size its length in bytes
 * @param modificationTime its modification time, epoch milliseconds
 * @param fingerprint its content fingerprint (see {@link FileStamp}); null until known
 */
public record RawFile(
    String path,
    LocalDate partition,
    String name,
    long size,
    long modificationTime,
    String fingerprint) {
  public RawFile {
    Objects.requireNonNull(path, "path is null");
    Objects.requireNonNull(partition, "partition is null");
    Objects.requireNonNull(name, "name is null");
  }

  /** A file whose content fingerprint is not known yet. */
  public RawFile(String path, LocalDate partition, String name, long size, long modificationTime) {
    this(path, partition, name, size, modificationTime, null);
  }

  public RawFile withFingerprint(String fp) {
    return new RawFile(path, partition, name, size, modificationTime, fp);
  }

  public FileStamp fileStamp() {
    return new FileStamp(size, modificationTime, fingerprint);
  }

  /** What identifies this version of the file, as checkpoints hold it (see {@link FileStamp}). */
  public String stamp() {
    return fileStamp().text();
  }
}
