package io.tidemark.ingest.discovery;

import java.time.LocalDate;
import java.util.List;

/**
 * What listing the raw layer cost, and what it left out.
 *
 * @param partitionsListed the partitions whose folders were listed, in order
 * @param listCalls the listing requests made
 * @param ignoredFolders folders that are not partitions, sorted by name
 * @param root the raw root listed
 * @param partitionFolders what a partition folder looks like (for messages)
 * @param strayEntries entries the layout cannot place, {@code path (why)}, in listing order
 */
public record Listing(
    List<LocalDate> partitionsListed,
    int listCalls,
    List<String> ignoredFolders,
    String root,
    String partitionFolders,
    List<String> strayEntries) {
  public Listing {
    partitionsListed = List.copyOf(partitionsListed);
    ignoredFolders = List.copyOf(ignoredFolders);
    strayEntries = List.copyOf(strayEntries);
  }

  /** What the listing has to say: the folders it did not read; empty when it read them all. */
  public List<String> warnings() {
    if (ignoredFolders.isEmpty() && !strayEntries.isEmpty()) {
      return List.of(
          strayEntries.size()
              + " entr"
              + (strayEntries.size() == 1 ? "y" : "ies")
              + " under "
              + root
              + " do not fit the layout ("
              + partitionFolders
              + ") and were not read: "
              + strayEntries.stream().limit(20).toList());
    }
    if (ignoredFolders.isEmpty()) {
      return List.of();
    }
    return List.of(
        ignoredFolders.size()
            + " folder(s) under "
            + root
            + " are not "
            + partitionFolders
            + " partitions and were not read: "
            + ignoredFolders);
  }
}
