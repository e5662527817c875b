package io.tidemark.e2e;

import io.tidemark.model.report.IngestCounts;
import io.tidemark.model.report.IngestRunReport;
import io.tidemark.model.report.RuleResult;

/** One-line summaries a person can follow. */
public final class Summaries {
  private Summaries() {}

  public static String ingest(IngestRunReport r) {
    IngestCounts c = r.counts();
    return String.format(
        "%-17s files %d new/%d skipped  changed %,d  invalid %d  superseded %d  written %,d"
            + " (+%,d ~%,d -%,d =%,d)  late %d  watermark %s -> %s  %.1fs",
        r.status(),
        c.filesNew(),
        c.filesSkipped(),
        c.recordsChanged(),
        c.recordsInvalid(),
        c.recordsSuperseded(),
        c.recordsWritten(),
        c.recordsInserted(),
        c.recordsUpdated(),
        c.recordsDeleted(),
        c.recordsUnchanged() + c.deletesOfUnknownKeys(),
        c.recordsLate(),
        shortMark(r.watermarkBefore()),
        shortMark(r.watermarkAfter()),
        r.duration().toMillis() / 1000.0);
  }

  public static String rule(RuleResult r) {
    // The samples of a rule that does not sample keys (runs, files, columns, commits) are named
    // in its reason already.
    String sample =
        r.sampleKeys().isEmpty() || !r.kind().samplesKeys() ? "" : "  sample " + r.sampleKeys();
    return String.format(
        "%-5s %-17s observed %-10s threshold %-8s%s%s",
        r.status(),
        r.ruleId(),
        r.observed() == null ? "-" : trim(r.observed()),
        trim(r.threshold()),
        r.reason() == null || r.status() == io.tidemark.model.report.RuleStatus.PASS
            ? ""
            : "  " + r.reason(),
        sample);
  }

  private static String trim(double d) {
    return d == Math.rint(d) ? String.format("%,d", (long) d) : String.format("%.4f", d);
  }

  private static String shortMark(String watermark) {
    if (watermark == null) {
      return "(none)";
    }
    return watermark.length() > 19 ? watermark.substring(0, 19) + "Z" : watermark;
  }
}
