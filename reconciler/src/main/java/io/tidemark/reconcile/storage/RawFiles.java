package io.tidemark.reconcile.storage;

import io.tidemark.model.config.RawSource;
import io.tidemark.model.contract.RawLayout;
import io.tidemark.model.contract.RawLayout.StrayEntry;
import io.tidemark.reconcile.kernel.EngineException;
import java.io.IOException;
import java.net.URI;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Lists a dataset's raw files on a local file system under the raw-layer contract ({@link
 * RawLayout}): {@code <location>/<partition>=YYYY-MM-DD/*.parquet} in any case, hidden entries
 * skipped, folders and files that are neither partitions nor hidden returned as stray entries.
 *
 * <p>A file's arrival time is its modification time: what the ingest job's discovery sees too.
 */
public final class RawFiles {
  private RawFiles() {}

  /**
   * One raw file.
   *
   * @param path the local path
   * @param partitionDate its partition's date
   * @param bytes its size
   * @param arrived when it arrived: its modification time
   */
  public record RawFile(String path, LocalDate partitionDate, long bytes, Instant arrived) {}

  /**
   * What a listing found.
   *
   * @param files the data files, in path order
   * @param strays visible entries of the dataset folder that are not partitions, in path order
   */
  public record Listing(List<RawFile> files, List<StrayEntry> strays) {
    public Listing {
      files = List.copyOf(files);
      strays = List.copyOf(strays);
    }
  }

  /**
   * The files of partitions dated from {@code fromDate} (inclusive; null for all) on, in path
   * order, and every stray entry of the dataset folder whatever its date.
   */
  public static Listing list(RawSource raw, LocalDate fromDate) {
    return list(raw, fromDate, null);
  }

  /**
   * The files of partitions dated from {@code fromDate} on, plus the files of older partitions that
   * arrived at or after {@code arrivedSince} (null: none): a late file filed in an old partition
   * holds changes of today. Every partition is listed; only the files kept are returned.
   */
  public static Listing list(RawSource raw, LocalDate fromDate, Instant arrivedSince) {
    Path root = localPath(raw.location());
    if (!Files.isDirectory(root)) {
      // Checked at start-up: a location gone since then is an outage, not a dataset with no rows
      // (which would report every curated key as unexpected).
      throw new EngineException(
          "Cannot list raw files: raw location "
              + raw.location()
              + (Files.exists(root) ? " is not a folder" : " does not exist"));
    }
    List<RawFile> files = new ArrayList<>();
    List<StrayEntry> strays = new ArrayList<>();
    try (DirectoryStream<Path> children = Files.newDirectoryStream(root)) {
      for (Path child : children) {
        String name = child.getFileName().toString();
        if (!Files.isDirectory(child)) {
          if (!RawLayout.isHidden(name)) {
            strays.add(StrayEntry.file(child.toAbsolutePath().toString()));
          }
          continue;
        }
        RawLayout.Folder folder = RawLayout.classifyFolder(raw.partitionColumn(), name);
        switch (folder.kind()) {
          case HIDDEN -> {}
          case STRAY ->
              strays.add(new StrayEntry(child.toAbsolutePath().toString(), folder.problem()));
          case PARTITION -> {
            boolean whole = fromDate == null || !folder.date().isBefore(fromDate);
            if (whole || arrivedSince != null) {
              addDataFiles(child, folder.date(), whole ? null : arrivedSince, files);
            }
          }
        }
      }
    } catch (IOException e) {
      throw new EngineException("Cannot list raw files under " + root + ": " + e.getMessage(), e);
    }
    files.sort(Comparator.comparing(RawFile::path));
    strays.sort(Comparator.comparing(StrayEntry::path));
    return new Listing(files, strays);
  }

  private static void addDataFiles(
      Path partition, LocalDate date, Instant arrivedSince, List<RawFile> files)
      throws IOException {
    try (DirectoryStream<Path> inside = Files.newDirectoryStream(partition)) {
      for (Path f : inside) {
        if (!RawLayout.isDataFile(f.getFileName().toString())) {
          continue;
        }
        BasicFileAttributes attributes = Files.readAttributes(f, BasicFileAttributes.class);
        if (!attributes.isRegularFile()) {
          continue;
        }
        Instant arrived = attributes.lastModifiedTime().toInstant();
        if (arrivedSince == null || !arrived.isBefore(arrivedSince)) {
          files.add(new RawFile(f.toAbsolutePath().toString(), date, attributes.size(), arrived));
        }
      }
    }
  }

  /**
   * A local path for a location: a plain path or a {@code file:} URI. Other schemes are refused:
   * the embedded engine reads local files only.
   */
  public static Path localPath(String location) {
    if (location.startsWith("file:")) {
      return Path.of(
          URI.create(
              location.startsWith("file://") ? location : "file://" + location.substring(5)));
    }
    if (location.matches("^[A-Za-z][A-Za-z0-9+.-]*://.*")) {
      throw new EngineException(
          "Cannot read " + location + " with the embedded engine: it reads local files only");
    }
    return Path.of(location);
  }
}
