package io.tidemark.ingest.report;

import io.tidemark.ingest.checkpoint.CheckpointCodec;
import io.tidemark.ingest.checkpoint.CheckpointLog;
import io.tidemark.ingest.config.IngestSettings;
import io.tidemark.model.json.Json;
import io.tidemark.model.report.IngestCounts;
import io.tidemark.model.report.IngestMode;
import io.tidemark.model.report.IngestRunReport;
import io.tidemark.model.report.IngestStatus;
import java.io.IOException;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Rebuilds the run report of the latest committed batch when its run ended (a crash, a lost
 * connection to the state root) after the commit but before writing the report. The commit holds
 * the truth: its snapshot summary carries the run id, batch id, mode, watermark and counts. Each
 * run checks its predecessor before it starts, so a report is never missing for longer than until
 * the next run, and the reconciler's run accounting, which matches commits with reports, finds
 * every commit reported.
 */
public final class ReportRecovery {
  private static final Logger LOG = LoggerFactory.getLogger(ReportRecovery.class);

  /** The warning a rebuilt report carries. */
  public static final String REBUILT =
      "report rebuilt from the snapshot summary of its commit: the run ended before writing it;"
          + " input and quarantined files are not known";

  private ReportRecovery() {}

  /**
   * Writes the report of the latest ingest commit on the table's main history if it has none.
   *
   * @return the report written, if one was missing
   * @throws IOException when the state root cannot be read or written
   */
  public static Optional<IngestRunReport> recover(
      Table curated, IngestSettings settings, Configuration conf) throws IOException {
    Optional<LastCommit> last = lastCommit(curated);
    if (last.isEmpty()) {
      return Optional.empty();
    }
    Snapshot latest = last.get().snapshot();
    Map<String, String> summary = latest.summary();
    String runId = summary.get(CheckpointCodec.RUN_ID);
    String counts = summary.get(CheckpointCodec.COUNTS);
    if (runId == null || counts == null) {
      return Optional.empty();
    }
    Instant committedAt = Instant.ofEpochMilli(latest.timestampMillis());
    // A run's report is filed under the day the run started, which its commit records; commits
    // written before it did: the commit's day, or the day before.
    String started = summary.get(CheckpointCodec.RUN_STARTED_AT);
    Instant startedAt = started == null ? committedAt : Instant.parse(started);
    LocalDate day = LocalDate.ofInstant(startedAt, ZoneOffset.UTC);
    if (RunReports.exists(settings.stateRoot(), day, runId, conf)
        || (started == null
            && RunReports.exists(settings.stateRoot(), day.minusDays(1), runId, conf))) {
      return Optional.empty();
    }
    IngestRunReport report =
        rebuilt(
            settings,
            last.get(),
            startedAt,
            committedAt.isBefore(startedAt) ? startedAt : committedAt);
    String location = RunReports.write(settings, report, conf);
    LOG.warn(
        "Run {} committed batch {} (snapshot {}) but wrote no report; rebuilt it at {}",
        runId,
        report.batchId(),
        latest.snapshotId(),
        location);
    return Optional.of(report);
  }

  /**
   * The latest ingest commit on the table's main history, with the watermark of the one before.
   *
   * @param snapshot the commit
   * @param watermarkBefore the watermark the commit before it left; null when none
   */
  private record LastCommit(Snapshot snapshot, String watermarkBefore) {}

  private static Optional<LastCommit> lastCommit(Table curated) {
    Snapshot latest = null;
    for (Snapshot s : CheckpointLog.history(curated)) {
      Map<String, String> summary = s.summary();
      if (summary == null || !summary.containsKey(CheckpointCodec.BATCH_ID)) {
        continue;
      }
      if (latest != null) {
        return Optional.of(new LastCommit(latest, summary.get(CheckpointCodec.WATERMARK)));
      }
      latest = s;
    }
    return latest == null ? Optional.empty() : Optional.of(new LastCommit(latest, null));
  }

  /** The report the commit's summary tells. */
  private static IngestRunReport rebuilt(
      IngestSettings settings, LastCommit last, Instant startedAt, Instant finishedAt) {
    Map<String, String> summary = last.snapshot().summary();
    String mode = summary.get(CheckpointCodec.MODE);
    return IngestRunReport.builder()
        .runId(summary.get(CheckpointCodec.RUN_ID))
        .batchId(summary.get(CheckpointCodec.BATCH_ID))
        .pipeline(settings.dataset().pipeline())
        .dataset(settings.dataset().name())
        .mode(mode == null ? settings.mode() : IngestMode.valueOf(mode))
        .discoveryMode(settings.discovery())
        .status(IngestStatus.SUCCEEDED)
        .startedAt(startedAt)
        .finishedAt(finishedAt)
        .changeMarkerType(settings.dataset().changeMarker().type())
        .watermarkBefore(last.watermarkBefore())
        .watermarkAfter(summary.get(CheckpointCodec.WATERMARK))
        .lookback(settings.lookback())
        .counts(Json.read(summary.get(CheckpointCodec.COUNTS), IngestCounts.class))
        .snapshotId(last.snapshot().snapshotId())
        .warnings(List.of(REBUILT))
        .build();
  }
}
