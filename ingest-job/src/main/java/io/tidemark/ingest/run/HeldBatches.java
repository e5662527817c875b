package io.tidemark.ingest.run;

import io.tidemark.ingest.audit.AuditException;
import io.tidemark.ingest.audit.VerifiedPublish;
import io.tidemark.ingest.checkpoint.CheckpointCodec;
import io.tidemark.ingest.commit.BranchAuditing;
import io.tidemark.ingest.commit.HeldBranches;
import io.tidemark.ingest.commit.RunBranches;
import io.tidemark.ingest.kernel.IngestException;
import io.tidemark.ingest.kernel.RunLog;
import io.tidemark.ingest.lease.Lease;
import io.tidemark.ingest.report.RunReports;
import io.tidemark.model.audit.AuditRequest;
import io.tidemark.model.json.Json;
import io.tidemark.model.report.BatchAudit;
import io.tidemark.model.report.IngestCounts;
import io.tidemark.model.report.IngestErrorCode;
import io.tidemark.model.report.IngestRunReport;
import io.tidemark.model.report.IngestStatus;
import io.tidemark.model.report.ReconciliationStatus;
import java.io.IOException;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.util.SnapshotUtil;

/**
 * What a run does first when a failed audit left a batch held on the curated table (see {@link
 * HeldBranches}): refuse to run (the default), discard the held batch and ingest as usual, or retry
 * its audit and publish it on PASSED. Nothing else may reach {@code main} while a batch is held:
 * its files would be ingested twice, or the held batch left behind for good.
 */
final class HeldBatches {
  private final RunContext run;
  private final Lease lease;

  HeldBatches(RunContext run, Lease lease) {
    this.run = run;
    this.lease = lease;
  }

  /**
   * Settles the held batches, if any.
   *
   * @return the run's end when it retried a held batch; empty when the run goes on as usual
   * @throws IngestException HELD_BATCH when a batch is held and the run was not told what to do
   */
  Optional<Ending> settle() {
    Table table = run.tables().loadCurated();
    if (table == null) {
      return Optional.empty();
    }
    List<String> held = new ArrayList<>(HeldBranches.of(table));
    // A held branch main already holds was published (a retry that could not drop it after):
    // it holds nothing back, so it is dropped, not refused.
    List<String> published = published(table, held);
    if (!published.isEmpty()) {
      lease.confirm();
      HeldBranches.drop(run.tables()::loadCurated, published);
      held.removeAll(published);
      String note =
          "Dropped held branch(es) "
              + String.join(", ", published)
              + ": main already holds them, they were published";
      RunLog.LOG.warn("Run {}: {}", run.start().runId(), note);
      run.trail().warn(note);
      table = run.tables().loadCurated();
    }
    if (held.isEmpty()) {
      return Optional.empty();
    }
    VerifiedPublish publish = run.settings().publish();
    return switch (publish.onHeld()) {
      case REFUSE ->
          throw new IngestException(
              IngestErrorCode.HELD_BATCH,
              "Cannot ingest into "
                  + run.settings().curatedSparkName()
                  + ": a failed audit holds "
                  + describe(table, held)
                  + ". Inspect it, then rerun with --held-batch retry (audit it again and publish"
                  + " it if it passes) or --held-batch discard (drop it; the run then ingests its"
                  + " files again)");
      case DISCARD -> {
        lease.confirm();
        HeldBranches.drop(run.tables()::loadCurated, held);
        String note =
            "Discarded "
                + describe(table, held)
                + ", held after a failed audit; its files are ingested again";
        RunLog.LOG.warn("Run {}: {}", run.start().runId(), note);
        run.trail().warn(note);
        yield Optional.empty();
      }
      case RETRY -> Optional.of(retry(table, held));
    };
  }

