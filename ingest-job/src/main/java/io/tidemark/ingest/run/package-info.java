/**
 * The orchestrator. {@link io.tidemark.ingest.run.IngestJob} runs the stages in order: the lease,
 * the mode's {@code Selection} (one strategy a mode: incremental by files or watermark, full
 * refresh, backfill, sweep, quarantine replay) that chooses the batch, then for every batch the
 * same {@code BatchPipeline} (validate, plan, check, commit, record), the report and the metrics.
 * Each stage returns an immutable result; the run's trail records them and the report is assembled
 * from them at the end. {@link io.tidemark.ingest.run.ContractCheck} lists and reads a dataset
 * against its contract without running anything. Only the command line depends on this package; no
 * stage does.
 */
package io.tidemark.ingest.run;
