package io.tidemark.model.report;

/**
 * Every way an ingest run can fail, each with a stable code (written into the run report) and a
 * type. The type, not the individual code, decides the process exit code.
 */
public enum IngestErrorCode {
  /** A flag, config-file key or value is wrong; the message names it and its value. */
  INVALID_CONFIG(Type.USER),
  /** The raw root does not exist or is not a folder. */
  RAW_ROOT_NOT_FOUND(Type.USER),
  /** The curated table exists but does not have the contract's columns. */
  TABLE_MISMATCH(Type.USER),
  /**
   * The curated table has data but no Tidemark checkpoint in its retained history (its snapshots
   * were expired, or the table was written by something else); only a full refresh can go on.
   */
  CHECKPOINT_NOT_FOUND(Type.USER),
  /** The batch broke the validation policy (invalid ratio above the limit); nothing committed. */
  BATCH_REJECTED(Type.REJECTED),
  /** Another run committed to the table after this run planned its batch; nothing committed. */
  CONCURRENT_COMMIT(Type.EXTERNAL),
  /** The catalog could not tell whether the commit landed; a rerun finds out from the batch id. */
  COMMIT_STATE_UNKNOWN(Type.EXTERNAL),
  /**
   * The run lost its lease on the table before it committed (the lease lapsed without renewal or
   * another run took it over); nothing committed, a rerun is safe.
   */
  LEASE_LOST(Type.EXTERNAL),
  /**
   * The run was stopped by SIGTERM (an operator's stop, a scheduler's timeout) before its batch was
   * published; nothing committed, a rerun is safe.
   */
  STOPPED_BY_SIGTERM(Type.STOPPED),
  /**
   * With verified publish, the reconciler's audit of the run's branch failed a rule: nothing was
   * published to main, and the branch is held for inspection until a run retries or discards it.
   */
  AUDIT_FAILED(Type.AUDIT),
  /**
   * With verified publish, the audit of the run's branch could not give a verdict (the reconciler
   * unreachable, refusing the request, or its checks erring); nothing was published, a rerun is
   * safe.
   */
  AUDIT_UNAVAILABLE(Type.EXTERNAL),
  /**
   * A batch held by a failed audit waits on the table; the run does nothing until it is told to
   * retry the audit or discard the batch.
   */
  HELD_BATCH(Type.USER),
  /** Listing or reading raw files, or reading the tables, failed. */
  IO_FAILED(Type.EXTERNAL),
  /** Anything else: a bug or an unexpected failure of Spark or Iceberg. */
  INTERNAL_ERROR(Type.INTERNAL);

  /** Who has to act, which decides the exit code. */
  public enum Type {
    /** Bad usage or configuration: exit code 2. */
    USER(2),
    /** The batch was rejected by the validation policy: exit code 4. */
    REJECTED(4),
    /** A dependency failed or raced us; a rerun is safe: exit code 1. */
    EXTERNAL(1),
    /** Anything else: exit code 1. */
    INTERNAL(1),
    /** The run's batch failed its audit and is held, unpublished: exit code 5. */
    AUDIT(5),
    /** Stopped by SIGTERM: exit code 143 (128 + 15), as a shell reports a process it ended. */
    STOPPED(143);

    private final int exitCode;

    Type(int exitCode) {
      this.exitCode = exitCode;
    }

    public int exitCode() {
      return exitCode;
    }
  }

  private final Type type;

  IngestErrorCode(Type type) {
    this.type = type;
  }

  public Type type() {
    return type;
  }

  public int exitCode() {
    return type.exitCode();
  }
}