  /** Audits the held batch again; publishes it on PASSED, keeps it held otherwise. */
  private Ending retry(Table table, List<String> held) {
    if (held.size() > 1) {
      throw new IngestException(
          IngestErrorCode.HELD_BATCH,
          "Cannot retry: failed audits hold "
              + describe(table, held)
              + "; retry one at a time: discard the others first (--held-batch discard drops"
              + " them all)");
    }
    String branch = held.get(0);
    long head = HeldBranches.head(table, branch);
    // The batch's commit: the head, or an ancestor when someone committed to the branch after it
    // (a repair); those commits are published with it, and the reconciler names them as foreign.
    Snapshot batchCommit = batchCommit(table, head);
    int after = commitsAfter(table, head, batchCommit);
    if (batchCommit == null) {
      throw new IngestException(
          IngestErrorCode.HELD_BATCH,
          "Cannot retry held branch "
              + branch
              + ": no commit between main and its head, snapshot "
              + head
              + ", carries a batch; discard it");
    }
    Map<String, String> summary = batchCommit.summary();
    String batchId = summary.get(CheckpointCodec.BATCH_ID);
    String heldRun = summary.getOrDefault(CheckpointCodec.RUN_ID, "?");
    Optional<IngestRunReport> original = originalReport(summary, heldRun);
    run.trail()
        .reached(
            new RunTrail.BatchIdentity(
                batchId,
                original.map(IngestRunReport::inputFiles).orElse(List.of()),
                original.map(IngestRunReport::partitionsRead).orElse(List.of())));
    BatchAudit before = original.map(IngestRunReport::audit).orElse(null);
    Instant rawArrivedBy = before == null ? Instant.now() : before.rawArrivedBy();
    Instant now = before == null ? run.settings().clock().instant() : before.now();
    List<String> warnings = new ArrayList<>();
    if (after > 0) {
      warnings.add(
          after
              + " commit(s) made on branch "
              + branch
              + " after batch "
              + batchId
              + " are published with it");
    }
    if (before == null) {
      warnings.add(
          "The report of run "
              + heldRun
              + ", which held batch "
              + batchId
              + ", was not found: the audit read raw as of now");
    }
    AuditRequest request =
        new AuditRequest(run.start().runId(), batchId, branch, head, rawArrivedBy, now);
    RunLog.LOG.info(
        "Run {}: retrying the audit of held batch {} of run {} on branch {} (snapshot {})",
        run.start().runId(),
        batchId,
        heldRun,
        branch,
        head);
    BatchAudit audit =
        BranchAuditing.ask(run.settings().publish(), run.settings().dataset().name(), request);
    run.trail().audited(audit);
    if (audit.status() == ReconciliationStatus.FAILED) {
      throw new AuditException(
          IngestErrorCode.AUDIT_FAILED,
          "Held batch "
              + batchId
              + " failed its audit "
              + audit.reconciliationId()
              + " again: "
              + audit.describeFailures()
              + "; it stays held on branch "
              + branch
              + " and nothing was published",
          audit,
          null);
    }
    if (audit.status() != ReconciliationStatus.PASSED) {
      throw BranchAuditing.noVerdict(batchId, run.settings().curatedSparkName(), audit);
    }
    lease.confirm();
    try {
      // The audited head, not a repair committed to the branch while the audit ran.
      RunBranches.fastForwardMain(run.tables()::loadCurated, branch, head);
    } catch (RunBranches.BranchMovedException e) {
      throw new IngestException(
          IngestErrorCode.AUDIT_UNAVAILABLE,
          "Cannot publish held batch "
              + batchId
              + ": "
              + e.getMessage()
              + "; it stays held: retry again to audit its new head",
          e);
    } catch (IllegalArgumentException e) {
      throw new IngestException(
          IngestErrorCode.CONCURRENT_COMMIT,
          "Cannot publish held batch "
              + batchId
              + ": main is no longer the snapshot the batch was planned on (something else"
              + " committed to "
              + run.settings().curatedSparkName()
              + "); discard it so that its files are ingested again",
          e);
    }
    run.trail().landed();
    try {
      HeldBranches.drop(run.tables()::loadCurated, List.of(branch));
    } catch (RuntimeException e) {
      warnings.add("Published, but cannot drop branch " + branch + ": " + e.getMessage());
    }
    run.trail().watermarkAfter(summary.get(CheckpointCodec.WATERMARK));
    warnings.add(
        "Published held batch "
            + batchId
            + " of run "
            + heldRun
            + " after audit "
            + audit.reconciliationId()
            + " passed");
    RunLog.LOG.info(
        "Run {}: published held batch {} as snapshot {} of {}",
        run.start().runId(),
        batchId,
        head,
        run.settings().curatedSparkName());
    IngestCounts counts =
        summary.get(CheckpointCodec.COUNTS) == null
            ? null
            : Json.read(summary.get(CheckpointCodec.COUNTS), IngestCounts.class);
    return new Ending(IngestStatus.SUCCEEDED, head, counts, warnings);
  }

