package io.tidemark.ingest.run;

import io.tidemark.model.report.IngestCounts;
import io.tidemark.model.report.IngestStatus;
import java.util.List;
import java.util.Objects;

/**
 * How a run ended, when it did not fail.
 *
 * @param status the run's status
 * @param snapshotId the snapshot that holds the batch; null when none does
 * @param counts what the report counts instead of the batch's counts; null to count as usual
 * @param warnings what the run says about its ending
 */
record Ending(IngestStatus status, Long snapshotId, IngestCounts counts, List<String> warnings) {
  Ending {
    Objects.requireNonNull(status, "status is null");
    warnings = List.copyOf(warnings);
  }

  /** The batch is committed, by this run. */
  static Ending succeeded(Long snapshotId) {
    return new Ending(IngestStatus.SUCCEEDED, snapshotId, null, List.of());
  }

  /** There was nothing to do; the messages say why. */
  static Ending nothingToDo(List<String> messages) {
    return new Ending(IngestStatus.NOTHING_TO_DO, null, null, messages);
  }

  /** Another run committed the batch; this run's counts are those it reports. */
  static Ending alreadyCommitted(long snapshotId, IngestCounts counts, String warning) {
    return new Ending(IngestStatus.ALREADY_COMMITTED, snapshotId, counts, List.of(warning));
  }

  /** Another run holds the table's lease. */
  static Ending leaseHeld(String warning) {
    return new Ending(IngestStatus.LEASE_HELD, null, null, List.of(warning));
  }
}
