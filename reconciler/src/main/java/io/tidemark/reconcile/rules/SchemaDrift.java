package io.tidemark.reconcile.rules;

import io.tidemark.model.contract.ReasonCode;
import io.tidemark.model.report.IngestRunReport;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Raw files whose columns differ from the dataset's contract, as the ingest job's runs found them.
 *
 * <ul>
 *   <li>Columns raw files carry that the contract does not declare: the job reads only declared
 *       columns, so such a column reaches no table, and each run that met one names it in its
 *       report ({@code undeclaredColumns}).
 *   <li>Files the job quarantined whole because a declared column is missing, repeated or of a type
 *       that cannot hold the declared one ({@code quarantinedFiles} with {@code MISSING_COLUMN},
 *       {@code DUPLICATE_COLUMN} or {@code INCOMPATIBLE_TYPE}): their rows reach no table, and
 *       every other rule leaves them out as the job did, so without this the reconciliation would
 *       pass while a renamed column sends a whole export to quarantine.
 * </ul>
 *
 * A WINDOW reconciliation looks at the runs that finished in its window; a FULL one at the latest
 * run that read files, whose report says what the raw layer looks like against the contract as it
 * now stands (declaring the column, or fixing the producer, clears it).
 */
public final class SchemaDrift {
  private SchemaDrift() {}

  /**
   * The outcome.
   *
   * @param columns each undeclared column, as the reports name it ({@code col (in N file(s))}),
   *     with the run that reported it: {@code <column entry> in run <id>}
   * @param distinct how many distinct column names
   * @param files each file quarantined whole for its columns, as the report names it ({@code path:
   *     REASON (detail)}), with the run: {@code <file entry> in run <id>}
   */
  public record Outcome(List<String> columns, int distinct, List<String> files) {
    public Outcome {
      columns = List.copyOf(columns);
      files = List.copyOf(files);
    }

    /** The rule's observed value: distinct undeclared columns plus files quarantined. */
    public int observed() {
      return distinct + files.size();
    }
  }

  /** The whole-file reasons that are schema drift (an unreadable file is not). */
  private static final List<ReasonCode> DRIFT =
      List.of(ReasonCode.MISSING_COLUMN, ReasonCode.DUPLICATE_COLUMN, ReasonCode.INCOMPATIBLE_TYPE);

  /**
   * @param reports every run report of the dataset
   * @param from the window start, exclusive; null for FULL
   * @param to the window end, inclusive
   */
  public static Outcome check(List<IngestRunReport> reports, Instant from, Instant to) {
    Map<String, String> byColumn = new TreeMap<>();
    Map<String, String> byFile = new TreeMap<>();
    // The latest run that read files; runs that ended at the same instant all count.
    Instant latestReading =
        reports.stream()
            .filter(r -> !r.finishedAt().isAfter(to) && !r.inputFiles().isEmpty())
            .map(IngestRunReport::finishedAt)
            .max(Comparator.naturalOrder())
            .orElse(null);
    for (IngestRunReport r : reports) {
      boolean inWindow =
          !r.finishedAt().isAfter(to) && (from == null || r.finishedAt().isAfter(from));
      boolean counts =
          from == null
              ? !r.inputFiles().isEmpty() && r.finishedAt().equals(latestReading)
              : inWindow;
      if (counts) {
        for (String c : r.undeclaredColumns()) {
          byColumn.putIfAbsent(name(c), c + " in run " + r.runId());
        }
        for (String f : r.quarantinedFiles()) {
          String file = driftedFile(f);
          if (file != null) {
            byFile.putIfAbsent(file, f + " in run " + r.runId());
          }
        }
      }
    }
    return new Outcome(
        List.copyOf(byColumn.values()), byColumn.size(), List.copyOf(byFile.values()));
  }

  /**
   * The file of a report's {@code path: REASON (detail)} entry when its reason is schema drift;
   * null otherwise.
   */
  private static String driftedFile(String entry) {
    for (ReasonCode code : DRIFT) {
      int at = entry.lastIndexOf(": " + code.name());
      if (at > 0) {
        return entry.substring(0, at);
      }
    }
    return null;
  }

  /** The column's name of a report's entry {@code col (in N file(s))}. */
  private static String name(String entry) {
    int space = entry.indexOf(' ');
    return space < 0 ? entry : entry.substring(0, space);
  }
}
