package io.tidemark.model.cloudwatch;

import io.tidemark.model.metrics.Metric;
import io.tidemark.model.report.IngestCounts;
import io.tidemark.model.report.IngestRunReport;
import java.util.ArrayList;
import java.util.List;

/** Turns an ingest run report into the datums the catalogue defines for it. */
public final class IngestRunMetrics {
  private IngestRunMetrics() {}

  /**
   * Every ingest metric for one run, timestamped at the run's end. Watermark metrics are left out
   * when the run has no watermark; the lag only exists for timestamp markers.
   */
  public static List<Datum> datums(IngestRunReport report) {
    List<Datum> out = new ArrayList<>();
    String p = report.pipeline();
    String d = report.dataset();
    var at = report.finishedAt();
    IngestCounts c = report.counts();
    out.add(Datum.of(Metric.FILES_DISCOVERED, p, d, c.filesDiscovered(), at));
    out.add(Datum.of(Metric.FILES_NEW, p, d, c.filesNew(), at));
    out.add(Datum.of(Metric.FILES_SKIPPED, p, d, c.filesSkipped(), at));
    out.add(Datum.of(Metric.RECORDS_READ, p, d, c.recordsRead(), at));
    out.add(Datum.of(Metric.RECORDS_CHANGED, p, d, c.recordsChanged(), at));
    out.add(Datum.of(Metric.RECORDS_INSERTED, p, d, c.recordsInserted(), at));
    out.add(Datum.of(Metric.RECORDS_UPDATED, p, d, c.recordsUpdated(), at));
    out.add(Datum.of(Metric.RECORDS_DELETED, p, d, c.recordsDeleted(), at));
    out.add(Datum.of(Metric.RECORDS_INVALID, p, d, c.recordsInvalid(), at));
    out.add(Datum.of(Metric.RECORDS_SUPERSEDED, p, d, c.recordsSuperseded(), at));
    out.add(Datum.of(Metric.RECORDS_LATE, p, d, c.recordsLate(), at));
    out.add(Datum.of(Metric.RECORDS_WRITTEN, p, d, c.recordsWritten(), at));
    out.add(Datum.of(Metric.INVALID_RATIO, p, d, c.invalidRatio(), at));
    var type = report.changeMarkerType();
    if (report.watermarkBefore() != null) {
      out.add(
          Datum.of(Metric.WATERMARK_BEFORE, p, d, type.metricValue(report.watermarkBefore()), at));
    }
    if (report.watermarkAfter() != null) {
      double after = type.metricValue(report.watermarkAfter());
      out.add(Datum.of(Metric.WATERMARK_AFTER, p, d, after, at));
      if (type == io.tidemark.model.config.ChangeMarkerType.TIMESTAMP) {
        out.add(Datum.of(Metric.WATERMARK_LAG, p, d, Math.max(0, at.getEpochSecond() - after), at));
      }
    }
    out.add(Datum.of(Metric.RUN_DURATION, p, d, report.duration().toMillis() / 1000.0, at));
    boolean ok = report.status().successful();
    out.add(Datum.of(Metric.RUN_SUCCEEDED, p, d, ok ? 1 : 0, at));
    out.add(Datum.of(Metric.RUN_FAILED, p, d, ok ? 0 : 1, at));
    out.add(
        Datum.of(
            Metric.PARTITION_FOLDERS_IGNORED, p, d, report.ignoredPartitionFolders().size(), at));
    return out;
  }
}
