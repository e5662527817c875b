package io.tidemark.ingest.run;

import static org.apache.spark.sql.functions.bit_xor;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.pmod;
import static org.apache.spark.sql.functions.sum;
import static org.apache.spark.sql.functions.when;
import static org.apache.spark.sql.functions.xxhash64;

import io.tidemark.ingest.checkpoint.CheckpointCodec;
import io.tidemark.ingest.checkpoint.CheckpointLog;
import io.tidemark.ingest.checkpoint.TableState;
import io.tidemark.ingest.commit.CommitOutcome;
import io.tidemark.ingest.commit.CommitRequest;
import io.tidemark.ingest.commit.ReplayMarks;
import io.tidemark.ingest.kernel.Cols;
import io.tidemark.ingest.merge.MergeBasis;
import io.tidemark.ingest.merge.MergePlan;
import io.tidemark.ingest.tables.OutputTables;
import io.tidemark.ingest.validate.BatchSource;
import io.tidemark.ingest.validate.QuarantinedRecords;
import io.tidemark.ingest.validate.ReadCounts;
import io.tidemark.ingest.validate.ValidatedBatch;
import io.tidemark.model.report.IngestCounts;
import io.tidemark.model.report.IngestMode;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.apache.iceberg.Snapshot;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;

/**
 * A batch of quarantined records judged again ({@link ReplaySelection}). The ones now valid are
 * deduplicated and planned against the curated table and its remembered deletes, then committed
 * through the run's branch like any batch, with the batch id, run id, mode and counts and no
 * checkpoint (the next incremental run resumes where it was); then marked replayed ({@link
 * OutputTables#REPLAYED_AT}, {@link OutputTables#REPLAY_BATCH_ID}).
 *
 * <p>The batch id is a hash of the now-valid rows' identities, so a run that crashed between the
 * commit and the marking is finished by the next one: it selects the same rows, finds the batch in
 * the curated table's history and only marks them. A dry run plans, says in its report's warnings
 * and in the log what would happen, and ends without writing to any table.
 *
 * @param run the run
 * @param state the curated table as the replay found it
 * @param records the selected records that can be judged row by row
 * @param recordsRead every selected row with values, whole-file entries included
 */
