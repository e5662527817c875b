package io.tidemark.ingest.discovery;

import io.tidemark.ingest.kernel.RawFile;
import java.util.List;

/**
 * What discovery found.
 *
 * @param discovered every file listed, in order
 * @param newFiles the files not processed before, with their fingerprints (the checkpoint keeps
 *     them)
 * @param skipped how many listed files were processed before
 * @param listing what listing cost and left out
 */
public record DiscoveryResult(
    List<RawFile> discovered, List<RawFile> newFiles, long skipped, Listing listing) {
  public DiscoveryResult {
    discovered = List.copyOf(discovered);
    newFiles = List.copyOf(newFiles);
  }
}
