package io.tidemark.reconcile.rules;

import io.tidemark.model.config.Aggregate;
import io.tidemark.model.config.ChangeMarkerType;
import io.tidemark.model.config.RuleSpec;
import io.tidemark.model.config.ToleranceMode;
import io.tidemark.model.contract.DatasetContract;
import io.tidemark.model.contract.RawLayout.StrayEntry;
import io.tidemark.model.report.RuleResult;
import io.tidemark.model.report.ValueDiff;
import io.tidemark.reconcile.engine.AggregateFinding;
import io.tidemark.reconcile.engine.ExcludedFile;
import io.tidemark.reconcile.engine.Finding;
import io.tidemark.reconcile.engine.Freshness;
import io.tidemark.reconcile.engine.Observations;
import java.util.ArrayList;
import java.util.List;

/**
 * Turns what an engine observed into one result per configured rule: observed value, threshold,
 * PASS / FAIL / ERROR with the reason, and a bounded sample of offending keys. Pure: no I/O.
 *
 * <p>Raw files the engine left out whole are named at the start of the {@code count_match} reason,
 * even on PASS (the only reason a PASS result carries): {@code N raw file(s) excluded, as the
 * ingest job quarantines them: file:<path> (<reason>: <detail>); ...}.
 */
public final class RuleEvaluator {
  private RuleEvaluator() {}

  /**
   * What the rules look at.
   *
   * @param observations the engine's measures; null when the engine failed
   * @param engineError why the engine failed; null when it did not
   * @param runs the run-accounting outcome; null when the run reports could not be read
   * @param runsError why the run reports could not be read
   * @param markerType how the dataset orders versions (freshness units)
   * @param unprocessed the raw files no committed batch read; null when they could not be listed
   * @param unprocessedError why they could not be listed
   * @param comparedColumns the columns value_mismatches compares: none makes it an ERROR, as a
   *     comparison of nothing finds no damage
   * @param drift the columns runs found undeclared; null when the run reports could not be read
   * @param foreign the commits no Tidemark run made; null when the table's history could not be
   *     read
   * @param foreignError why the table's history could not be read
   * @param contract the dataset's contract: what each {@code aggregate_match} rule computes of its
   *     columns; null when no rule matches aggregates
   */
  public record Inputs(
      Observations observations,
      String engineError,
      RunAccounting.Outcome runs,
      String runsError,
      ChangeMarkerType markerType,
      UnprocessedFiles.Outcome unprocessed,
      String unprocessedError,
      List<String> comparedColumns,
      SchemaDrift.Outcome drift,
      ForeignCommits.Outcome foreign,
      String foreignError,
      DatasetContract contract) {
    public Inputs {
      comparedColumns = comparedColumns == null ? List.of() : List.copyOf(comparedColumns);
    }
  }

  public static List<RuleResult> evaluate(List<RuleSpec> rules, Inputs in) {
    List<RuleResult> results = new ArrayList<>();
    for (RuleSpec rule : rules) {
      results.add(evaluate(rule, in));
    }
    return results;
  }

  static RuleResult evaluate(RuleSpec rule, Inputs in) {
    if (rule.kind() == io.tidemark.model.config.RuleKind.RUN_ACCOUNTING) {
      return runAccounting(rule, in);
    }
    if (rule.kind() == io.tidemark.model.config.RuleKind.UNPROCESSED_FILES) {
      return unprocessedFiles(rule, in);
    }
    if (rule.kind() == io.tidemark.model.config.RuleKind.SCHEMA_DRIFT) {
      return schemaDrift(rule, in);
    }
    if (rule.kind() == io.tidemark.model.config.RuleKind.FOREIGN_COMMITS) {
      return foreignCommits(rule, in);
    }
    if (in.observations() == null) {
      return RuleResult.error(rule, in.engineError());
    }
    Observations o = in.observations();
    return switch (rule.kind()) {
      case COUNT_MATCH ->
          withExcludedFiles(countMatch(rule, o), o.excludedFiles(), o.strayEntries());
      case MISSING_KEYS ->
          keys(rule, o.missing(), "expected keys are missing from the curated table");
      case UNEXPECTED_KEYS ->
          keys(rule, o.unexpected(), "curated keys are not in raw, or are deleted there");
      case DUPLICATE_KEYS ->
          keys(rule, o.duplicates(), "keys are present more than once in curated");
      case STALE_VERSIONS ->
          keys(
              rule,
              o.stale(),
              "keys hold another version in curated than raw's latest valid one (older, or newer"
                  + " than any raw version)");
      case VALUE_MISMATCHES ->
          in.comparedColumns().isEmpty()
              ? RuleResult.error(
                  rule,
                  "Cannot check value mismatches: no column is compared (the dataset's"
                      + " compared-columns is empty), so no damaged value could be found")
              : keys(
                  rule,
                  o.mismatched(),
                  "keys have compared columns that differ from raw at the same version");
      case FRESHNESS -> freshness(rule, o.freshness(), in.markerType());
      case AGGREGATE_MATCH -> aggregateMatch(rule, o.aggregates(), in.contract());
      case CUSTOM_SQL -> customSql(rule, o.queried().get(rule.id()));
      case REFERENTIAL_INTEGRITY -> references(rule, o.queried().get(rule.id()));
      case RUN_ACCOUNTING, UNPROCESSED_FILES, SCHEMA_DRIFT, FOREIGN_COMMITS ->
          throw new IllegalStateException("handled above");
    };
  }

