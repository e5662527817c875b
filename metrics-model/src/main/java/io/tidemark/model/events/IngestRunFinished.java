package io.tidemark.model.events;

import io.tidemark.model.report.IngestCounts;
import io.tidemark.model.report.IngestRunReport;
import java.time.Instant;
import java.util.List;

/**
 * The detail of the EventBridge event the ingest job puts when a run ends, whatever its status:
 * source {@value #SOURCE}, detail type {@value #DETAIL_TYPE}. A rule can start a reconciliation on
 * {@code SUCCEEDED}, page on {@code FAILED} or {@code REJECTED}, or look at a run that left input
 * unplaced ({@code strayEntries}, {@code undeclaredColumns} above zero): e.g. {@code {"source":
 * ["tidemark"], "detail-type": ["Tidemark Ingest Run Finished"], "detail": {"status": ["FAILED",
 * "REJECTED"]}}}. Lists that can grow with the input (files, stray entries) are counted here; the
 * run report has them in full.
 *
 * @param deployment the job's deployment (the stack's DeploymentName), so that rules of several
 *     deployments in one account each match their own; null when not configured
 * @param pipeline the pipeline
 * @param dataset the dataset
 * @param runId the run's id
 * @param batchId the batch's id; null when there was no batch
 * @param mode what the run processed ({@code INCREMENTAL}, {@code FULL_REFRESH}…)
 * @param status how it ended ({@code SUCCEEDED}, {@code NOTHING_TO_DO}, {@code FAILED}…)
 * @param errorCode the stable code of a failed or rejected run; null otherwise
 * @param error what failed and where; null otherwise
 * @param startedAt when it began
 * @param finishedAt when it ended
 * @param snapshotId the curated snapshot it committed; null when it committed nothing
 * @param counts what the run counted
 * @param inputFiles how many files the batch read
 * @param quarantinedFiles how many files it quarantined whole
 * @param strayEntries how many entries of the raw location its layout does not place
 * @param undeclaredColumns columns of the batch's files the contract does not declare
 * @param warnings how many warnings the report holds
 * @param report where the run report was written; null when it could not be
 */
public record IngestRunFinished(
    String deployment,
    String pipeline,
    String dataset,
    String runId,
    String batchId,
    String mode,
    String status,
    String errorCode,
    String error,
    Instant startedAt,
    Instant finishedAt,
    Long snapshotId,
    IngestCounts counts,
    int inputFiles,
    int quarantinedFiles,
    int strayEntries,
    List<String> undeclaredColumns,
    int warnings,
    String report) {
  public static final String SOURCE = ReconciliationFinished.SOURCE;
  public static final String DETAIL_TYPE = "Tidemark Ingest Run Finished";

  public IngestRunFinished {
    undeclaredColumns = List.copyOf(undeclaredColumns);
  }

  /**
   * The event of a finished run of a deployment (null: none named), whose report was written to
   * {@code reportLocation} (null: it could not be).
   */
  public static IngestRunFinished of(IngestRunReport r, String deployment, String reportLocation) {
    return new IngestRunFinished(
        deployment,
        r.pipeline(),
        r.dataset(),
        r.runId(),
        r.batchId(),
        r.mode().name(),
        r.status().name(),
        r.errorCode() == null ? null : r.errorCode().name(),
        r.error(),
        r.startedAt(),
        r.finishedAt(),
        r.snapshotId(),
        r.counts(),
        r.inputFiles().size(),
        r.quarantinedFiles().size(),
        r.strayEntries().size(),
        r.undeclaredColumns(),
        r.warnings().size(),
        reportLocation);
  }
}
