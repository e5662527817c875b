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
    return IngestRunReport.builder()
        .runId("run-20261015-0001")
        .batchId("b-3f2a9c")
        .pipeline("crm")
        .dataset("customers")
        .mode(IngestMode.INCREMENTAL)
        .discoveryMode(DiscoveryMode.FILES)
        .status(IngestStatus.SUCCEEDED)
        .startedAt(start)
        .finishedAt(start.plusSeconds(42))
        .changeMarkerType(ChangeMarkerType.TIMESTAMP)
        .watermarkBefore("2026-10-14T23:59:59Z")
        .watermarkAfter("2026-10-15T23:58:00Z")
        .lookback(Duration.ofDays(2))
        .inputFiles(List.of("raw/customers/ingest_date=2026-10-15/part-0.parquet"))
        .counts(counts())
        .snapshotId(123456789L)
        .warnings(List.of("schema drift: extra column 'phone' ignored"))
        .build();
  }

  /** The same run as {@link #succeeded} in another mode, with a sweep's count (null: none). */
  public static IngestRunReport inMode(
      Instant start, IngestMode mode, Integer filesMissedByLookback) {
    return succeeded(start).toBuilder()
        .mode(mode)
        .partitionsRead(List.of("2026-10-15"))
        .filesMissedByLookback(filesMissedByLookback)
        .build();
  }
}