  private static RuleResult keys(RuleSpec rule, Finding f, String what) {
    if (f.failed()) {
      return RuleResult.error(rule, f.error());
    }
    RuleResult r =
        RuleResult.evaluate(
            rule,
            f.count(),
            f.count() + " " + what + " (threshold " + rule.threshold() + ")",
            f.sample(),
            f.bytesScanned());
    if (r.status() != io.tidemark.model.report.RuleStatus.FAIL || f.diff() == null) {
      return r;
    }
    // The difference of the keys the result keeps (a rule may sample fewer than the engine).
    ValueDiff d = f.diff();
    return r.withDiff(
        new ValueDiff(
            d.keys(),
            d.differingKeys(),
            d.samples().stream().filter(k -> r.sampleKeys().contains(k.key())).toList()));
  }

  /** How many excluded files a reason names; the rest are counted. */
  static final int EXCLUDED_FILES_NAMED = 10;

  /**
   * Prefixes a count_match result's reason, whatever its status, with the raw files the engine left
   * out (the expected row count does not hold their rows) and the stray entries of the raw root
   * (read by neither half: rows parked in a mistyped partition folder count nowhere).
   */
  static RuleResult withExcludedFiles(
      RuleResult r, List<ExcludedFile> excluded, List<StrayEntry> strays) {
    if (excluded.isEmpty() && strays.isEmpty()) {
      return r;
    }
    List<String> notes = new ArrayList<>();
    if (!excluded.isEmpty()) {
      notes.add(
          excluded.size()
              + " raw file(s) excluded, as the ingest job quarantines them: "
              + named(excluded.stream().map(ExcludedFile::toString).toList()));
    }
    if (!strays.isEmpty()) {
      notes.add(
          strays.size()
              + " stray entr"
              + (strays.size() == 1 ? "y" : "ies")
              + " under the raw root, read by neither the job nor the reconciler: "
              + named(strays.stream().map(StrayEntry::toString).toList()));
    }
    String note = String.join("; ", notes);
    return r.withReason(r.reason() == null ? note : note + "; " + r.reason());
  }

  private static String named(List<String> items) {
    return String.join("; ", items.stream().limit(EXCLUDED_FILES_NAMED).toList())
        + (items.size() > EXCLUDED_FILES_NAMED
            ? "; and " + (items.size() - EXCLUDED_FILES_NAMED) + " more"
            : "");
  }

  /** Observed for the count rule: absolute row difference, or |curated / expected - 1|. */
  public static double countObserved(ToleranceMode mode, long expected, long curated) {
    if (mode == ToleranceMode.RATIO) {
      if (expected == 0) {
        return curated == 0 ? 0 : 1;
      }
      return Math.abs((double) curated / expected - 1);
    }
    return Math.abs(curated - expected);
  }

  private static RuleResult countMatch(RuleSpec rule, Observations o) {
    if (o.countDifference().failed()) {
      return RuleResult.error(rule, o.countDifference().error());
    }
    double observed = countObserved(rule.tolerance(), o.expectedRows(), o.curatedRows());
    String reason =
        "curated holds "
            + o.curatedRows()
            + " rows where raw expects "
            + o.expectedRows()
            + " ("
            + rule.tolerance().name().toLowerCase(java.util.Locale.ROOT)
            + " difference "
            + observed
            + " > threshold "
            + rule.threshold()
            + "); "
            + o.countDifference().count()
            + " keys differ";
    return RuleResult.evaluate(
        rule, observed, reason, o.countDifference().sample(), o.countDifference().bytesScanned());
  }

