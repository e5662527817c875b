package io.tidemark.ingest.validate;

import io.tidemark.model.report.IngestCounts;
import java.util.Locale;
import org.apache.spark.sql.Row;

/**
 * A batch's record counts, from the one pass over the validated records.
 *
 * @param rowsRead every record read, those of quarantined files included
 * @param changed the candidate changes
 * @param invalid the invalid candidates, the records of quarantined files included
 * @param late the valid candidates older than the watermark in files new to the batch
 * @param superseded the valid candidates a newer version of their key in the batch replaces
 * @param maxValidMarker the highest change marker of a valid candidate record; null when none
 */
public record ReadCounts(
    long rowsRead, long changed, long invalid, long late, long superseded, Object maxValidMarker) {
  /** The columns of the aggregate that counts a batch. */
  enum Count {
    ROWS,
    CANDIDATES,
    INVALID,
    LATE,
    MAX_VALID_MARKER,
    SUPERSEDED;

    /** The column's name in the aggregate. */
    String column() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  /** From the one-row aggregate over the validated batch, plus rows of quarantined files. */
  static ReadCounts of(Row agg, long problemRecords) {
    return new ReadCounts(
        count(agg, Count.ROWS) + problemRecords,
        count(agg, Count.CANDIDATES) + problemRecords,
        count(agg, Count.INVALID) + problemRecords,
        count(agg, Count.LATE),
        count(agg, Count.SUPERSEDED),
        agg.getAs(Count.MAX_VALID_MARKER.column()));
  }

  /** Sets the record counts of what was read and judged. */
  public IngestCounts.Builder countInto(IngestCounts.Builder counts) {
    return counts
        .recordsRead(rowsRead)
        .recordsChanged(changed)
        .recordsInvalid(invalid)
        .recordsSuperseded(superseded)
        .recordsLate(late);
  }

  /** The valid candidates. */
  public long valid() {
    return changed - invalid;
  }

  private static long count(Row r, Count c) {
    Object v = r.getAs(c.column());
    return v == null ? 0 : ((Number) v).longValue();
  }
}
