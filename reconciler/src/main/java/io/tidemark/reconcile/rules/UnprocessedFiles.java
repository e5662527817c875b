package io.tidemark.reconcile.rules;

import io.tidemark.model.contract.RawLayout.StrayEntry;
import io.tidemark.model.report.IngestRunReport;
import io.tidemark.model.report.IngestStatus;
import io.tidemark.reconcile.storage.RawFiles;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Finds raw data files that no committed ingest batch read: a file that landed in a partition
 * behind the job's lookback, a folder the job skipped. The files a batch read are the {@code
 * inputFiles} of the run reports whose batch committed: SUCCEEDED, and ALREADY_COMMITTED (a retry
 * that found its batch on the table lists the same files). A FAILED or REJECTED run committed
 * nothing, so the files it read are still pending; a file the job quarantined whole was read, and
 * is among its run's input files. Whether a SUCCEEDED report's batch is really on the table is
 * {@code run_accounting}'s business.
 *
 * <p>A file counts once it is older than the grace period (arrival = modification time): the job
 * has not had its chance at a younger one. Files are matched by their partition folder and name,
 * which is how both halves lay raw out ({@code <partition>=YYYY-MM-DD/<name>}), whatever scheme or
 * root prefix the job's paths carry.
 */
public final class UnprocessedFiles {
  private UnprocessedFiles() {}

  /** How old a raw file must be before a committed batch is expected to have read it. */
  public static final Duration GRACE_DEFAULT = Duration.ofHours(6);

  /**
   * The outcome.
   *
   * @param files the unprocessed files, relative to the dataset's raw root, in path order
   * @param strays the entries the contract's layout cannot place, so that no batch will ever read
   *     them, each relative to the raw root with why, in path order
   * @param grace the grace period applied
   */
  public record Outcome(List<String> files, List<String> strays, Duration grace) {
    public Outcome {
      files = List.copyOf(files);
      strays = List.copyOf(strays);
      Objects.requireNonNull(grace, "grace is null");
    }
  }

  /**
   * Checks a listing of the dataset's raw files (every partition).
   *
   * @param location the dataset's raw location; the file paths are made relative to it (a local
   *     folder or an {@code s3://bucket/prefix})
   * @param files every raw data file of the dataset
   * @param strays every entry of the raw location its layout cannot place: never read, whatever its
   *     age
   * @param reports every run report of the dataset
   * @param grace how old a file must be to count
   * @param now the reference time
   */
  public static Outcome check(
      String location,
      List<RawFiles.RawFile> files,
      List<StrayEntry> strays,
      List<IngestRunReport> reports,
      Duration grace,
      Instant now) {
    Objects.requireNonNull(grace, "grace is null");
    if (grace.isNegative()) {
      throw new IllegalArgumentException(
          "Cannot check unprocessed files: grace period " + grace + " is negative");
    }
    List<String> read = new ArrayList<>();
    for (IngestRunReport r : reports) {
      if (r.status() == IngestStatus.SUCCEEDED || r.status() == IngestStatus.ALREADY_COMMITTED) {
        read.addAll(r.inputFiles());
      }
    }
    Processed processed = new Processed(read);
    Instant cutoff = now.minus(grace);
    List<String> unprocessed =
        files.stream()
            .filter(f -> f.arrived().isBefore(cutoff))
            .map(f -> relative(location, f.path()))
            .filter(relative -> !processed.contains(relative))
            .sorted()
            .toList();
    List<String> stray =
        strays.stream()
            .map(e -> relative(location, e.path()) + " (" + e.problem() + ")")
            .sorted()
            .toList();
    return new Outcome(unprocessed, stray, grace);
  }

  /**
   * The files committed batches read, matched by their last segments: as many as a listed file's
   * path below the raw root has ({@code <partition>/<name>}, a DMS full-load file's name alone, a
   * date path's {@code YYYY/MM/DD/<name>}), whatever scheme or root prefix the job's paths carry.
   */
  private static final class Processed {
    private final List<String> paths;
    private final Map<Integer, Set<String>> bySegments = new HashMap<>();

    Processed(List<String> paths) {
      this.paths = paths;
    }

    boolean contains(String relative) {
      int segments = relative.split("/", -1).length;
      return bySegments
          .computeIfAbsent(
              segments,
              n -> {
                Set<String> out = new HashSet<>();
                paths.forEach(p -> out.add(lastSegments(p, n)));
                return out;
              })
          .contains(relative);
    }
  }

  /** The last {@code n} {@code /}-separated segments of a path. */
  static String lastSegments(String path, int n) {
    int at = path.length();
    for (int i = 0; i < n && at > 0; i++) {
      at = path.lastIndexOf('/', at - 1);
    }
    return path.substring(at + 1);
  }

  /** A file's path below the raw location: local paths as paths, URIs by their text. */
  static String relative(String location, String path) {
    if (location.startsWith("s3://")) {
      String root = location.endsWith("/") ? location : location + "/";
      return path.startsWith(root) ? path.substring(root.length()) : path;
    }
    Path root = RawFiles.localPath(location).toAbsolutePath().normalize();
    return root.relativize(Path.of(path).toAbsolutePath().normalize()).toString();
  }

  /** The last two segments of a path: {@code <partition folder>/<file name>}. */
  static String partitionAndName(String path) {
    return lastSegments(path, 2);
  }
}
