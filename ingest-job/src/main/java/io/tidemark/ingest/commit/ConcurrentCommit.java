package io.tidemark.ingest.commit;

/** Carries a {@link CommitOutcome.Conflict} out of the writes that found it. */
final class ConcurrentCommit extends RuntimeException {
  private final transient CommitOutcome.Conflict conflict;

  ConcurrentCommit(CommitOutcome.Conflict conflict) {
    super(conflict.describe(), conflict.cause());
    this.conflict = conflict;
  }

  CommitOutcome.Conflict conflict() {
    return conflict;
  }
}
