package io.tidemark.reconcile.rest;

import io.tidemark.model.config.ChangeMarkerType;
import io.tidemark.model.report.IngestCounts;
import io.tidemark.model.report.IngestErrorCode;
import io.tidemark.model.report.IngestMode;
import io.tidemark.model.report.IngestRunReport;
import io.tidemark.model.report.IngestStatus;
import java.time.Instant;

/**
 * One ingest run as {@code GET /api/datasets/{dataset}/runs} shows it: the run report without its
 * file lists (their paths stay in the report; the counts say how many).
 *
 * @param runId the run's id
 * @param batchId the batch's deterministic id, null when there was no batch
 * @param mode incremental, full refresh, backfill, quarantine replay or sweep
 * @param status how the run ended
 * @param successful whether that status leaves the table correct (the RunSucceeded metric)
 * @param startedAt when it started
 * @param finishedAt when it ended
 * @param durationMillis how long it took
 * @param changeMarkerType how its watermarks read
 * @param watermarkBefore the watermark before the run, null on bootstrap
 * @param watermarkAfter the watermark it committed, null when none
 * @param watermarkLagSeconds how far the watermark trailed the run's end (the WatermarkLag metric);
 *     null without a timestamp watermark
 * @param inputFiles how many files the batch read
 * @param quarantinedFiles how many files were quarantined whole
 * @param counts what the run counted
 * @param warnings how many warnings the report carries
 * @param errorCode the failure's code, when it failed
 * @param error the failure, when it failed
 * @param filesMissedByLookback a sweep's files that no committed batch had read (the
 *     FilesMissedByLookback metric); null for other modes
 */
public record IngestRunView(
    String runId,
    String batchId,
    IngestMode mode,
    IngestStatus status,
    boolean successful,
    Instant startedAt,
    Instant finishedAt,
    long durationMillis,
    ChangeMarkerType changeMarkerType,
    String watermarkBefore,
    String watermarkAfter,
    Long watermarkLagSeconds,
    int inputFiles,
    int quarantinedFiles,
    IngestCounts counts,
    int warnings,
    IngestErrorCode errorCode,
    String error,
    Integer filesMissedByLookback) {

  public static IngestRunView of(IngestRunReport r) {
    Long lag = null;
    if (r.watermarkAfter() != null && r.changeMarkerType() == ChangeMarkerType.TIMESTAMP) {
      long after = (long) r.changeMarkerType().metricValue(r.watermarkAfter());
      lag = Math.max(0, r.finishedAt().getEpochSecond() - after);
    }
    return new IngestRunView(
        r.runId(),
        r.batchId(),
        r.mode(),
        r.status(),
        r.status().successful(),
        r.startedAt(),
        r.finishedAt(),
        r.duration().toMillis(),
        r.changeMarkerType(),
        r.watermarkBefore(),
        r.watermarkAfter(),
        lag,
        r.inputFiles().size(),
        r.quarantinedFiles().size(),
        r.counts(),
        r.warnings().size(),
        r.errorCode(),
        r.error(),
        r.filesMissedByLookback());
  }
}
