package io.tidemark.ingest.commit;

import io.tidemark.ingest.checkpoint.CheckpointCodec;
import io.tidemark.ingest.checkpoint.CheckpointLog;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.iceberg.ManageSnapshots;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotRef;
import org.apache.iceberg.Table;
import org.apache.iceberg.exceptions.CommitFailedException;

/**
 * The private branch a run commits its batch to before publishing it to {@code main}.
 *
 * <p>A run creates its branch at the snapshot it planned and counted against, commits the MERGE to
 * the branch, then fast-forwards {@code main} to the branch. Iceberg's fast-forward refuses, in the
 * same atomic metadata swap that would publish, unless {@code main}'s head is an ancestor of the
 * branch's head: so a batch is published only if nothing else reached {@code main} since the run
 * planned it. Checkpoints are read from {@code main}'s ancestry only, so a commit left on a branch
 * (a run that crashed or lost the race) is never mistaken for one.
 *
 * <p>Branch names are {@code tidemark_run_<run start, epoch millis>_<run id>}, so that a later run
 * can tell a crashed run's leftover branch from a live one by its age.
 */
public final class RunBranches {
  /**
   * The prefix of every run branch; no other branch is ever touched (the one tag the job moves is
   * {@link CheckpointLog#TAG}).
   */
  public static final String PREFIX = "tidemark_run_";

  /**
   * A run holds its branch from its commit step to its end, minutes at most; a run branch created
   * this long before a run started was left by a run that crashed, and that run drops it.
   */
  public static final Duration STALE_AFTER = Duration.ofHours(12);

  /** How often a ref change is tried when other commits keep changing the table's metadata. */
  private static final int ATTEMPTS = 10;

  private static final Pattern NAME = Pattern.compile(PREFIX + "(\\d{1,19})_[a-z0-9_]+");

  private RunBranches() {}

