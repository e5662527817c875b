package io.tidemark.ingest.discovery;

import io.tidemark.ingest.kernel.IngestException;
import io.tidemark.ingest.kernel.RawFile;
import io.tidemark.model.contract.RawLayout;
import io.tidemark.model.report.IngestErrorCode;
import java.io.File;
import java.io.IOException;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.EtagSource;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Lists a dataset's raw root and its {@code <partitionColumn>=YYYY-MM-DD} folders through Hadoop's
 * {@link FileSystem} (so {@code s3a://} works as well as local paths), and counts what it listed:
 * listing calls are what makes incremental discovery cheap or not.
 */
public final class PartitionLister extends RawFolderLister {
  private static final Logger LOG = LoggerFactory.getLogger(PartitionLister.class);

  private final String partitionColumn;
  private final List<String> ignored = new ArrayList<>();

  public PartitionLister(Configuration conf, String rawLocation, String partitionColumn) {
    super(conf, rawLocation);
    this.partitionColumn = partitionColumn;
  }

  /** The dataset's partitions on or after {@code from} (all when null), in date order. */
  public List<LocalDate> partitions(LocalDate from) {
    List<RootEntry> children;
    try {
      children = listRoot(from);
    } catch (IOException e) {
      throw cannotList("raw root", e);
    }
    List<LocalDate> out = new ArrayList<>();
    for (RootEntry child : children) {
      if (!child.isDirectory()) {
        if (RawLayout.isDataFile(child.name())) {
          strays.add(RawLayout.StrayEntry.file(child.name()).toString());
        }
        continue;
      }
      if (child.folder().kind() == RawLayout.Folder.Kind.STRAY) {
        ignored.add(child.name());
        strays.add(new RawLayout.StrayEntry(child.name(), child.folder().problem()).toString());
        LOG.warn("Ignoring folder {}: {}", new Path(root, child.name()), child.folder().problem());
        continue;
      }
      out.add(child.folder().date());
    }
    out.sort(Comparator.naturalOrder());
    return out;
  }

  /** A root entry that may matter: a partition on or after the start, or a stray entry. */
  private record RootEntry(String name, RawLayout.Folder folder, boolean isDirectory) {}

  /**
   * The root's entries that may matter, in listing order: hidden entries and partitions before
   * {@code from} are left out. A local root is listed by name first, and only the entries kept are
   * looked at (is it a folder?), so a run's discovery does not look at every day of history; an
   * object store's listing says which entries are folders, one request per 1,000.
   */
  private List<RootEntry> listRoot(LocalDate from) throws IOException {
    File local = localFolder();
    String[] names = local == null ? null : local.list();
    List<RootEntry> out = new ArrayList<>();
    if (names == null) {
      // Not local, or not a readable folder: Hadoop's listing, which names the cause.
      for (FileStatus s : list(root)) {
        String name = s.getPath().getName();
        RawLayout.Folder folder = RawLayout.classifyFolder(partitionColumn, name);
        if (matters(folder, from)) {
          out.add(new RootEntry(name, folder, s.isDirectory()));
        }
      }
      return out;
    }
    listCalls++;
    for (String name : names) {
      RawLayout.Folder folder = RawLayout.classifyFolder(partitionColumn, name);
      if (matters(folder, from)) {
        out.add(new RootEntry(name, folder, new File(local, name).isDirectory()));
      }
    }
    return out;
  }

  /** The root as a local folder; null when it is not on the local file system. */
  private File localFolder() {
    if (!"file".equals(fs.getScheme())) {
      return null;
    }
    try {
      return new File(root.toUri());
    } catch (IllegalArgumentException e) {
      return null; // a URI java.io cannot take (e.g. with an authority): Hadoop's listing
    }
  }

  private static boolean matters(RawLayout.Folder folder, LocalDate from) {
    return switch (folder.kind()) {
      case HIDDEN -> false;
      case STRAY -> true;
      case PARTITION -> from == null || !folder.date().isBefore(from);
    };
  }

  /**
   * The data files of one partition: {@code *.parquet} files (any case), as the reconciler reads.
   * Hidden and {@code _}-prefixed files, and anything else a writer leaves beside the data ({@code
   * _SUCCESS} markers, checksums, JSON manifests), are not data and are skipped.
   */
  public List<RawFile> files(LocalDate partition) {
    Path dir = new Path(root, RawLayout.partitionFolder(partitionColumn, partition));
    FileStatus[] children;
    try {
      listedPartitions.add(partition);
      children = list(dir);
    } catch (IOException e) {
      throw new IngestException(
          IngestErrorCode.IO_FAILED, "Cannot list raw partition " + dir + ": " + e.getMessage(), e);
    }
    List<RawFile> out = new ArrayList<>();
    for (FileStatus s : children) {
      String name = s.getPath().getName();
      if (!s.isFile()) {
        continue;
      }
      if (!RawLayout.isDataFile(name)) {
        LOG.debug("Skipping {}: hidden, or not a {} file", s.getPath(), RawLayout.DATA_FILE_SUFFIX);
        continue;
      }
      out.add(
          new RawFile(
              s.getPath().toString(),
              partition,
              name,
              s.getLen(),
              s.getModificationTime(),
              etag(s)));
    }
    out.sort(Comparator.comparing(RawFile::name));
    return out;
  }

  /**
   * The content fingerprint the store's listing gives, {@code etag=<ETag>} (S3A's statuses carry
   * the object's ETag); null where it gives none (a local file system).
   */
  static String etag(FileStatus s) {
    if (s instanceof EtagSource e) {
      String tag = e.getEtag();
      if (tag != null) {
        tag = tag.replace("\"", "").trim();
        if (!tag.isEmpty() && tag.indexOf(':') < 0) {
          return Fingerprints.ETAG + tag;
        }
      }
    }
    return null;
  }

  /** Lists every partition on or after {@code from} and returns their files in path order. */
  public List<RawFile> filesFrom(LocalDate from) {
    return filesBetween(from, null);
  }

  /**
   * Lists the partitions from {@code from} to {@code to} (both inclusive; null: unbounded) and
   * returns their files in path order.
   */
  @Override
  public List<RawFile> filesBetween(LocalDate from, LocalDate to) {
    List<RawFile> all = new ArrayList<>();
    for (LocalDate d : partitions(from)) {
      if (to == null || !d.isAfter(to)) {
        all.addAll(files(d));
      }
    }
    return all;
  }

  /**
   * Folders under the root that are not partitions (a bad date, another case), by name, in listing
   * order; hidden and {@code _}-prefixed folders are not counted.
   */
  @Override
  public List<String> ignoredFolders() {
    return List.copyOf(ignored);
  }

  @Override
  public String partitionFolders() {
    return partitionColumn + "=YYYY-MM-DD";
  }
}
