package io.tidemark.model.testing;

import io.tidemark.model.config.ChangeMarkerType;
import io.tidemark.model.report.DiscoveryMode;
import io.tidemark.model.report.IngestCounts;
import io.tidemark.model.report.IngestMode;
import io.tidemark.model.report.IngestRunReport;
import io.tidemark.model.report.IngestStatus;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/** Sample documents for tests. */
public final class Reports {
  private Reports() {}

  /** A consistent run: 1000 changed = 940 written + 10 invalid + 50 superseded. */
  public static IngestCounts counts() {
    return new IngestCounts(12, 3, 9, 0, 1000, 1000, 10, 50, 940, 600, 300, 30, 8, 2, 7);
  }

  public static IngestRunReport succeeded(Instant start) {
    return new IngestRunReport(
        IngestRunReport.SCHEMA_VERSION,
        "run-20261015-0001",
        "b-3f2a9c",
        "crm",
        "customers",
        IngestMode.INCREMENTAL,
        DiscoveryMode.FILES,
        IngestStatus.SUCCEEDED,
        start,
        start.plusSeconds(42),
        ChangeMarkerType.TIMESTAMP,
        "2026-10-14T23:59:59Z",
        "2026-10-15T23:58:00Z",
        Duration.ofDays(2),
        List.of("raw/customers/ingest_date=2026-10-15/part-0.parquet"),
        List.of(),
        counts(),
        123456789L,
        List.of("schema drift: extra column 'phone' ignored"),
        null,
        null);
  }

  /** The same run as {@link #succeeded} in another mode, with a sweep's count (null: none). */
  public static IngestRunReport inMode(
      Instant start, IngestMode mode, Integer filesMissedByLookback) {
    IngestRunReport r = succeeded(start);
    return new IngestRunReport(
        r.schemaVersion(),
        r.runId(),
        r.batchId(),
        r.pipeline(),
        r.dataset(),
        mode,
        r.discoveryMode(),
        r.status(),
        r.startedAt(),
        r.finishedAt(),
        r.changeMarkerType(),
        r.watermarkBefore(),
        r.watermarkAfter(),
        r.lookback(),
        r.inputFiles(),
        r.quarantinedFiles(),
        r.counts(),
        r.snapshotId(),
        r.warnings(),
        r.errorCode(),
        r.error(),
        r.ignoredPartitionFolders(),
        r.discoveryListCalls(),
        List.of("2026-10-15"),
        filesMissedByLookback);
  }
}
