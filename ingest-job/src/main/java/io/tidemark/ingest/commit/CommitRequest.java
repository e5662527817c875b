package io.tidemark.ingest.commit;

import io.tidemark.ingest.kernel.RunStart;
import io.tidemark.model.report.IngestCounts;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;

/**
 * A planned batch, ready to commit.
 *
 * @param batchId the batch's deterministic id
 * @param run the run committing it
 * @param baseSnapshot the curated snapshot the batch was planned and counted against; -1 when the
 *     table had none
 * @param fullRefresh whether the batch replaces the curated table's and remembered deletes' rows
 * @param quarantine what the batch quarantines; null for a batch that writes no quarantine rows (a
 *     replay, whose rows are in the quarantine already)
 * @param planned the deduplicated records with the action the version guard takes
 * @param counts the batch's counts
 * @param properties the checkpoint and run properties that go into the commit
 * @param now when the quarantine rows are quarantined
 * @param rawArrivedBy the latest arrival of a raw file the run had listed: an audit reads raw as of
 *     it; null to read raw as of the audit
 */
public record CommitRequest(
    String batchId,
    RunStart run,
    long baseSnapshot,
    boolean fullRefresh,
    Quarantine quarantine,
    Dataset<Row> planned,
    IngestCounts counts,
    Map<String, String> properties,
    Instant now,
    Instant rawArrivedBy) {
  public CommitRequest {
    Objects.requireNonNull(batchId, "batchId is null");
    Objects.requireNonNull(run, "run is null");
    // In the order given: the commit's summary lists them so.
    properties = Collections.unmodifiableMap(new LinkedHashMap<>(properties));
    Objects.requireNonNull(planned, "planned is null");
    Objects.requireNonNull(counts, "counts is null");
  }

  /**
   * What a batch quarantines.
   *
   * @param invalidRows the batch's invalid candidate records, in the validated shape
   * @param problemRows quarantine rows of files quarantined whole; null when none
   * @param files how many files are quarantined whole
   * @param filesWithoutRows how many of them are quarantined as one row without values (unreadable)
   * @param sourceFiles the first and last, in Spark's string order, of the raw files the batch
   *     read: every row it quarantines names a file between them, so the quarantine MERGE reads
   *     only the quarantine files whose rows can (see {@link CommitSql#quarantineMerge}); null to
   *     read them all
   */
  public record Quarantine(
      Dataset<Row> invalidRows,
      Dataset<Row> problemRows,
      long files,
      long filesWithoutRows,
      FileRange sourceFiles) {}

  /**
   * The first and last of a set of raw file paths, in the order Spark and Iceberg compare strings:
   * by their UTF-8 bytes (Unicode code points), not by Java's UTF-16 units, which put a character
   * above U+FFFF before one in U+E000-U+FFFF.
   *
   * @param first the least path
   * @param last the greatest path
   */
  public record FileRange(String first, String last) {
    /** Strings by their UTF-8 bytes, unsigned: Spark's and Iceberg's order. */
    public static final Comparator<String> UTF8_ORDER =
        (a, b) ->
            Arrays.compareUnsigned(
                a.getBytes(StandardCharsets.UTF_8), b.getBytes(StandardCharsets.UTF_8));

    public FileRange {
      Objects.requireNonNull(first, "first is null");
      Objects.requireNonNull(last, "last is null");
      if (UTF8_ORDER.compare(first, last) > 0) {
        throw new IllegalArgumentException(first + " is after " + last);
      }
    }

    /** The range of {@code paths}; null when there are none. */
    public static FileRange of(Collection<String> paths) {
      return paths.isEmpty()
          ? null
          : new FileRange(Collections.min(paths, UTF8_ORDER), Collections.max(paths, UTF8_ORDER));
    }
  }
}
