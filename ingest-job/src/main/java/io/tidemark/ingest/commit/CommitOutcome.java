package io.tidemark.ingest.commit;

import java.util.Objects;

/** How committing a batch ended, when it did not fail outright. */
public sealed interface CommitOutcome {
  /** The batch's data and checkpoint are published on main, in this snapshot. */
  /**
   * @param audit the audit that let the batch be published (verified publish); null without one
   */
  record Committed(long snapshotId, io.tidemark.model.report.BatchAudit audit)
      implements CommitOutcome {}

  /** Another run committed this very batch first: nothing more to do. */
  record AlreadyCommitted(long snapshotId) implements CommitOutcome {}

  /**
   * Another run committed to one of the tables first; nothing of this batch reached main.
   *
   * @param table the table that moved
   * @param from its snapshot when this run planned its write; -1 when it had none
   * @param to its snapshot after this run's write was refused
   * @param cause Iceberg's refusal, when there was one
   */
  record Conflict(String table, long from, long to, Throwable cause) implements CommitOutcome {
    public Conflict {
      Objects.requireNonNull(table, "table is null");
    }

    /** What moved, e.g. {@code cat.db.t moved from snapshot 1 to 2}. */
    public String describe() {
      return from == to
          ? table + " refused the commit at snapshot " + name(from)
          : table + " moved from snapshot " + name(from) + " to " + name(to);
    }

    private static String name(long id) {
      return id < 0 ? "none" : Long.toString(id);
    }
  }
}
