package io.tidemark.ingest.validate;

import java.util.Map;
import org.apache.spark.sql.Column;

/**
 * What the validation stage reads: records in the normalized shape ({@link
 * io.tidemark.ingest.kernel.Cols}), from new raw files ({@link RawFiles}) or from the quarantine
 * ({@link QuarantinedRecords}), and how the batch tells its candidate changes and its late records.
 */
public interface BatchSource {
  /**
   * Reads the records.
   *
   * @param unreadable files to quarantine whole because their data cannot be read, path -> why
   */
  NormalizedBatch read(Map<String, String> unreadable);

  /**
   * The files whose footer reads but whose data does not, path -> why: the batch is read again
   * without them. Empty when there is nothing to set aside (the failure then stands).
   */
  Map<String, String> findUnreadable();

  /**
   * Whether a classified record is a candidate change of the batch; it may use {@link
   * io.tidemark.ingest.kernel.Cols#REASON}.
   */
  Column candidate();

  /** Whether a valid candidate is late: older than the watermark, in a file new to the batch. */
  Column late();
}
