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

  /**
   * A failing key rule's difference as a person reads it: per compared column how many keys differ,
   * then each sample key's raw version beside its curated row, differing columns starred. Files are
   * shown by name.
   */
  public static java.util.List<String> diff(RuleResult r) {
    java.util.List<String> out = new java.util.ArrayList<>();
    io.tidemark.model.report.ValueDiff d = r.diff();
    if (d == null) {
      return out;
    }
    StringBuilder head = new StringBuilder("the difference of " + r.ruleId());
    if (!d.differingKeys().isEmpty()) {
      head.append(" (keys differing per column, of ").append(d.keys()).append(":");
      d.differingKeys().forEach((c, n) -> head.append(' ').append(c).append(' ').append(n));
      head.append(")");
    }
    out.add(head.append(':').toString());
    for (var k : d.samples()) {
      var raw = k.raw();
      var cur = k.curated();
      out.add(row("  " + k.key(), "raw (latest valid version)", "curated"));
      out.add(
          row(
              "  file",
              raw == null
                  ? "-"
                  : fileName(raw.file()) + (raw.position() == null ? "" : " #" + raw.position()),
              cur == null ? "-" : fileName(cur.dataFile())));
      out.add(
          row(
              "  marker",
              raw == null ? "-" : raw.changeMarker(),
              cur == null ? "-" : cur.changeMarker()));
      out.add(
          row(
              "  written by",
              raw == null ? "no valid version" : raw.delete() ? "a delete" : "an upsert",
              cur == null ? "no row" : blame(cur)));
      java.util.Set<String> columns = new java.util.LinkedHashSet<>();
      if (raw != null) {
        columns.addAll(raw.values().keySet());
      }
      if (cur != null) {
        columns.addAll(cur.values().keySet());
      }
      for (String c : columns) {
        out.add(
            row(
                (k.differingColumns().contains(c) ? "* " : "  ") + c,
                raw == null ? "-" : String.valueOf(raw.values().get(c)),
                cur == null ? "-" : String.valueOf(cur.values().get(c))));
      }
    }
    return out;
  }

  private static String row(String label, String raw, String curated) {
    return String.format("%-16s %-40s %s", label, raw, curated);
  }

  private static String fileName(String path) {
    return path.substring(path.lastIndexOf('/') + 1);
  }

  private static String blame(io.tidemark.model.report.ValueDiff.CuratedRow c) {
    if (c.snapshotId() == null) {
      return "a snapshot no longer in the history";
    }
    return "snapshot "
        + c.snapshotId()
        + ": "
        + (c.runId() != null
            ? "run " + c.runId()
            : "not a Tidemark run (" + c.operation() + " by " + c.engine() + ")");
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
