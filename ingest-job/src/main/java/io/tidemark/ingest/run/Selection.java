package io.tidemark.ingest.run;

import io.tidemark.model.report.IngestMode;

/**
 * The step of a run that differs by mode: it chooses what the batch reads, and the {@link Batch} it
 * hands on says how that batch behaves in the stages every batch goes through. One implementation a
 * mode: {@link IncrementalSelection} (files or watermark discovery), {@link FullRefreshSelection},
 * {@link BackfillSelection}, {@link SweepSelection} and {@link ReplaySelection}.
 */
interface Selection {
  /** The batch to process, or how the run ends without one (nothing to do, already committed). */
  Choice select();

  /** The selection of the run's mode. */
  static Selection of(RunContext run) {
    IngestMode mode = run.settings().mode();
    return switch (mode) {
      case INCREMENTAL -> new IncrementalSelection(run);
      case FULL_REFRESH -> new FullRefreshSelection(run);
      case BACKFILL -> new BackfillSelection(run);
      case SWEEP -> new SweepSelection(run);
      case REPLAY_QUARANTINE -> new ReplaySelection(run);
      case MAINTAIN ->
          throw new IllegalStateException("maintenance selects no batch: it runs as MaintainRun");
    };
  }

  /** What the selection chose. */
  sealed interface Choice {
    /** A batch to process. */
    record Process(Batch batch) implements Choice {}

    /** No batch: the run ends so. */
    record End(Ending ending) implements Choice {}
  }
}
