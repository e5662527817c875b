package io.tidemark.reconcile.engine;

import io.tidemark.model.config.RawSource;
import java.io.IOException;
import java.net.URI;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Lists a dataset's raw Parquet files on a local file system: {@code
 * <location>/<partition>=YYYY-MM-DD/*.parquet}. Folders that are not date partitions are skipped;
 * hidden and temporary files ({@code .x}, {@code _x}) too.
 */
public final class RawFiles {
  private RawFiles() {}

  /**
   * One raw file.
   *
   * @param path the local path
   * @param partitionDate its partition's date
   * @param bytes its size
   */
  public record RawFile(String path, LocalDate partitionDate, long bytes) {}

  /**
   * The files of partitions dated from {@code fromDate} (inclusive; null for all) on, in path
   * order.
   */
  public static List<RawFile> list(RawSource raw, LocalDate fromDate) {
    Path root = localPath(raw.location());
    if (!Files.isDirectory(root)) {
      return List.of();
    }
    String prefix = raw.partitionColumn() + "=";
    List<RawFile> files = new ArrayList<>();
    try (DirectoryStream<Path> partitions = Files.newDirectoryStream(root)) {
      for (Path partition : partitions) {
        String name = partition.getFileName().toString();
        if (!Files.isDirectory(partition) || !name.startsWith(prefix)) {
          continue;
        }
        LocalDate date;
        try {
          date = LocalDate.parse(name.substring(prefix.length()));
        } catch (DateTimeParseException e) {
          continue;
        }
        if (fromDate != null && date.isBefore(fromDate)) {
          continue;
        }
        try (DirectoryStream<Path> inside = Files.newDirectoryStream(partition, "*.parquet")) {
          for (Path f : inside) {
            String fn = f.getFileName().toString();
            if (fn.startsWith(".") || fn.startsWith("_") || !Files.isRegularFile(f)) {
              continue;
            }
            files.add(new RawFile(f.toAbsolutePath().toString(), date, Files.size(f)));
          }
        }
      }
    } catch (IOException e) {
      throw new EngineException("Cannot list raw files under " + root + ": " + e.getMessage(), e);
    }
    files.sort(Comparator.comparing(RawFile::path));
    return files;
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