record ReplayBatch(RunContext run, TableState state, QuarantinedRecords records, long recordsRead)
    implements Batch {
  @Override
  public String batchId() {
    return null;
  }

  @Override
  public BatchSource source() {
    return records;
  }

  /** The batch's id, from the identities of the rows now valid; the run ends when none is. */
  @Override
  public Next validated(ValidatedBatch v) {
    Map<String, long[]> byReason = byReason(v.rows());
    byReason.forEach(
        (reason, n) ->
            ReplaySelection.LOG.info(
                "Reason {}: {} record(s) now valid{}, {} still invalid",
                reason,
                n[0],
                run.settings().operator().dryRun() ? " (would be merged)" : "",
                n[1]));
    ReadCounts c = v.counts();
    if (c.changed() == 0) {
      return Next.end(
          nothingToDo(
              "Nothing to replay: every selected row was quarantined with its whole file (the"
                  + " warning names the files); nothing committed"));
    }
    if (c.valid() == 0) {
      if (run.settings().operator().dryRun()) {
        run.trail().warnFirst(ReplaySelection.DRY_RUN + "; " + summary(byReason));
      }
      return Next.end(
          nothingToDo(
              "Nothing to replay: none of the "
                  + c.changed()
                  + " selected record(s) is valid under the current settings (future tolerance "
                  + run.settings().futureTolerance()
                  + "); "
                  + summary(byReason)
                  + "; they stay quarantined"));
    }
    return Next.proceed(batchId(v.rows(), c.valid()));
  }

  private static Ending nothingToDo(String message) {
    ReplaySelection.LOG.info(message);
    return Ending.nothingToDo(List.of(message));
  }

  @Override
  public MergeBasis basis() {
    return MergeBasis.snapshot(state.baseSnapshot());
  }

  @Override
  public long size(ValidatedBatch v) {
    return v.counts().valid();
  }

  /** Every selected row with values was read; none is late, and no file is counted. */
  @Override
  public IngestCounts counts(ValidatedBatch v, MergePlan plan) {
    IngestCounts.Builder counts = v.counts().countInto(IngestCounts.builder());
    return plan.countInto(counts.recordsRead(recordsRead)).build();
  }

  @Override
  public String noun() {
    return "replay batch";
  }

  /** A dry run ends here; a replay that committed but did not mark its rows only marks them. */
  @Override
  public Optional<Ending> planned(String batchId, ValidatedBatch v, IngestCounts counts) {
    ReplaySelection.LOG.info(
        "Replay batch {}: {} record(s) selected, {} now valid, {} still invalid, {} superseded;"
            + " the version guard would insert {}, update {}, delete {}, leave unchanged {},"
            + " delete unknown keys {}",
        batchId,
        v.counts().changed(),
        v.counts().valid(),
        counts.recordsInvalid(),
        counts.recordsSuperseded(),
        counts.recordsInserted(),
        counts.recordsUpdated(),
        counts.recordsDeleted(),
        counts.recordsUnchanged(),
        counts.deletesOfUnknownKeys());
    if (run.settings().operator().dryRun()) {
      String plan = dryRun(batchId, counts, byReason(v.rows()));
      ReplaySelection.LOG.info(plan);
      run.trail().warnFirst(plan);
      return Optional.of(Ending.nothingToDo(List.of()));
    }
    Optional<Snapshot> done = CheckpointLog.findBatch(state.curated(), batchId);
    if (done.isEmpty()) {
      return Optional.empty();
    }
    // A run that crashed after its commit: the rows are merged, only the marking is missing.
    ReplaySelection.LOG.info(
        "Replay batch {} is already committed (snapshot {}); marking its rows replayed",
        batchId,
        done.get().snapshotId());
    return Optional.of(alreadyCommitted(batchId, done.get().snapshotId(), v));
  }

  private String dryRun(String batchId, IngestCounts c, Map<String, long[]> byReason) {
    return String.format(
        Locale.ROOT,
        "%s; replay batch %s would merge %d record(s) into %s (insert %d, update %d, delete %d,"
            + " unchanged %d, deletes of unknown keys %d, superseded %d) and mark them"
            + " replayed; %d stay quarantined; by reason: %s",
        ReplaySelection.DRY_RUN,
        batchId,
        c.recordsWritten() + c.recordsSuperseded(),
        run.settings().curatedSparkName(),
        c.recordsInserted(),
        c.recordsUpdated(),
        c.recordsDeleted(),
        c.recordsUnchanged(),
        c.deletesOfUnknownKeys(),
        c.recordsSuperseded(),
        c.recordsInvalid(),
        summary(byReason));
  }

  /** Checked when the replay started (not for a dry run); its tables exist. */
  @Override
  public void beforeCommit(String batchId, ValidatedBatch v) {}

  /** The batch writes no quarantine rows, and its commit carries no checkpoint. */
  @Override
  public CommitRequest commitRequest(
      String batchId, ValidatedBatch v, MergePlan plan, IngestCounts counts) {
    Map<String, String> props = new LinkedHashMap<>();
    props.put(CheckpointCodec.BATCH_ID, batchId);
    props.put(CheckpointCodec.RUN_ID, run.start().runId());
    props.put(CheckpointCodec.RUN_STARTED_AT, run.start().startedAt().toString());
    props.put(CheckpointCodec.MODE, IngestMode.REPLAY_QUARANTINE.name());
    props.put(CheckpointCodec.COUNTS, CheckpointCodec.compactJson(counts));
    return new CommitRequest(
        batchId,
        run.start(),
        state.baseSnapshot(),
        false,
        null,
        plan.planned(),
        counts,
        props,
        v.validatedAt(),
        null);
  }

  @Override
  public String committedNote(ValidatedBatch v) {
    return "checkpoint not moved";
  }

  @Override
  public void afterCommit(String batchId, ValidatedBatch v) {
    mark(batchId, v.valid());
  }

  /** The rows are merged: mark them; the commit's own counts account for the records. */
  @Override
  public Ending alreadyCommitted(String batchId, long snapshotId, ValidatedBatch v) {
    mark(batchId, v.valid());
    return Ending.alreadyCommitted(
        snapshotId,
        IngestCounts.ZERO,
        "Replay batch "
            + batchId
            + " was already committed (snapshot "
            + snapshotId
            + "); this run only marked its rows replayed and wrote no data");
  }

  @Override
  public String conflictNote(CommitOutcome.Conflict c) {
    return "nothing of this replay was committed and rerunning is safe";
  }

  /** Marks the now-valid rows replayed by this batch; rows already marked keep their mark. */
  private void mark(String batchId, Dataset<Row> replayed) {
    new ReplayMarks(run.spark(), run.settings(), run.resources())
        .mark(replayed, batchId, run.settings().clock().instant());
  }

  /** Per original reason: [now valid, still invalid]. */
  private static Map<String, long[]> byReason(Dataset<Row> validated) {
    Map<String, long[]> out = new TreeMap<>();
    for (Row r :
        validated
            .groupBy(col(QuarantinedRecords.ORIGINAL_REASON), col(Cols.REASON).isNull().as("valid"))
            .count()
            .collectAsList()) {
      out.computeIfAbsent(r.getString(0), k -> new long[2])[r.getBoolean(1) ? 0 : 1] +=
          r.getLong(2);
    }
    return out;
  }

  private static String summary(Map<String, long[]> byReason) {
    List<String> parts = new ArrayList<>();
    byReason.forEach(
        (reason, n) -> parts.add(reason + ": " + n[0] + " now valid, " + n[1] + " still invalid"));
    return String.join("; ", parts);
  }

  /** The replay's deterministic batch id, from the now-valid rows' identities. */
  private static String batchId(Dataset<Row> validated, long validRows) {
    Column valid = col(Cols.REASON).isNull();
    // An order-free fingerprint of the now-valid rows.
    Row agg =
        validated
            .agg(
                bit_xor(when(valid, identityHash())).as("xor"),
                sum(when(valid, pmod(identityHash(), lit(Integer.MAX_VALUE)))).as("sum"))
            .first();
    return batchId(validRows, String.valueOf(agg.get(0)), String.valueOf(agg.get(1)));
  }

  /**
   * A 64-bit hash of a quarantine row's identity: the batch that quarantined it, its file and row
   * number (a row quarantined again later, by a full refresh, is a new identity).
   */
  private static Column identityHash() {
    return xxhash64(
        col(QuarantinedRecords.ORIGINAL_BATCH), col(Cols.SOURCE_FILE), col(Cols.ROW_INDEX));
  }

  static String batchId(long rows, String xor, String sum) {
    MessageDigest sha;
    try {
      sha = MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
    String text =
        "tidemark-replay-v1\nmode="
            + IngestMode.REPLAY_QUARANTINE
            + "\nrows="
            + rows
            + "\nxor="
            + xor
            + "\nsum="
            + sum
            + "\n";
    return HexFormat.of()
        .formatHex(sha.digest(text.getBytes(StandardCharsets.UTF_8)))
        .substring(0, 32);
  }
}
