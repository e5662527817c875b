package io.tidemark.ingest.validate;

import io.tidemark.model.report.IngestCounts;
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
  static final String ROWS = "rows";
  static final String CANDIDATES = "candidates";
  static final String INVALID = "invalid";
  static final String LATE = "late";
  static final String MAX_VALID_MARKER = "max_valid_marker";
  static final String SUPERSEDED = "superseded";

  /** From the one-row aggregate over the validated batch, plus rows of quarantined files. */
  static ReadCounts of(Row agg, long problemRecords) {
    return new ReadCounts(
        count(agg, ROWS) + problemRecords,
        count(agg, CANDIDATES) + problemRecords,
        count(agg, INVALID) + problemRecords,
        count(agg, LATE),
        count(agg, SUPERSEDED),
        agg.getAs(MAX_VALID_MARKER));
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

  private static long count(Row r, String name) {
    Object v = r.getAs(name);
    return v == null ? 0 : ((Number) v).longValue();
  }
}
