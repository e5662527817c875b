package io.tidemark.ingest.report;

import io.tidemark.ingest.config.IngestSettings;
import io.tidemark.ingest.s3.S3State;
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
import java.util.Optional;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.S3Exception;

/** Where run reports go, and writing them atomically. */
public final class RunReports {
  public static final String RUNS_FOLDER = StateLayout.RUNS_FOLDER;
  private static final Logger LOG = LoggerFactory.getLogger(RunReports.class);
  private static final int PRECONDITION_FAILED = 412;
  private static final int CONFLICT = 409;
  private static final String WRITE_CHECK_PREFIX = "_write-check-";

  private RunReports() {}

  /** {@code <stateRoot>/_runs/dt=YYYY-MM-DD/<run-id>.json}, dated by the run's start (UTC). */
  public static String location(String stateRoot, IngestRunReport report) {
    return location(
        stateRoot, report.startedAt().atZone(ZoneOffset.UTC).toLocalDate(), report.runId());
  }

  /** {@code <stateRoot>/_runs/dt=<day>/<run-id>.json}. */
  private static String location(String stateRoot, LocalDate day, String runId) {
    String root =
        stateRoot.endsWith("/") ? stateRoot.substring(0, stateRoot.length() - 1) : stateRoot;
    return root + "/" + StateLayout.reportPath(RUNS_FOLDER, day, runId);
  }

  /** Whether the report of a run that started on {@code day} exists. */
  public static boolean exists(String stateRoot, LocalDate day, String runId, Configuration conf)
      throws IOException {
    String location = location(stateRoot, day, runId);
    URI uri = URI.create(location.replace(" ", "%20"));
    if (uri.getScheme() == null || "file".equals(uri.getScheme())) {
      Path p = uri.getScheme() == null ? Path.of(location) : Path.of(uri);
      return java.nio.file.Files.exists(p);
    }
    org.apache.hadoop.fs.Path p = new org.apache.hadoop.fs.Path(location);
    return p.getFileSystem(conf).exists(p);
  }

  /** The report of a run that started on {@code day}; empty when there is none. */
  public static Optional<IngestRunReport> read(
      IngestSettings settings, LocalDate day, String runId, Configuration conf) throws IOException {
    String stateRoot = settings.stateRoot();
    String location = location(stateRoot, day, runId);
    if (S3State.onS3(stateRoot)) {
      S3State.Key at = S3State.Key.of(location);
      try (S3Client s3 = S3State.client(settings)) {
        return Optional.of(
            Json.read(
                s3.getObjectAsBytes(b -> b.bucket(at.bucket()).key(at.key())).asUtf8String(),
                IngestRunReport.class));
      } catch (software.amazon.awssdk.services.s3.model.NoSuchKeyException e) {
        return Optional.empty();
      } catch (SdkException e) {
        throw new IOException("Cannot read run report " + location + ": " + e.getMessage(), e);
      }
    }
    URI uri = URI.create(location.replace(" ", "%20"));
    if (uri.getScheme() == null || "file".equals(uri.getScheme())) {
      Path p = uri.getScheme() == null ? Path.of(location) : Path.of(uri);
      return java.nio.file.Files.exists(p)
          ? Optional.of(Json.read(p, IngestRunReport.class))
          : Optional.empty();
    }
    org.apache.hadoop.fs.Path p = new org.apache.hadoop.fs.Path(location);
    FileSystem fs = p.getFileSystem(conf);
    if (!fs.exists(p)) {
      return Optional.empty();
    }
    try (java.io.InputStream in = fs.open(p)) {
      return Optional.of(
          Json.read(new String(in.readAllBytes(), StandardCharsets.UTF_8), IngestRunReport.class));
    }
  }

  /**
   * Checks that the report of a run that started on {@code day} can be written, by writing and
   * deleting a small object in the folder it goes to ({@code _runs/dt=<day>/}; its name starts with
   * {@code _} and has no {@code .json}, so no reader takes it for a report). The job calls it
   * before it commits, so that a batch is never committed without its report being writable.
   *
   * @throws IOException when that folder cannot be written
   */
  public static void checkWritable(
      String stateRoot, LocalDate day, String runId, Configuration conf) throws IOException {
    String root =
        stateRoot.endsWith("/") ? stateRoot.substring(0, stateRoot.length() - 1) : stateRoot;
    String location =
        root
            + "/"
            + RUNS_FOLDER
            + "/"
            + StateLayout.dayFolder(day)
            + "/"
            + WRITE_CHECK_PREFIX
            + runId;
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
   * Writes the report, never over an existing one. On S3 the object is created with {@code
   * If-None-Match: *} (one request, atomic: of two writers of the same report exactly one creates
   * it), with the S3 client the catalog's properties describe; local paths are written to a
   * temporary sibling and renamed; other Hadoop file systems are written in one stream.
   *
   * @return where the report is
   */
  public static String write(IngestSettings settings, IngestRunReport report, Configuration conf)
      throws IOException {
    String location = location(settings.stateRoot(), report);
    if (!S3State.onS3(settings.stateRoot())) {
      return write(settings.stateRoot(), report, conf);
    }
    S3State.Key at = S3State.Key.of(location);
    try (S3Client s3 = S3State.client(settings)) {
      s3.putObject(
          b -> b.bucket(at.bucket()).key(at.key()).ifNoneMatch("*").contentType("application/json"),
          RequestBody.fromString(Json.write(report)));
    } catch (S3Exception e) {
      if (e.statusCode() != PRECONDITION_FAILED && e.statusCode() != CONFLICT) {
        throw new IOException("Cannot write run report " + location + ": " + e.getMessage(), e);
      }
      LOG.warn(
          "The report of run {} already exists at {}; kept it, did not overwrite it",
          report.runId(),
          location);
    } catch (SdkException e) {
      throw new IOException("Cannot write run report " + location + ": " + e.getMessage(), e);
    }
    return location;
  }

  /** The report written with Hadoop's file system API; see {@link #write(IngestSettings, ...)}. */
  static String write(String stateRoot, IngestRunReport report, Configuration conf)
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
    try (OutputStream out = fs.create(p, false)) {
      out.write(Json.write(report).getBytes(StandardCharsets.UTF_8));
    }
    return location;
  }
}
