package io.tidemark.reconcile.storage;

import io.tidemark.model.contract.DatasetContract;
import io.tidemark.model.contract.RawLayout.StrayEntry;
import io.tidemark.model.contract.layout.Layout;
import io.tidemark.model.contract.layout.RawListing;
import io.tidemark.reconcile.kernel.EngineException;
import java.io.FileNotFoundException;
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
import java.util.function.UnaryOperator;

/**
 * Lists a dataset's raw files on a local file system under its contract's layout ({@link
 * RawListing}: Hive-style folders, date paths, DMS's full load and CDC files, arrival order),
 * hidden entries skipped, every visible entry the layout cannot place returned as a stray entry.
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

    /**
     * The files that arrived after {@code by} (null: none): a reader as of {@code by} leaves them.
     */
    public List<RawFile> arrivedAfter(Instant by) {
      return files.stream().filter(f -> arrivedAfter(f, by)).toList();
    }

    /** The listing without the files that arrived after {@code by} (null: all of it). */
    public Listing asOf(Instant by) {
      return by == null
          ? this
          : new Listing(files.stream().filter(f -> !arrivedAfter(f, by)).toList(), strays);
    }

    private static boolean arrivedAfter(RawFile f, Instant by) {
      return by != null && f.arrived() != null && f.arrived().isAfter(by);
    }
  }

  /** Every data file of a dataset, and every stray entry. */
  public static Listing list(DatasetContract contract) {
    return list(contract, null, null);
  }

  /**
   * The files of the days from {@code fromDate} (inclusive; null for all) on, in path order, and
   * every stray entry the listing met.
   */
  public static Listing list(DatasetContract contract, LocalDate fromDate) {
    return list(contract, fromDate, null);
  }

  /**
   * The files of the days from {@code fromDate} on, plus the files of older days that arrived at or
   * after {@code arrivedSince} (null: none): a late file filed in an old folder holds changes of
   * today. Every folder is then listed; only the files kept are returned.
   */
  public static Listing list(DatasetContract contract, LocalDate fromDate, Instant arrivedSince) {
    String location = contract.raw().location();
    Path root = localPath(location);
    if (!Files.isDirectory(root)) {
      // Checked at start-up: a location gone since then is an outage, not a dataset with no rows
      // (which would report every curated key as unexpected).
      throw new EngineException(
          "Cannot list raw files: raw location "
              + location
              + (Files.exists(root) ? " is not a folder" : " does not exist"));
    }
    RawListing.Lister lister = folder -> entries(folder.isEmpty() ? root : root.resolve(folder));
    return place(
        contract.raw().layout(),
        lister,
        fromDate,
        arrivedSince,
        rel -> root.resolve(rel).toAbsolutePath().toString(),
        location);
  }

  /**
   * Walks a raw location with {@link RawListing} and keeps the files a run reads: those of days
   * from {@code fromDate} on, and older ones that arrived at or after {@code arrivedSince}.
   *
   * @param where a file's or stray's path below the raw location as the engine names it
   * @param location the raw location, for messages
   */
  public static Listing place(
      Layout layout,
      RawListing.Lister lister,
      LocalDate fromDate,
      Instant arrivedSince,
      UnaryOperator<String> where,
      String location) {
    RawListing.Result result;
    try {
      result = RawListing.list(layout, lister, arrivedSince == null ? fromDate : null, null);
    } catch (IOException e) {
      throw new EngineException(
          "Cannot list raw files under " + location + ": " + e.getMessage(), e);
    }
    List<RawFile> files = new ArrayList<>();
    for (RawListing.PlacedFile p : result.files()) {
      Instant arrived = Instant.ofEpochMilli(p.modifiedMillis());
      boolean whole = fromDate == null || !p.partition().isBefore(fromDate);
      if (whole || (arrivedSince != null && !arrived.isBefore(arrivedSince))) {
        files.add(new RawFile(where.apply(p.relativePath()), p.partition(), p.size(), arrived));
      }
    }
    List<StrayEntry> strays = new ArrayList<>();
    result.strays().forEach(e -> strays.add(new StrayEntry(where.apply(e.path()), e.problem())));
    files.sort(Comparator.comparing(RawFile::path));
    strays.sort(Comparator.comparing(StrayEntry::path));
    return new Listing(files, strays);
  }

  /** One local folder's entries, each with its attributes. */
  private static List<RawListing.Entry> entries(Path dir) throws IOException {
    if (!Files.isDirectory(dir)) {
      throw new FileNotFoundException(dir + " is not a folder");
    }
    List<RawListing.Entry> out = new ArrayList<>();
    try (DirectoryStream<Path> children = Files.newDirectoryStream(dir)) {
      for (Path child : children) {
        BasicFileAttributes a = Files.readAttributes(child, BasicFileAttributes.class);
        out.add(
            new Entry(
                child.getFileName().toString(),
                a.isDirectory(),
                a.size(),
                a.lastModifiedTime().toMillis(),
                null));
      }
    }
    return out;
  }

  /** A listed entry. */
  public record Entry(
      String name, boolean isFolder, long size, long modifiedMillis, String fingerprint)
      implements RawListing.Entry {}

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
