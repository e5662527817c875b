package io.tidemark.ingest.commit;

import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.apache.iceberg.SnapshotRef;
import org.apache.iceberg.Table;

/**
 * Branches that hold a batch whose audit failed (verified publish): a run's branch renamed {@code
 * tidemark_held_<run start>_<run id>} so that no run takes it for a crashed run's leftover and
 * drops it. A held branch stays until a run retries its audit (and publishes it on PASSED) or
 * discards it; meanwhile every run refuses to ingest.
 */
public final class HeldBranches {
  /** The prefix of every held branch. */
  public static final String PREFIX = "tidemark_held_";

  private HeldBranches() {}

  /** The held branch a run branch becomes. */
  public static String heldName(String runBranch) {
    if (!runBranch.startsWith(RunBranches.PREFIX)) {
      throw new IllegalArgumentException("Cannot hold branch " + runBranch + ": not a run branch");
    }
    return PREFIX + runBranch.substring(RunBranches.PREFIX.length());
  }

  /** The held branches of the table, by name. */
  public static List<String> of(Table table) {
    return table.refs().entrySet().stream()
        .filter(e -> e.getValue().isBranch() && e.getKey().startsWith(PREFIX))
        .map(Map.Entry::getKey)
        .sorted()
        .toList();
  }

  /** The head of a branch. */
  public static long head(Table table, String branch) {
    SnapshotRef ref = table.refs().get(branch);
    if (ref == null || !ref.isBranch()) {
      throw new IllegalStateException(
          "Cannot find branch " + branch + " of " + table.name() + ": it does not exist");
    }
    return ref.snapshotId();
  }

  /**
   * Renames the run branch to its held name, in one metadata commit.
   *
   * @return the held branch's name
   */
  public static String hold(Supplier<Table> table, String runBranch) {
    String held = heldName(runBranch);
    RunBranches.update(
        table,
        (t, m) -> {
          m.renameBranch(runBranch, held);
          return true;
        });
    return held;
  }

  /** Drops held branches that still exist, in one metadata commit. */
  public static void drop(Supplier<Table> table, List<String> branches) {
    RunBranches.drop(table, branches, PREFIX, "a held branch");
  }
}
