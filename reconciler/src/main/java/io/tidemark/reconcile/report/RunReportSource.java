package io.tidemark.reconcile.report;

import io.tidemark.model.report.IngestRunReport;
import java.time.Instant;
import java.util.List;

/** Where the ingest job's run reports are read from. */
public interface RunReportSource {
  /**
   * The run reports of one dataset that finished in {@code (from, to]}.
   *
   * @param from exclusive; null for the beginning
   * @throws RunReportException when a report in range cannot be read
   */
  List<IngestRunReport> read(String pipeline, String dataset, Instant from, Instant to);

  /** A run report exists but cannot be read. */
  class RunReportException extends RuntimeException {
    public RunReportException(String message, Throwable cause) {
      super(message, cause);
    }
  }
}