  /** The report of the run that held the batch, found by the day its commit says it started. */
  private Optional<IngestRunReport> originalReport(Map<String, String> summary, String runId) {
    String started = summary.get(CheckpointCodec.RUN_STARTED_AT);
    if (started == null) {
      return Optional.empty();
    }
    LocalDate day = LocalDate.ofInstant(Instant.parse(started), ZoneOffset.UTC);
    try {
      return RunReports.read(
          run.settings(), day, runId, run.spark().sparkContext().hadoopConfiguration());
    } catch (IOException | RuntimeException e) {
      RunLog.LOG.warn("Cannot read the report of run {}: {}", runId, e.toString());
      return Optional.empty();
    }
  }

  /** The held branches whose head is main's head or one of its ancestors. */
  private static List<String> published(Table table, List<String> held) {
    if (table.currentSnapshot() == null) {
      return List.of();
    }
    long main = table.currentSnapshot().snapshotId();
    List<String> out = new ArrayList<>();
    for (String b : held) {
      long head = HeldBranches.head(table, b);
      if (head == main || SnapshotUtil.isAncestorOf(table, main, head)) {
        out.add(b);
      }
    }
    return out;
  }

  /**
   * The commit of the held batch: the branch's head or its latest ancestor that carries a batch,
   * above main's head; null when none does.
   */
  private static Snapshot batchCommit(Table table, long head) {
    long mainHead = table.currentSnapshot() == null ? -1 : table.currentSnapshot().snapshotId();
    for (Snapshot s : SnapshotUtil.ancestorsOf(head, table::snapshot)) {
      if (s.snapshotId() == mainHead) {
        return null;
      }
      if (s.summary() != null && s.summary().containsKey(CheckpointCodec.BATCH_ID)) {
        return s;
      }
    }
    return null;
  }

  /** How many commits the branch has after the batch's. */
  private static int commitsAfter(Table table, long head, Snapshot batchCommit) {
    int n = 0;
    for (Snapshot s : SnapshotUtil.ancestorsOf(head, table::snapshot)) {
      if (batchCommit == null || s.snapshotId() == batchCommit.snapshotId()) {
        break;
      }
      n++;
    }
    return n;
  }

  /** The held batches, each with its batch, run, branch and snapshot. */
  private static String describe(Table table, List<String> held) {
    List<String> parts = new ArrayList<>();
    for (String b : held) {
      long head = HeldBranches.head(table, b);
      Snapshot s = batchCommit(table, head);
      Map<String, String> summary = s == null ? Map.of() : s.summary();
      parts.add(
          "batch "
              + summary.getOrDefault(CheckpointCodec.BATCH_ID, "?")
              + " of run "
              + summary.getOrDefault(CheckpointCodec.RUN_ID, "?")
              + " on branch "
              + b
              + " (snapshot "
              + head
              + ")");
    }
    return String.join("; ", parts);
  }
}
