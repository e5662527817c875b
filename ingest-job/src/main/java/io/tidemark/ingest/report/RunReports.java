package io.tidemark.ingest.report;

import io.tidemark.model.contract.StateLayout;
import io.tidemark.model.json.Json;
import io.tidemark.model.report.IngestRunReport;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.LocalDate;
import java.time.ZoneOffset;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;

/** Where run reports go, and writing them atomically. */
public final class RunReports {
  public static final String RUNS_FOLDER = StateLayout.RUNS_FOLDER;

  private RunReports() {}

  /** {@code <stateRoot>/_runs/dt=YYYY-MM-DD/<run-id>.json}, dated by the run's start (UTC). */
  public static String location(String stateRoot, IngestRunReport report) {
    String root =
        stateRoot.endsWith("/") ? stateRoot.substring(0, stateRoot.length() - 1) : stateRoot;
    return root
        + "/"
        + StateLayout.reportPath(
            RUNS_FOLDER, report.startedAt().atZone(ZoneOffset.UTC).toLocalDate(), report.runId());
  }

  /** Whether the report of a run that started on {@code day} exists. */
  public static boolean exists(String stateRoot, LocalDate day, String runId, Configuration conf)
      throws IOException {
    String root =
        stateRoot.endsWith("/") ? stateRoot.substring(0, stateRoot.length() - 1) : stateRoot;
    String location = root + "/" + StateLayout.reportPath(RUNS_FOLDER, day, runId);
    URI uri = URI.create(location.replace(" ", "%20"));
    if (uri.getScheme() == null || "file".equals(uri.getScheme())) {
      Path p = uri.getScheme() == null ? Path.of(location) : Path.of(uri);
      return java.nio.file.Files.exists(p);
    }
    org.apache.hadoop.fs.Path p = new org.apache.hadoop.fs.Path(location);
    return p.getFileSystem(conf).exists(p);
  }

  /**
   * Checks that run reports can be written under the state root, by writing and deleting a small
   * object where they go. The job calls it before it commits, so that a batch is never committed
   * without its report being writable.
   *
   * @throws IOException when the state root cannot be written
   */
  public static void checkWritable(String stateRoot, String runId, Configuration conf)
      throws IOException {
    String root =
        stateRoot.endsWith("/") ? stateRoot.substring(0, stateRoot.length() - 1) : stateRoot;
    String location = root + "/" + RUNS_FOLDER + "/_write-check-" + runId;
    URI uri = URI.create(location.replace(" ", "%20"));
    if (uri.getScheme() == null || "file".equals(uri.getScheme())) {
      Path p = uri.getScheme() == null ? Path.of(location) : Path.of(uri);
      try {
        java.nio.file.Files.createDirectories(p.toAbsolutePath().getParent());
        java.nio.file.Files.writeString(p, runId);
        java.nio.file.Files.delete(p);
      } catch (java.nio.file.FileSystemException e) {
        // The JDK's message is the path alone; say what went wrong too.
        throw new IOException(e.getClass().getSimpleName() + ": " + e.getMessage(), e);
      }
      return;
    }
    org.apache.hadoop.fs.Path p = new org.apache.hadoop.fs.Path(location);
    FileSystem fs = p.getFileSystem(conf);
    try (OutputStream out = fs.create(p, true)) {
      out.write(runId.getBytes(StandardCharsets.UTF_8));
    }
    fs.delete(p, false);
  }

  /**
   * Writes the report. Local paths are written to a temporary sibling and renamed; object stores
   * ({@code s3://...}) write the object in one request, which is atomic there.
   *
   * @return where it was written
   */
  public static String write(String stateRoot, IngestRunReport report, Configuration conf)
      throws IOException {
    String location = location(stateRoot, report);
    URI uri = URI.create(location.replace(" ", "%20"));
    if (uri.getScheme() == null || "file".equals(uri.getScheme())) {
      Path p = uri.getScheme() == null ? Path.of(location) : Path.of(uri);
      Json.writeAtomically(p, report);
      return p.toString();
    }
    org.apache.hadoop.fs.Path p = new org.apache.hadoop.fs.Path(location);
    FileSystem fs = p.getFileSystem(conf);
    try (OutputStream out = fs.create(p, true)) {
      out.write(Json.write(report).getBytes(StandardCharsets.UTF_8));
    }
    return location;
  }
}
