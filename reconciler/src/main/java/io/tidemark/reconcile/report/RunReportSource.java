package io.tidemark.reconcile.report;

import io.tidemark.model.report.IngestRunReport;
import java.time.Instant;
import java.util.List;

/**
 * Where the ingest job's run reports are read from. A report that does not parse is left out and
 * named in the answer's {@link Listing#unreadable}, so one truncated file never hides the others.
 */
public interface RunReportSource {
  /**
   * The run reports of one dataset that finished in {@code (from, to]}.
   *
   * @param from exclusive; null for the beginning
   * @throws RunReportException when the reports cannot be listed
   */
  Listing read(String pipeline, String dataset, Instant from, Instant to);

  /**
   * The dataset's newest run reports, by end time, at most {@code limit}: only the newest day
   * folders that hold them (and the day before, for a run that crossed midnight) are read.
   *
   * @throws RunReportException when the reports cannot be listed
   */
  Listing newest(String pipeline, String dataset, int limit);

  /** Every report this source found it could not parse, of any dataset, as last seen. */
  List<UnreadableReport> unreadable();

  /**
   * Reports and the files left out.
   *
   * @param reports the reports read, in no particular order ({@link #newest}: newest first)
   * @param unreadable the report files of the folders read that do not parse, of any dataset (a
   *     file that does not parse cannot say whose it is)
   */
  record Listing(List<IngestRunReport> reports, List<UnreadableReport> unreadable) {
    public Listing {
      reports = List.copyOf(reports);
      unreadable = List.copyOf(unreadable);
    }
  }

  /** The run reports cannot be listed. */
  class RunReportException extends RuntimeException {
    public RunReportException(String message, Throwable cause) {
      super(message, cause);
    }
  }
}
