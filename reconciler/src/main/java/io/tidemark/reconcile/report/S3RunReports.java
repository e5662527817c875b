package io.tidemark.reconcile.report;

import io.tidemark.model.contract.StateLayout;
import io.tidemark.model.json.Json;
import io.tidemark.model.report.IngestRunReport;
import io.tidemark.reconcile.engine.S3Location;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * Reads run reports from {@code s3://bucket/<prefix>/_runs/dt=YYYY-MM-DD/<run-id>.json}, as {@link
 * LocalRunReports} does from a folder: a report's {@code dt} is its start date, so the day before
 * the window start is read too, and only the day folders that can hold the window are listed.
 */
public final class S3RunReports implements RunReportSource {
  private final S3Client s3;
  private final S3Location root;

  /**
   * @param s3 the client; the caller owns (and closes) it
   * @param bucket the bucket of the state root
   * @param prefix the state root's key prefix; empty for the bucket's root
   */
  public S3RunReports(S3Client s3, String bucket, String prefix) {
    this.s3 = Objects.requireNonNull(s3, "s3 is null");
    this.root = new S3Location(bucket, Objects.requireNonNull(prefix, "prefix is null"));
  }

  @Override
  public List<IngestRunReport> read(String pipeline, String dataset, Instant from, Instant to) {
    String folder = root.prefix() + StateLayout.RUNS_FOLDER + "/";
    LocalDate fromDate =
        from == null ? null : LocalDate.ofInstant(from, ZoneOffset.UTC).minusDays(1);
    List<String> days = new ArrayList<>();
    listLevel(
        folder,
        object -> {},
        dayPrefix -> {
          LocalDate dt =
              StateLayout.parseDayFolder(
                  dayPrefix.substring(folder.length(), dayPrefix.length() - 1));
          if (dt != null && (fromDate == null || !dt.isBefore(fromDate))) {
            days.add(dayPrefix);
          }
        });
    List<IngestRunReport> out = new ArrayList<>();
    for (String day : days) {
      listLevel(
          day,
          object -> {
            String name = object.key().substring(day.length());
            if (name.startsWith(".") || !name.endsWith(StateLayout.REPORT_SUFFIX)) {
              return;
            }
            IngestRunReport r = readReport(object.key());
            boolean inWindow =
                (from == null || r.finishedAt().isAfter(from)) && !r.finishedAt().isAfter(to);
            if (inWindow && r.dataset().equals(dataset) && r.pipeline().equals(pipeline)) {
              out.add(r);
            }
          },
          subfolder -> {});
    }
    return out;
  }

  private IngestRunReport readReport(String key) {
    try {
      String text =
          s3.getObjectAsBytes(r -> r.bucket(root.bucket()).key(key))
              .asString(StandardCharsets.UTF_8);
      return Json.read(text, IngestRunReport.class);
    } catch (RuntimeException e) {
      throw new RunReportException(
          "Cannot read run report " + root.uri(key) + ": " + e.getMessage(), e);
    }
  }

  private void listLevel(String prefix, Consumer<S3Object> objects, Consumer<String> folders) {
    try {
      root.listLevel(s3, prefix, objects, folders);
    } catch (SdkException e) {
      throw new RunReportException(
          "Cannot list run reports under " + root.uri(prefix) + ": " + e.getMessage(), e);
    }
  }
}