  /**
   * aggregate_match: the largest deviation among the rule's columns and aggregates; the samples
   * name each aggregate that deviates by more than the threshold, both sides' values shown.
   */
  private static RuleResult aggregateMatch(
      RuleSpec rule, AggregateFinding found, DatasetContract contract) {
    if (found == null || contract == null) {
      return RuleResult.error(rule, "Cannot match aggregates: the engine computed none");
    }
    if (found.error() != null) {
      return RuleResult.error(rule, found.error());
    }
    int compared = 0;
    for (String column : rule.columns()) {
      compared += contract.aggregates(rule, column).size();
    }
    String what = compared + " aggregate(s) of " + String.join(", ", rule.columns());
    if (found.agreeing()) {
      return RuleResult.evaluate(
          rule,
          0,
          what + " agree: every key bucket of the compared rows agrees on both sides",
          List.of(),
          0);
    }
    double observed = 0;
    List<String> beyond = new ArrayList<>();
    for (String column : rule.columns()) {
      for (Aggregate a : contract.aggregates(rule, column)) {
        AggregateFinding.Value v = found.find(column, a).orElse(null);
        if (v == null) {
          return RuleResult.error(
              rule, "Cannot match aggregates: " + column + " " + a.id() + " was not computed");
        }
        double d = v.deviation(rule.tolerance());
        observed = Math.max(observed, d);
        if (d > rule.threshold()) {
          beyond.add(v.describe() + " (" + mode(rule) + " difference " + d + ")");
        }
      }
    }
    return RuleResult.evaluate(
        rule,
        observed,
        beyond.size()
            + " of "
            + what
            + " differ by more than the threshold "
            + rule.threshold()
            + " ("
            + mode(rule)
            + "); the largest difference is "
            + observed,
        beyond,
        0);
  }

  /** custom_sql: the rows its query returned, the first column of the first ones as samples. */
  private static RuleResult customSql(RuleSpec rule, Finding f) {
    return ownQuery(
        rule,
        f,
        "Custom rule",
        "the rule's query returned "
            + (f == null ? 0 : f.count())
            + " row(s) (threshold "
            + rule.threshold()
            + "); the first column of the first ones is shown");
  }

  /** referential_integrity: the curated rows whose reference names no key of the other dataset. */
  private static RuleResult references(RuleSpec rule, Finding f) {
    return ownQuery(
        rule,
        f,
        "Referential rule",
        (f == null ? 0 : f.count())
            + " curated row(s) whose "
            + (rule.columns().size() == 1
                ? rule.columns().get(0)
                : "(" + String.join(", ", rule.columns()) + ")")
            + " is no live key of dataset "
            + rule.references()
            + " (threshold "
            + rule.threshold()
            + "); the rows' keys are shown");
  }

  /** A rule that runs a query of its own: its finding judged, or why there is none. */
  private static RuleResult ownQuery(RuleSpec rule, Finding f, String what, String failReason) {
    if (f == null) {
      return RuleResult.error(rule, what + " " + rule.id() + " was not run by the engine");
    }
    if (f.failed()) {
      return RuleResult.error(rule, f.error());
    }
    return RuleResult.evaluate(rule, f.count(), failReason, f.sample(), f.bytesScanned());
  }

  private static String mode(RuleSpec rule) {
    return rule.tolerance().name().toLowerCase(java.util.Locale.ROOT);
  }

  private static RuleResult freshness(RuleSpec rule, Freshness f, ChangeMarkerType type) {
    long bytes = f.bytesScanned();
    if (f.error() != null) {
      return RuleResult.error(rule, f.error());
    }
    boolean timestamps = type == ChangeMarkerType.TIMESTAMP;
    if (f.newestCurated() == null) {
      if (f.newestRaw() == null) {
        return RuleResult.evaluate(rule, 0, "", List.of(), bytes);
      }
      double behind = f.behind();
      return RuleResult.evaluate(
          rule,
          behind,
          "the curated table is empty while raw holds versions up to "
              + marker(f.newestRaw(), timestamps)
              + (timestamps
                  ? " (behind by " + Math.round(behind) + " s, since the oldest)"
                  : " (behind by " + Math.round(behind) + " s, since the oldest raw file arrived)")
              + "; "
              + f.pending().count()
              + " keys wait in raw",
          f.pending().sample(),
          bytes);
    }
    double observed = f.behind();
    String reason =
        timestamps
            ? "the newest curated change is "
                + Math.round(observed)
                + " s behind now and "
                + Math.round(f.lagBehindRaw())
                + " s behind raw (threshold "
                + rule.threshold()
                + " s); "
                + f.pending().count()
                + " keys wait in raw"
            : "the oldest raw file holding a sequence newer than the newest curated one ("
                + marker(f.newestCurated(), false)
                + ") arrived "
                + Math.round(observed)
                + " s ago (threshold "
                + rule.threshold()
                + " s; sequence markers carry no time, so freshness measures file arrival); the"
                + " newest curated sequence is "
                + Math.round(f.lagBehindRaw())
                + " behind raw; "
                + f.pending().count()
                + " keys wait in raw";
    return RuleResult.evaluate(rule, observed, reason, f.pending().sample(), bytes);
  }

