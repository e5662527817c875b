package io.tidemark.model.metrics;

import io.tidemark.model.report.IngestCounts;
import io.tidemark.model.report.IngestMode;
import io.tidemark.model.report.IngestRunReport;
import java.util.ArrayList;
import java.util.List;

/** Turns an ingest run report into the datums the catalogue defines for it. */
public final class IngestRunMetrics {
  private IngestRunMetrics() {}

  /**
   * Every ingest metric for one run, timestamped at the run's end and dimensioned by the run's
   * pipeline, dataset and mode. Watermark metrics are left out when the run has no watermark; the
   * lag only exists for timestamp markers; FilesMissedByLookback only for a run that counted them
   * (a sweep).
   */
  public static List<Datum> datums(IngestRunReport report) {
    List<Datum> out = new ArrayList<>();
    String p = report.pipeline();
    String d = report.dataset();
    var at = report.finishedAt();
    IngestCounts c = report.counts();
    IngestMode m = report.mode();
    out.add(Datum.ofRun(Metric.FILES_DISCOVERED, p, d, m, c.filesDiscovered(), at));
    out.add(Datum.ofRun(Metric.FILES_NEW, p, d, m, c.filesNew(), at));
    out.add(Datum.ofRun(Metric.FILES_SKIPPED, p, d, m, c.filesSkipped(), at));
    out.add(Datum.ofRun(Metric.RECORDS_READ, p, d, m, c.recordsRead(), at));
    out.add(Datum.ofRun(Metric.RECORDS_CHANGED, p, d, m, c.recordsChanged(), at));
    out.add(Datum.ofRun(Metric.RECORDS_INSERTED, p, d, m, c.recordsInserted(), at));
    out.add(Datum.ofRun(Metric.RECORDS_UPDATED, p, d, m, c.recordsUpdated(), at));
    out.add(Datum.ofRun(Metric.RECORDS_DELETED, p, d, m, c.recordsDeleted(), at));
    out.add(Datum.ofRun(Metric.RECORDS_INVALID, p, d, m, c.recordsInvalid(), at));
    out.add(Datum.ofRun(Metric.RECORDS_SUPERSEDED, p, d, m, c.recordsSuperseded(), at));
    out.add(Datum.ofRun(Metric.RECORDS_LATE, p, d, m, c.recordsLate(), at));
    out.add(Datum.ofRun(Metric.RECORDS_WRITTEN, p, d, m, c.recordsWritten(), at));
    out.add(Datum.ofRun(Metric.INVALID_RATIO, p, d, m, c.invalidRatio(), at));
    var type = report.changeMarkerType();
    if (report.watermarkBefore() != null) {
      out.add(
          Datum.ofRun(
              Metric.WATERMARK_BEFORE, p, d, m, type.metricValue(report.watermarkBefore()), at));
    }
    if (report.watermarkAfter() != null) {
      double after = type.metricValue(report.watermarkAfter());
      out.add(Datum.ofRun(Metric.WATERMARK_AFTER, p, d, m, after, at));
      if (type == io.tidemark.model.config.ChangeMarkerType.TIMESTAMP) {
        out.add(
            Datum.ofRun(
                Metric.WATERMARK_LAG, p, d, m, Math.max(0, at.getEpochSecond() - after), at));
      }
    }
    out.add(Datum.ofRun(Metric.RUN_DURATION, p, d, m, report.duration().toMillis() / 1000.0, at));
    boolean ok = report.status().successful();
    out.add(Datum.ofRun(Metric.RUN_SUCCEEDED, p, d, m, ok ? 1 : 0, at));
    out.add(Datum.ofRun(Metric.RUN_FAILED, p, d, m, ok ? 0 : 1, at));
    out.add(
        Datum.ofRun(
            Metric.PARTITION_FOLDERS_IGNORED,
            p,
            d,
            m,
            report.ignoredPartitionFolders().size(),
            at));
    out.add(Datum.ofRun(Metric.UNPLACED_ENTRIES, p, d, m, report.strayEntries().size(), at));
    out.add(Datum.ofRun(Metric.UNDECLARED_COLUMNS, p, d, m, report.undeclaredColumns().size(), at));
    if (report.filesMissedByLookback() != null) {
      out.add(
          Datum.ofRun(
              Metric.FILES_MISSED_BY_LOOKBACK, p, d, m, report.filesMissedByLookback(), at));
    }
    return out;
  }
}
