package io.tidemark.reconcile.rules;

import io.tidemark.reconcile.storage.IcebergTables.ForeignCommit;
import java.time.Instant;
import java.util.List;

/**
 * Commits on the curated table's main history that no Tidemark run made: someone's UPDATE or
 * DELETE, another engine's write, a repair done by hand. The job tags each of its commits with its
 * run id; a commit without one changed curated behind the pipeline's back, whatever it changed, and
 * is named with what its snapshot says of it (operation, writer, rows). Compactions ({@code
 * replace}) change no row and are left alone, as are commits that add or remove no file.
 *
 * <p>A WINDOW reconciliation looks at the commits made in its window, so a foreign DELETE of a row
 * that did not change in the window is still found; a FULL one at main's whole retained history (a
 * foreign commit keeps failing FULL runs until it leaves the history: a rollback past it, a full
 * refresh and the expiry of its snapshot, or a threshold that accepts it).
 */
public final class ForeignCommits {
  private ForeignCommits() {}

  /**
   * The outcome.
   *
   * @param commits the foreign commits in scope, oldest first, described
   * @param count how many
   */
  public record Outcome(List<String> commits, int count) {
    public Outcome {
      commits = List.copyOf(commits);
    }
  }

  /**
   * @param foreign main's foreign commits, oldest first
   * @param from the window start, exclusive; null for FULL
   * @param to the window end, inclusive
   */
  public static Outcome check(List<ForeignCommit> foreign, Instant from, Instant to) {
    List<String> inScope =
        foreign.stream()
            .filter(c -> !c.at().isAfter(to) && (from == null || c.at().isAfter(from)))
            .map(ForeignCommit::toString)
            .toList();
    return new Outcome(inScope, inScope.size());
  }
}
