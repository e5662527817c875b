package io.tidemark.ingest.discovery;

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
 */
public record RawFile(
    String path, LocalDate partition, String name, long size, long modificationTime) {
  public RawFile {
    Objects.requireNonNull(path, "path is null");
    Objects.requireNonNull(partition, "partition is null");
    Objects.requireNonNull(name, "name is null");
  }

  /** What identifies this version of the file: a rewritten file gets a new stamp. */
  public String stamp() {
    return size + ":" + modificationTime;
  }
}
