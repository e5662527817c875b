package io.tidemark.reconcile.engine.sql;

import io.tidemark.model.config.ChangeMarkerType;
import io.tidemark.model.report.ReconciliationMode;
import io.tidemark.reconcile.engine.EngineRequest;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;

/**
 * Which raw files a request reads, the same for every engine: a WINDOW reconciliation with a start
 * and timestamp markers reads the partitions from the day before its start on, plus the files of
 * older partitions that arrived (modification time) at or after its start; any other reads every
 * partition.
 *
 * @param fromDate the first partition read whole; null for every partition
 * @param arrivedSince files of older partitions are read when they arrived at or after it; null
 *     when every partition is read whole
 */
public record RawReadPlan(LocalDate fromDate, Instant arrivedSince) {
  /**
   * How far before the window start's date the raw partitions are read whole: a record lands in a
   * partition dated no earlier than the day before its change marker (producer clock skew).
   */
  public static final long PARTITION_SLACK_DAYS = 1;

  /** The plan of a request. */
  public static RawReadPlan of(EngineRequest request) {
    if (request.mode() == ReconciliationMode.WINDOW
        && request.from() != null
        && request.dataset().changeMarker().type() == ChangeMarkerType.TIMESTAMP) {
      // A late file filed in an older partition is defined by when it arrived, not where.
      return new RawReadPlan(
          LocalDate.ofInstant(request.from(), ZoneOffset.UTC).minusDays(PARTITION_SLACK_DAYS),
          request.from());
    }
    return new RawReadPlan(null, null);
  }

  /** Whether a file of a partition of this date is read only because it arrived late. */
  public boolean late(LocalDate partitionDate) {
    return fromDate != null && partitionDate.isBefore(fromDate);
  }
}
