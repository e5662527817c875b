package io.tidemark.reconcile.report;

import io.tidemark.model.contract.StateLayout;
import io.tidemark.model.json.Json;
import io.tidemark.model.report.IngestRunReport;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads run reports from {@code <state-root>/_runs/dt=YYYY-MM-DD/<run-id>.json}. A report's {@code
 * dt} is its start date, so partitions from the day before the window start are read too.
 */
public final class LocalRunReports implements RunReportSource {
  public static final String FOLDER = StateLayout.RUNS_FOLDER;
  private final Path root;

  public LocalRunReports(Path stateRoot) {
    this.root = stateRoot.resolve(FOLDER);
  }

  @Override
  public List<IngestRunReport> read(String pipeline, String dataset, Instant from, Instant to) {
    if (!Files.isDirectory(root)) {
      return List.of();
    }
    LocalDate fromDate =
        from == null ? null : LocalDate.ofInstant(from, ZoneOffset.UTC).minusDays(1);
    List<IngestRunReport> out = new ArrayList<>();
    try (DirectoryStream<Path> days =
        Files.newDirectoryStream(root, StateLayout.DAY_PREFIX + "*")) {
      for (Path day : days) {
        LocalDate dt;
        try {
          dt = LocalDate.parse(day.getFileName().toString().substring(3));
        } catch (DateTimeParseException e) {
          continue;
        }
        if (fromDate != null && dt.isBefore(fromDate)) {
          continue;
        }
        try (DirectoryStream<Path> files = Files.newDirectoryStream(day, "*.json")) {
          for (Path f : files) {
            if (f.getFileName().toString().startsWith(".")) {
              continue;
            }
            IngestRunReport r;
            try {
              r = Json.read(f, IngestRunReport.class);
            } catch (RuntimeException e) {
              throw new RunReportException(
                  "Cannot read run report " + f + ": " + e.getMessage(), e);
            }
            boolean inWindow =
                (from == null || r.finishedAt().isAfter(from)) && !r.finishedAt().isAfter(to);
            if (inWindow && r.dataset().equals(dataset) && r.pipeline().equals(pipeline)) {
              out.add(r);
            }
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(
          "Cannot list run reports under " + root + ": " + e.getMessage(), e);
    }
    return out;
  }
}
