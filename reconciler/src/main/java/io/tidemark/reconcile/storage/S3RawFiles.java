package io.tidemark.reconcile.storage;

import io.tidemark.model.config.RawSource;
import io.tidemark.model.contract.RawLayout;
import io.tidemark.model.contract.RawLayout.StrayEntry;
import io.tidemark.reconcile.kernel.EngineException;
import io.tidemark.reconcile.kernel.S3Location;
import io.tidemark.reconcile.storage.RawFiles.Listing;
import io.tidemark.reconcile.storage.RawFiles.RawFile;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * Lists a dataset's raw files on S3 under the same contract as {@link RawFiles} on a local file
 * system ({@link RawLayout}): {@code s3://bucket/<dataset>/<partition>=YYYY-MM-DD/*.parquet} in any
 * case, hidden entries skipped, other visible entries of the dataset folder reported as strays. A
 * file's arrival time is its LastModified. Folders are the common prefixes of a ListObjectsV2 with
 * delimiter {@code /}, so only the partitions and their direct children are listed, page by page.
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

  /** As {@link RawFiles#list(RawSource, LocalDate)}, on S3. */
  public static S3Listing list(S3Client s3, RawSource raw, LocalDate fromDate) {
    return list(s3, raw, fromDate, null);
  }

  /** As {@link RawFiles#list(RawSource, LocalDate, Instant)}, on S3. */
  public static S3Listing list(
      S3Client s3, RawSource raw, LocalDate fromDate, Instant arrivedSince) {
    Objects.requireNonNull(s3, "s3 is null");
    S3Location root = S3Location.parse(raw.location());
    int[] calls = {0};
    List<RawFile> files = new ArrayList<>();
    List<StrayEntry> strays = new ArrayList<>();
    List<String> folders = new ArrayList<>();
    boolean[] any = {false};
    listLevel(
        s3,
        root,
        root.prefix(),
        calls,
        object -> {
          any[0] = true;
          String name = object.key().substring(root.prefix().length());
          // An empty name is the folder marker some tools write for the dataset folder itself.
          if (!name.isEmpty() && !RawLayout.isHidden(name)) {
            strays.add(StrayEntry.file(root.uri(object.key())));
          }
        },
        folder -> {
          any[0] = true;
          folders.add(folder);
        });
    if (!any[0]) {
      // As on a file system: a location gone is an outage, not a dataset with no rows (which would
      // report every curated key as unexpected).
      throw new EngineException(
          "Cannot list raw files: raw location " + raw.location() + " holds no objects");
    }
    for (String folderPrefix : folders) {
      String name = folderPrefix.substring(root.prefix().length(), folderPrefix.length() - 1);
      RawLayout.Folder folder = RawLayout.classifyFolder(raw.partitionColumn(), name);
      switch (folder.kind()) {
        case HIDDEN -> {}
        case STRAY ->
            strays.add(
                new StrayEntry(
                    root.uri(folderPrefix.substring(0, folderPrefix.length() - 1)),
                    folder.problem()));
        case PARTITION -> {
          boolean whole = fromDate == null || !folder.date().isBefore(fromDate);
          if (whole || arrivedSince != null) {
            Instant since = whole ? null : arrivedSince;
            listPartition(s3, root, folderPrefix, folder.date(), since, calls, files);
          }
        }
      }
    }
    files.sort(Comparator.comparing(RawFile::path));
    strays.sort(Comparator.comparing(StrayEntry::path));
    return new S3Listing(new Listing(files, strays), calls[0]);
  }

  /** A partition's data files that arrived at or after {@code since} (null: every one). */
  private static void listPartition(
      S3Client s3,
      S3Location root,
      String folderPrefix,
      LocalDate date,
      Instant since,
      int[] calls,
      List<RawFile> files) {
    listLevel(
        s3,
        root,
        folderPrefix,
        calls,
        object -> {
          String file = object.key().substring(folderPrefix.length());
          if (!RawLayout.isDataFile(file)) {
            return;
          }
          Instant arrived = object.lastModified();
          if (since == null || !arrived.isBefore(since)) {
            files.add(new RawFile(root.uri(object.key()), date, object.size(), arrived));
          }
        },
        subfolder -> {});
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
