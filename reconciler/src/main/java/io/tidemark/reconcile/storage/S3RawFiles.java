package io.tidemark.reconcile.storage;

import io.tidemark.model.contract.DatasetContract;
import io.tidemark.model.contract.layout.RawListing;
import io.tidemark.reconcile.kernel.EngineException;
import io.tidemark.reconcile.kernel.S3Location;
import io.tidemark.reconcile.storage.RawFiles.Listing;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * Lists a dataset's raw files on S3 under its contract's layout, as {@link RawFiles} does on a
 * local file system (both walk with {@link io.tidemark.model.contract.layout.RawListing}): hidden
 * entries skipped, every visible entry the layout cannot place reported as a stray. A file's
 * arrival time is its LastModified. Folders are the common prefixes of a ListObjectsV2 with
 * delimiter {@code /}, so only the date folders the walk enters are listed, page by page.
 */
public final class S3RawFiles {
  private S3RawFiles() {}

  /**
   * What a listing found, and what it cost.
   *
   * @param listing the files and strays, paths as {@code s3://bucket/key} URIs
   * @param listCalls the ListObjectsV2 calls made (one per page)
   */
  public record S3Listing(Listing listing, int listCalls) {
    public S3Listing {
      Objects.requireNonNull(listing, "listing is null");
    }
  }

  /** As {@link RawFiles#list(DatasetContract, LocalDate)}, on S3. */
  public static S3Listing list(S3Client s3, DatasetContract contract, LocalDate fromDate) {
    return list(s3, contract, fromDate, null);
  }

  /** As {@link RawFiles#list(DatasetContract, LocalDate, Instant)}, on S3. */
  public static S3Listing list(
      S3Client s3, DatasetContract contract, LocalDate fromDate, Instant arrivedSince) {
    Objects.requireNonNull(s3, "s3 is null");
    String location = contract.raw().location();
    S3Location root = S3Location.parse(location);
    int[] calls = {0};
    RawListing.Lister lister =
        folder -> {
          String prefix = folder.isEmpty() ? root.prefix() : root.prefix() + folder + "/";
          List<RawListing.Entry> entries = new ArrayList<>();
          boolean[] any = {false};
          listLevel(
              s3,
              root,
              prefix,
              calls,
              o -> {
                any[0] = true;
                String name = o.key().substring(prefix.length());
                // An empty name is the folder marker some tools write for the folder itself.
                if (!name.isEmpty()) {
                  entries.add(
                      new RawFiles.Entry(
                          name, false, o.size(), o.lastModified().toEpochMilli(), o.eTag()));
                }
              },
              f -> {
                any[0] = true;
                String name = f.substring(prefix.length(), f.length() - 1);
                entries.add(new RawFiles.Entry(name, true, 0, 0, null));
              });
          if (!any[0] && folder.isEmpty()) {
            // As on a file system: a location gone is an outage, not a dataset with no rows
            // (which would report every curated key as unexpected).
            throw new EngineException(
                "Cannot list raw files: raw location " + location + " holds no objects");
          }
          return entries;
        };
    Listing listing =
        RawFiles.place(
            contract.raw().layout(),
            lister,
            fromDate,
            arrivedSince,
            rel -> root.uri(root.prefix() + rel),
            location);
    return new S3Listing(listing, calls[0]);
  }

  /** One folder level: its objects and its sub-folders' prefixes, every page. */
  private static void listLevel(
      S3Client s3,
      S3Location root,
      String prefix,
      int[] calls,
      Consumer<S3Object> objects,
      Consumer<String> folders) {
    try {
      calls[0] += root.listLevel(s3, prefix, objects, folders);
    } catch (SdkException e) {
      throw new EngineException(
          "Cannot list raw files under " + root.uri(prefix) + ": " + e.getMessage(), e);
    }
  }
}