  /**
   * A change marker as a reason shows it: an instant for a timestamp marker (the engines measure
   * epoch seconds with microseconds), the integer for a sequence.
   */
  static String marker(double value, boolean timestamps) {
    if (!timestamps) {
      return Long.toString(Math.round(value));
    }
    return java.time.Instant.EPOCH
        .plus(Math.round(value * 1e6), java.time.temporal.ChronoUnit.MICROS)
        .toString();
  }

  /**
   * Names the raw files no committed batch read (paths relative to the raw root, as samples too)
   * and tells the operator how to have them ingested.
   */
  private static RuleResult unprocessedFiles(RuleSpec rule, Inputs in) {
    if (in.unprocessed() == null) {
      return RuleResult.error(rule, in.unprocessedError());
    }
    List<String> files = in.unprocessed().files();
    List<String> strays = in.unprocessed().strays();
    if (files.isEmpty() && !strays.isEmpty()) {
      String reason =
          strays.size()
              + " raw entr"
              + (strays.size() == 1 ? "y" : "ies")
              + " the contract's layout cannot place, so no batch will ever read them: "
              + named(strays)
              + ". Move them where the layout expects them, or remove them";
      return RuleResult.evaluate(rule, strays.size(), reason, strays, 0);
    }
    List<String> all = new ArrayList<>(files);
    all.addAll(strays);
    String reason =
        files.size()
            + " raw data file(s) older than the grace period "
            + in.unprocessed().grace()
            + " are in no committed ingest batch (no SUCCEEDED or ALREADY_COMMITTED run report"
            + " lists them): "
            + named(files)
            + ". To pick them up, run the ingest job with --mode sweep (it reads every raw file"
            + " no committed batch read; see docs/ingest-job.md, \"Sweeping for missed files\"); if files"
            + " keep landing behind the lookback, widen --lookback or look at the producer"
            + (strays.isEmpty()
                ? ""
                : "; and "
                    + strays.size()
                    + " entries the layout cannot place, which no batch will read: "
                    + named(strays));
    return RuleResult.evaluate(rule, all.size(), reason, all, 0);
  }

  private static RuleResult schemaDrift(RuleSpec rule, Inputs in) {
    if (in.drift() == null) {
      return RuleResult.error(
          rule,
          in.runsError() != null ? in.runsError() : "Cannot check schema drift: no run reports");
    }
    SchemaDrift.Outcome d = in.drift();
    List<String> parts = new ArrayList<>();
    if (d.distinct() > 0 || d.files().isEmpty()) {
      parts.add(
          d.distinct()
              + " column(s) of raw files are not declared in the dataset's contract and reach no"
              + " table: "
              + named(d.columns())
              + ". Declare them in the contract's columns (and compared-columns to check them), or"
              + " have the producer stop sending them");
    }
    if (!d.files().isEmpty()) {
      parts.add(
          d.files().size()
              + " raw file(s) were quarantined whole for a column missing, repeated or of another"
              + " type than the contract declares, and their rows reach no table: "
              + named(d.files())
              + ". Have the source deliver corrected files (a replaced file is read again by the"
              + " next run, or by --mode sweep beyond the lookback), or change the contract if the"
              + " new shape is right");
    }
    List<String> samples = new ArrayList<>(d.columns());
    samples.addAll(d.files());
    return RuleResult.evaluate(rule, d.observed(), String.join("; ", parts), samples, 0);
  }

  private static RuleResult foreignCommits(RuleSpec rule, Inputs in) {
    if (in.foreign() == null) {
      return RuleResult.error(
          rule,
          "Cannot check foreign commits: "
              + (in.foreignError() != null
                  ? in.foreignError()
                  : "the curated table's history was not read"));
    }
    ForeignCommits.Outcome f = in.foreign();
    String reason =
        f.count()
            + " commit(s) on the curated table's main history were made by no Tidemark run (no"
            + " tidemark.run-id in the snapshot's summary): "
            + named(f.commits())
            + ". Find who wrote them (the table's snapshots and history); if the change was"
            + " wrong, roll main back past it or run --mode full-refresh";
    return RuleResult.evaluate(rule, f.count(), reason, f.commits(), 0);
  }

  private static RuleResult runAccounting(RuleSpec rule, Inputs in) {
    if (in.runs() == null) {
      return RuleResult.error(rule, in.runsError());
    }
    RunAccounting.Outcome o = in.runs();
    String reason =
        o.offendingRuns().size()
            + " of "
            + o.runsChecked()
            + " runs do not account for their records, files or commits: "
            + String.join("; ", o.errors().stream().limit(10).toList());
    return RuleResult.evaluate(rule, o.unaccounted(), reason, o.offendingRuns(), 0);
  }
}
