package io.tidemark.model.report;

import io.tidemark.model.json.Checks;
import java.util.ArrayList;
import java.util.List;

/**
 * What one ingest run counted. The identities that must hold are checked by {@link
 * #accountingErrors()}; the reconciler's run-accounting rule relies on them.
 *
 * @param filesDiscovered files listed in the candidate partitions
 * @param filesNew discovered files not processed before
 * @param filesSkipped discovered files already processed
 * @param filesQuarantined new files that could not be read or broke the schema contract
 * @param recordsRead rows read from the new (files mode) or candidate (watermark mode) files
 * @param recordsChanged candidate change records: written + invalid + superseded
 * @param recordsInvalid rows quarantined, including the rows of quarantined files when known
 * @param recordsSuperseded valid rows collapsed because a newer version of the key was in the batch
 * @param recordsWritten deduplicated rows handed to the MERGE: inserted + updated + deleted +
 *     unchanged + deletesOfUnknownKeys
 * @param recordsInserted keys inserted
 * @param recordsUpdated keys updated
 * @param recordsDeleted keys deleted
 * @param recordsUnchanged rows the version guard ignored: the table already held a newer or equal
 *     version
 * @param deletesOfUnknownKeys deletes for keys the table did not hold
 * @param recordsLate rows of files new to the run (not read by an earlier batch) whose change
 *     marker is older than the watermark before the run; rows that watermark discovery reads again
 *     from processed files are not late
 */
public record IngestCounts(
    long filesDiscovered,
    long filesNew,
    long filesSkipped,
    long filesQuarantined,
    long recordsRead,
    long recordsChanged,
    long recordsInvalid,
    long recordsSuperseded,
    long recordsWritten,
    long recordsInserted,
    long recordsUpdated,
    long recordsDeleted,
    long recordsUnchanged,
    long deletesOfUnknownKeys,
    long recordsLate) {

  public static final IngestCounts ZERO = builder().build();

  public IngestCounts {
    Checks.nonNegative("filesDiscovered", filesDiscovered);
    Checks.nonNegative("filesNew", filesNew);
    Checks.nonNegative("filesSkipped", filesSkipped);
    Checks.nonNegative("filesQuarantined", filesQuarantined);
    Checks.nonNegative("recordsRead", recordsRead);
    Checks.nonNegative("recordsChanged", recordsChanged);
    Checks.nonNegative("recordsInvalid", recordsInvalid);
    Checks.nonNegative("recordsSuperseded", recordsSuperseded);
    Checks.nonNegative("recordsWritten", recordsWritten);
    Checks.nonNegative("recordsInserted", recordsInserted);
    Checks.nonNegative("recordsUpdated", recordsUpdated);
    Checks.nonNegative("recordsDeleted", recordsDeleted);
    Checks.nonNegative("recordsUnchanged", recordsUnchanged);
    Checks.nonNegative("deletesOfUnknownKeys", deletesOfUnknownKeys);
    Checks.nonNegative("recordsLate", recordsLate);
  }

  /** Inserted + updated + deleted: the keys whose state the run changed. */
  public long recordsApplied() {
    return recordsInserted + recordsUpdated + recordsDeleted;
  }

  /** Invalid / changed, 0 when nothing changed. */
  public double invalidRatio() {
    return recordsChanged == 0 ? 0 : (double) recordsInvalid / recordsChanged;
  }

  /** The identities a correct run satisfies; empty when every record and file is accounted for. */
  public List<String> accountingErrors() {
    List<String> errors = new ArrayList<>();
    if (filesDiscovered != filesNew + filesSkipped) {
      errors.add(
          "filesDiscovered %d != filesNew %d + filesSkipped %d"
              .formatted(filesDiscovered, filesNew, filesSkipped));
    }
    if (filesQuarantined > filesNew) {
      errors.add("filesQuarantined %d > filesNew %d".formatted(filesQuarantined, filesNew));
    }
    if (recordsChanged != recordsWritten + recordsInvalid + recordsSuperseded) {
      errors.add(
          "recordsChanged %d != recordsWritten %d + recordsInvalid %d + recordsSuperseded %d"
              .formatted(recordsChanged, recordsWritten, recordsInvalid, recordsSuperseded));
    }
    long guarded = recordsApplied() + recordsUnchanged + deletesOfUnknownKeys;
    if (recordsWritten != guarded) {
      errors.add(
          ("recordsWritten %d != inserted %d + updated %d + deleted %d + unchanged %d"
                  + " + deletesOfUnknownKeys %d")
              .formatted(
                  recordsWritten,
                  recordsInserted,
                  recordsUpdated,
                  recordsDeleted,
                  recordsUnchanged,
                  deletesOfUnknownKeys));
    }
    if (recordsChanged > recordsRead) {
      errors.add("recordsChanged %d > recordsRead %d".formatted(recordsChanged, recordsRead));
    }
    return errors;
  }

  /** Counts of a run that read or committed no records: its files only. */
  public static IngestCounts filesOnly(long discovered, long fresh, long skipped) {
    return builder().filesDiscovered(discovered).filesNew(fresh).filesSkipped(skipped).build();
  }

  /** A builder with every count 0. */
  public static Builder builder() {
    return new Builder();
  }

  /** Builds counts by name; {@link #build()} checks each is not negative. */
  public static final class Builder {
    private long filesDiscovered;
    private long filesNew;
    private long filesSkipped;
    private long filesQuarantined;
    private long recordsRead;
    private long recordsChanged;
    private long recordsInvalid;
    private long recordsSuperseded;
    private long recordsWritten;
    private long recordsInserted;
    private long recordsUpdated;
    private long recordsDeleted;
    private long recordsUnchanged;
    private long deletesOfUnknownKeys;
    private long recordsLate;

    private Builder() {}

    public Builder filesDiscovered(long v) {
      filesDiscovered = v;
      return this;
    }

    public Builder filesNew(long v) {
      filesNew = v;
      return this;
    }

    public Builder filesSkipped(long v) {
      filesSkipped = v;
      return this;
    }

    public Builder filesQuarantined(long v) {
      filesQuarantined = v;
      return this;
    }

    public Builder recordsRead(long v) {
      recordsRead = v;
      return this;
    }

    public Builder recordsChanged(long v) {
      recordsChanged = v;
      return this;
    }

    public Builder recordsInvalid(long v) {
      recordsInvalid = v;
      return this;
    }

    public Builder recordsSuperseded(long v) {
      recordsSuperseded = v;
      return this;
    }

    public Builder recordsWritten(long v) {
      recordsWritten = v;
      return this;
    }

    public Builder recordsInserted(long v) {
      recordsInserted = v;
      return this;
    }

    public Builder recordsUpdated(long v) {
      recordsUpdated = v;
      return this;
    }

    public Builder recordsDeleted(long v) {
      recordsDeleted = v;
      return this;
    }

    public Builder recordsUnchanged(long v) {
      recordsUnchanged = v;
      return this;
    }

    public Builder deletesOfUnknownKeys(long v) {
      deletesOfUnknownKeys = v;
      return this;
    }

    public Builder recordsLate(long v) {
      recordsLate = v;
      return this;
    }

    public IngestCounts build() {
      return new IngestCounts(
          filesDiscovered,
          filesNew,
          filesSkipped,
          filesQuarantined,
          recordsRead,
          recordsChanged,
          recordsInvalid,
          recordsSuperseded,
          recordsWritten,
          recordsInserted,
          recordsUpdated,
          recordsDeleted,
          recordsUnchanged,
          deletesOfUnknownKeys,
          recordsLate);
    }
  }
}
