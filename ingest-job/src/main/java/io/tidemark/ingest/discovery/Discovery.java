package io.tidemark.ingest.discovery;

import io.tidemark.ingest.kernel.RawFile;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * The discovery stage: lists the partitions a batch can find new files in and tells new files from
 * processed ones. A file is identified by size, modification time and content: the store's
 * fingerprint (an S3 ETag, from the listing) or a checksum, read only for a file whose size and
 * time match a processed version's and for the files the batch reads (whose stamps the checkpoint
 * keeps).
 */
public final class Discovery {
  private final Layout layout;
  private final Fingerprints fingerprints;

  public Discovery(Layout layout, Fingerprints fingerprints) {
    this.layout = layout;
    this.fingerprints = fingerprints;
  }

  /**
   * Lists the partitions from {@code from} to {@code to} (both inclusive; null: unbounded).
   *
   * @param processed the files to skip, asked for once the partitions are listed
   */
  public DiscoveryResult discover(
      LocalDate from, LocalDate to, Supplier<ProcessedFiles> processedFiles) {
    List<RawFile> discovered = layout.filesBetween(from, to);
    ProcessedFiles processed = processedFiles.get();
    List<RawFile> newFiles = new ArrayList<>();
    long skipped = 0;
    for (RawFile f : discovered) {
      if (processed.contains(f, fingerprints::of)) {
        skipped++;
      } else {
        newFiles.add(fingerprints.of(f)); // its stamp goes into the checkpoint
      }
    }
    return new DiscoveryResult(
        discovered,
        newFiles,
        skipped,
        new Listing(
            layout.listedPartitions(),
            layout.listCalls(),
            layout.ignoredFolders().stream().sorted().toList(),
            layout.root(),
            layout.partitionFolders(),
            layout.strayEntries()));
  }

  /** The files with their fingerprints (a checksum is computed once per file and run). */
  public List<RawFile> fingerprinted(List<RawFile> files) {
    return files.stream().map(fingerprints::of).toList();
  }

  /** How many files this run checksummed. */
  public int filesChecksummed() {
    return fingerprints.filesRead();
  }

  /** How many bytes this run's checksums read. */
  public long bytesChecksummed() {
    return fingerprints.bytesRead();
  }
}