  /** The branch of the run with this id, started at this instant. */
  public static String name(String runId, Instant startedAt) {
    Objects.requireNonNull(runId, "runId is null");
    return PREFIX
        + startedAt.toEpochMilli()
        + "_"
        + runId.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]", "_");
  }

  /** When the run that owns this branch started; empty for a ref that is not a run branch. */
  static Optional<Instant> startedAt(String ref) {
    Matcher m = NAME.matcher(ref);
    if (!m.matches()) {
      return Optional.empty();
    }
    try {
      return Optional.of(Instant.ofEpochMilli(Long.parseLong(m.group(1))));
    } catch (NumberFormatException e) {
      return Optional.empty();
    }
  }

  /** The run branches created more than {@link #STALE_AFTER} before {@code now}. */
  public static List<String> stale(Map<String, SnapshotRef> refs, Instant now) {
    Instant cutoff = now.minus(STALE_AFTER);
    List<String> out = new ArrayList<>();
    refs.forEach(
        (name, ref) -> {
          if (ref.isBranch() && startedAt(name).map(t -> t.isBefore(cutoff)).orElse(false)) {
            out.add(name);
          }
        });
    out.sort(null);
    return out;
  }

  /** The Spark identifier that reads and writes the branch of a table. */
  public static String sparkName(String tableSparkName, String branch) {
    return tableSparkName + ".branch_" + branch;
  }

  /** Creates the branch at the snapshot. */
  public static void create(Supplier<Table> table, String branch, long snapshotId) {
    update(
        table,
        (t, m) -> {
          m.createBranch(branch, snapshotId);
          return true;
        });
  }

  /**
   * Moves {@code main} to the branch's head if {@code main}'s head is an ancestor of it; otherwise
   * throws and changes nothing. Iceberg checks the ancestry against the metadata it then swaps
   * atomically; when other metadata changes (another run's branch) win the swap, the check is made
   * again on the new metadata. With {@code head}, only while the branch is still at it: what was
   * audited is what is published, never a commit made to the branch meanwhile.
   *
   * @param head the snapshot the branch must be at; null: whatever it is at
   * @throws IllegalArgumentException when {@code main} is not an ancestor of the branch (another
   *     commit reached {@code main}) or either ref is missing
   * @throws BranchMovedException when the branch's head is not {@code head}
   */
  public static void fastForwardMain(Supplier<Table> table, String branch, Long head) {
    fastForwardMain(table, branch, head, false);
  }

  /**
   * {@link #fastForwardMain(Supplier, String, Long)}, and with {@code dropBranch} the branch
   * removed in the same metadata commit: a published run branch is done with, and one commit fewer
   * is one metadata file fewer for every run to write and every reader to skip.
   */
  public static void fastForwardMain(
      Supplier<Table> table, String branch, Long head, boolean dropBranch) {
    if (dropBranch && !branch.startsWith(PREFIX)) {
      throw new IllegalArgumentException("Cannot drop branch " + branch + ": not a run branch");
    }
    update(
        table,
        (t, m) -> {
          SnapshotRef ref = t.refs().get(branch);
          if (head != null && ref != null && ref.snapshotId() != head) {
            throw new BranchMovedException(branch, head, ref.snapshotId());
          }
          m.fastForwardBranch(SnapshotRef.MAIN_BRANCH, branch);
          tagCheckpoint(t, m, ref == null ? null : t.snapshot(ref.snapshotId()));
          if (dropBranch && ref != null) {
            m.removeBranch(branch);
          }
          return true;
        });
  }

  /**
   * Points {@link CheckpointLog#TAG} at the published head when it carries a checkpoint, in the
   * same metadata commit as the fast-forward, so the tag never names a checkpoint {@code main} does
   * not hold (a backfill's or a replay's commit carries none and leaves the tag where it is).
   */
  private static void tagCheckpoint(Table t, ManageSnapshots m, Snapshot head) {
    if (head == null || CheckpointCodec.decode(head.snapshotId(), head.summary()).isEmpty()) {
      return;
    }
    SnapshotRef tag = t.refs().get(CheckpointLog.TAG);
    if (tag == null) {
      m.createTag(CheckpointLog.TAG, head.snapshotId());
    } else if (tag.snapshotId() != head.snapshotId()) {
      m.replaceTag(CheckpointLog.TAG, head.snapshotId());
    }
  }

  /** A branch that moved after it was audited: nothing was published. */
  public static final class BranchMovedException extends IllegalStateException {
    BranchMovedException(String branch, long expected, long actual) {
      super(
          "branch "
              + branch
              + " moved from the audited snapshot "
              + expected
              + " to "
              + actual
              + " while it was audited; nothing was published");
    }
  }

  /** Drops the branches that still exist, in one metadata commit; a no-op when none does. */
  public static void drop(Supplier<Table> table, List<String> branches) {
    drop(table, branches, PREFIX, "a run branch");
  }

  /**
   * Removes the branches, each of which must start with {@code prefix} (Tidemark drops only its
   * own), in one commit; a branch already gone is no error.
   */
  static void drop(Supplier<Table> table, List<String> branches, String prefix, String what) {
    for (String b : branches) {
      if (!b.startsWith(prefix)) {
        throw new IllegalArgumentException("Cannot drop branch " + b + ": not " + what);
      }
    }
    update(
        table,
        (t, m) -> {
          boolean any = false;
          for (String b : branches) {
            if (t.refs().containsKey(b)) {
              m.removeBranch(b);
              any = true;
            }
          }
          return any;
        });
  }

  /**
   * Applies a ref change to freshly loaded metadata and commits it; again, from fresh metadata,
   * when another commit swapped the table's metadata first (Iceberg does not replay a ref change on
   * new metadata itself).
   */
  static void update(Supplier<Table> table, RefChange change) {
    for (int attempt = 1; ; attempt++) {
      Table t = table.get();
      ManageSnapshots m = t.manageSnapshots();
      if (!change.apply(t, m)) {
        return;
      }
      try {
        m.commit();
        return;
      } catch (CommitFailedException e) {
        if (attempt >= ATTEMPTS) {
          throw e;
        }
        try {
          Thread.sleep(ThreadLocalRandom.current().nextLong(20, 50L * attempt + 21));
        } catch (InterruptedException ie) {
          Thread.currentThread().interrupt();
          throw e;
        }
      }
    }
  }

  @FunctionalInterface
  interface RefChange {
    /** Stages the change on {@code m}; false when there is nothing to commit. */
    boolean apply(Table t, ManageSnapshots m);
  }
}
