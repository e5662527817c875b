package io.tidemark.ingest.cli;

import io.tidemark.ingest.run.IngestOutcome;
import io.tidemark.model.report.IngestMode;
import io.tidemark.model.report.IngestRunReport;
import java.io.PrintWriter;
import java.util.Locale;

/** What the command prints when a run ends: one line of counts, and what the mode adds. */
final class RunSummary {
  private RunSummary() {}

  static void print(IngestOutcome outcome, PrintWriter out, PrintWriter err) {
    IngestRunReport r = outcome.report();
    if (r.mode() == IngestMode.MAINTAIN) {
      // No batch, no records, no watermark: what it did to each table is the summary.
      out.printf(
          Locale.ROOT,
          "%s run %s %s: %d table(s); report %s%n",
          r.status(),
          r.runId(),
          r.mode().cliName(),
          r.maintenance().size(),
          outcome.reportLocation());
      r.maintenance().forEach(m -> out.println("  " + m.describe()));
      r.warnings().forEach(w -> out.println("  " + w));
      printError(r, out, err);
      return;
    }
    var c = r.counts();
    out.printf(
        Locale.ROOT,
        "%s run %s batch %s: files new %d, skipped %d, quarantined %d; records read %d, inserted %d,"
            + " updated %d, deleted %d, unchanged %d, invalid %d, superseded %d; watermark %s -> %s;"
            + " report %s%n",
        r.status(),
        r.runId(),
        r.batchId(),
        c.filesNew(),
        c.filesSkipped(),
        c.filesQuarantined(),
        c.recordsRead(),
        c.recordsInserted(),
        c.recordsUpdated(),
        c.recordsDeleted(),
        c.recordsUnchanged(),
        c.recordsInvalid(),
        c.recordsSuperseded(),
        r.watermarkBefore(),
        r.watermarkAfter(),
        outcome.reportLocation());
    if (!r.undeclaredColumns().isEmpty()) {
      // Never silently green: data of these columns reached no table.
      out.printf(
          Locale.ROOT,
          "  column(s) the contract does not declare, which reach no table: %s (declare them in"
              + " the contract, or have the producer stop sending them)%n",
          String.join(", ", r.undeclaredColumns()));
    }
    if (r.mode() == IngestMode.BACKFILL || r.mode() == IngestMode.SWEEP) {
      out.printf(
          Locale.ROOT,
          "  %s read %d partition(s)%s%s%n",
          r.mode().cliName(),
          r.partitionsRead().size(),
          r.partitionsRead().isEmpty()
              ? ""
              : " ("
                  + r.partitionsRead().get(0)
                  + " to "
                  + r.partitionsRead().get(r.partitionsRead().size() - 1)
                  + ")",
          r.filesMissedByLookback() == null
              ? ""
              : "; files the lookback missed: " + r.filesMissedByLookback());
    }
    if (r.mode() == IngestMode.REPLAY_QUARANTINE) {
      // What a replay selected, left and (in a dry run) would do is in its warnings.
      r.warnings().forEach(w -> out.println("  " + w));
    }
    printError(r, out, err);
  }

  private static void printError(IngestRunReport r, PrintWriter out, PrintWriter err) {
    out.flush();
    if (r.error() != null) {
      err.println("[" + r.errorCode() + "] " + r.error());
      err.flush();
    }
  }
}
