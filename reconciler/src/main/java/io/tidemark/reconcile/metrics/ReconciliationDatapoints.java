package io.tidemark.reconcile.metrics;

import io.tidemark.model.metrics.Datum;
import io.tidemark.model.metrics.Metric;
import io.tidemark.model.report.ReconciliationReport;
import io.tidemark.model.report.ReconciliationStatus;
import io.tidemark.model.report.RuleResult;
import io.tidemark.model.report.RuleStatus;
import io.tidemark.reconcile.engine.Observations;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The catalogue datapoints one finished reconciliation produces, timestamped at its end: per rule
 * RuleStatus (0 pass, 1 fail or error), RuleAlerting (RuleStatus unless an acknowledgement holds)
 * and RuleObservedValue; the kind metric of each default rule (MissingKeys, ..., UnprocessedFiles);
 * CountRatio and FreshnessLag (the seconds the freshness rule judges, see {@link
 * io.tidemark.reconcile.engine.Freshness#behind()}) when the engine's observations are at hand;
 * VerifiedSnapshotAge once a FULL run has proven a snapshot; BytesScanned, ScanCostUsd and
 * ReconciliationDuration. An ABANDONED run produces none.
 */
public final class ReconciliationDatapoints {
  private ReconciliationDatapoints() {}

  /**
   * A rule's RuleAlerting at {@code at}: 1 while it fails and no acknowledgement in the report
   * holds for it, 0 otherwise.
   */
  public static Datum alerting(ReconciliationReport report, RuleResult r, java.time.Instant at) {
    return Datum.ofRule(
        Metric.RULE_ALERTING,
        report.pipeline(),
        report.dataset(),
        r.ruleId(),
        report.alerting(r) ? 1 : 0,
        at);
  }

  /**
   * @param observations the engine's measures, or null (e.g. when rebuilding from stored reports)
   */
  public static List<Datum> of(ReconciliationReport report, Observations observations) {
    return of(report, observations, null);
  }

  /**
   * @param observations the engine's measures, or null (e.g. when rebuilding from stored reports)
   * @param proven the last curated snapshot a FULL reconciliation proved, this one included; null
   *     when none did (no VerifiedSnapshotAge then)
   */
  public static List<Datum> of(
      ReconciliationReport report,
      Observations observations,
      io.tidemark.model.report.CuratedSnapshot proven) {
    if (!report.status().finished() || report.status() == ReconciliationStatus.ABANDONED) {
      return List.of();
    }
    String p = report.pipeline();
    String d = report.dataset();
    var at = report.finishedAt();
    List<Datum> out = new ArrayList<>();
    // A dataset's referential rules have ids of their own: BrokenReferences is their sum (each
    // rule's own count is its RuleObservedValue).
    Double broken = null;
    for (RuleResult r : report.results()) {
      if (r.kind() == io.tidemark.model.config.RuleKind.REFERENTIAL_INTEGRITY
          && r.observed() != null) {
        broken = (broken == null ? 0 : broken) + r.observed();
      }
      out.add(
          Datum.ofRule(
              Metric.RULE_STATUS, p, d, r.ruleId(), r.status() == RuleStatus.PASS ? 0 : 1, at));
      out.add(alerting(report, r, at));
      if (r.observed() != null) {
        out.add(Datum.ofRule(Metric.RULE_OBSERVED_VALUE, p, d, r.ruleId(), r.observed(), at));
      }
      boolean defaultRule = r.ruleId().equals(r.kind().id());
      if (defaultRule && r.observed() != null) {
        switch (r.kind()) {
          case MISSING_KEYS,
              UNEXPECTED_KEYS,
              DUPLICATE_KEYS,
              STALE_VERSIONS,
              VALUE_MISMATCHES,
              UNPROCESSED_FILES,
              SCHEMA_DRIFT,
              FOREIGN_COMMITS,
              AGGREGATE_MATCH ->
              out.add(Datum.of(r.kind().metric().orElseThrow(), p, d, r.observed(), at));
          default -> {}
        }
      }
    }
    if (broken != null) {
      out.add(Datum.of(Metric.BROKEN_REFERENCES, p, d, broken, at));
    }
    if (observations != null) {
      if (observations.expectedRows() > 0) {
        out.add(
            Datum.of(
                Metric.COUNT_RATIO,
                p,
                d,
                (double) observations.curatedRows() / observations.expectedRows(),
                at));
      }
      // The seconds the freshness rule judges (not the marker gap, which for a sequence is no
      // time at all), so the graph and the rule's alarm agree.
      double lag = observations.freshness().behind();
      if (observations.freshness().error() == null && Double.isFinite(lag)) {
        out.add(Datum.of(Metric.FRESHNESS_LAG, p, d, lag, at));
      }
    }
    if (proven != null) {
      out.add(
          Datum.of(
              Metric.VERIFIED_SNAPSHOT_AGE,
              p,
              d,
              Math.max(0, Duration.between(proven.committedAt(), at).toMillis() / 1000.0),
              at));
    }
    out.add(Datum.of(Metric.BYTES_SCANNED, p, d, report.bytesScanned(), at));
    out.add(
        Datum.of(
            Metric.SCAN_COST, p, d, report.scanCostUsd() == null ? 0 : report.scanCostUsd(), at));
    out.add(
        Datum.of(
            Metric.RECONCILIATION_DURATION,
            p,
            d,
            Duration.between(report.startedAt(), report.finishedAt()).toMillis() / 1000.0,
            at));
    return out;
  }
}
