package io.tidemark.reconcile.rules;

import io.tidemark.model.report.IngestRunReport;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Columns raw files carry that the dataset's contract does not declare: the ingest job reads only
 * declared columns, so such a column reaches no table, and each run that met one names it in its
 * report ({@code undeclaredColumns}). A WINDOW reconciliation looks at the runs that finished in
 * its window; a FULL one at those and at the latest run that read files, whose report says what the
 * raw layer looks like against the contract as it now stands (declaring the column clears it).
 */
public final class SchemaDrift {
  private SchemaDrift() {}

  /**
   * The outcome.
   *
   * @param columns each undeclared column, as the reports name it ({@code col (in N file(s))}),
   *     with the run that reported it: {@code <column entry> in run <id>}
   * @param distinct how many distinct column names
   */
  public record Outcome(List<String> columns, int distinct) {
    public Outcome {
      columns = List.copyOf(columns);
    }
  }

  /**
   * @param reports every run report of the dataset
   * @param from the window start, exclusive; null for FULL
   * @param to the window end, inclusive
   */
  public static Outcome check(List<IngestRunReport> reports, Instant from, Instant to) {
    Map<String, String> byColumn = new TreeMap<>();
    IngestRunReport latestReading =
        reports.stream()
            .filter(r -> !r.finishedAt().isAfter(to) && !r.inputFiles().isEmpty())
            .max(Comparator.comparing(IngestRunReport::finishedAt))
            .orElse(null);
    for (IngestRunReport r : reports) {
      boolean inWindow =
          !r.finishedAt().isAfter(to) && (from == null || r.finishedAt().isAfter(from));
      boolean counts = from == null ? r == latestReading : inWindow;
      if (counts) {
        for (String c : r.undeclaredColumns()) {
          byColumn.putIfAbsent(name(c), c + " in run " + r.runId());
        }
      }
    }
    return new Outcome(List.copyOf(byColumn.values()), byColumn.size());
  }

  /** The column's name of a report's entry {@code col (in N file(s))}. */
  private static String name(String entry) {
    int space = entry.indexOf(' ');
    return space < 0 ? entry : entry.substring(0, space);
  }
}
