package io.tidemark.reconcile.service;

import io.tidemark.model.audit.AuditRequest;
import io.tidemark.model.config.RuleKind;
import io.tidemark.model.config.RuleSpec;
import io.tidemark.model.report.CuratedSnapshot;
import io.tidemark.model.report.ReconciliationMode;
import io.tidemark.model.report.ReconciliationReport;
import io.tidemark.model.report.ReconciliationStatus;
import io.tidemark.model.report.RuleResult;
import io.tidemark.reconcile.config.ReconciledDataset;
import io.tidemark.reconcile.engine.EngineRequest;
import io.tidemark.reconcile.engine.Observations;
import io.tidemark.reconcile.engine.ReconciliationEngine;
import io.tidemark.reconcile.rules.DynamicThresholds;
import io.tidemark.reconcile.rules.RuleEvaluator;
import io.tidemark.reconcile.rules.SampleMask;
import io.tidemark.reconcile.storage.IcebergTables;
import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Semaphore;
import java.util.function.Function;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Audits an ingest run's branch before the run publishes it (verified publish): the dataset's
 * record-level rules, run by its engine over the branch's head snapshot as a FULL comparison
 * against raw as the run found it (the files that had arrived when it listed raw, change markers
 * valid at its clock). The rules about runs, files, schema, commits and freshness judge the
 * published table and its history, which a branch not yet on {@code main} is not part of: they are
 * left to the reconciliations of {@code main}.
 *
 * <p>An audit is not stored, published as metrics, alarmed on or acknowledged: it judges a batch
 * that is not on {@code main}. The run that asked records it in its own report, and fails with its
 * own exit code when it does not pass.
 */
final class BranchAudits {
  private static final Logger LOG = LoggerFactory.getLogger(BranchAudits.class);

  /** The rules an audit runs: those that compare records of raw and curated. */
  static final Set<RuleKind> AUDITED =
      EnumSet.of(
          RuleKind.COUNT_MATCH,
          RuleKind.MISSING_KEYS,
          RuleKind.UNEXPECTED_KEYS,
          RuleKind.DUPLICATE_KEYS,
          RuleKind.STALE_VERSIONS,
          RuleKind.VALUE_MISMATCHES);

  private final Map<String, ReconciledDataset> datasets;
  private final Map<String, ReconciliationEngine> engines;
  private final Clock clock;
  private final Function<Instant, String> ids;

  private final java.util.function.BiFunction<
          ReconciledDataset, ReconciliationMode, DynamicThresholds.Applied>
      thresholds;

  /**
   * @param thresholds a dataset's rules with the thresholds they learned from its runs of a mode
   */
  BranchAudits(
      Map<String, ReconciledDataset> datasets,
      Map<String, ReconciliationEngine> engines,
      Clock clock,
      Function<Instant, String> ids,
      java.util.function.BiFunction<
              ReconciledDataset, ReconciliationMode, DynamicThresholds.Applied>
          thresholds) {
    this.datasets = datasets;
    this.engines = engines;
    this.clock = clock;
    this.ids = ids;
    this.thresholds = thresholds;
    this.running = new Semaphore(concurrency(datasets.size()), true);
  }

  /**
   * How many reconciliations the service runs at once (one per dataset, at most 4), and so how many
   * audits compare at once. Audits run on the callers' HTTP threads: without a bound every ingest
   * run that asks at 03:00 would hold a FULL comparison in memory at once; the others wait their
   * turn, in order.
   */
  static int concurrency(int datasets) {
    return Math.max(1, Math.min(4, datasets));
  }

  private final Semaphore running;

  /**
   * Audits the snapshot the request names.
   *
   * @return the audit's report: PASSED, FAILED with the failing rules, or ERROR when the engine
   *     could not measure
   * @throws UnknownDatasetException for a dataset that is not configured
   * @throws InvalidRequestException when the snapshot is not one of the curated table's
   */
  ReconciliationReport audit(String dataset, AuditRequest request) {
    ReconciledDataset ds = datasets.get(dataset);
    if (ds == null) {
      throw new UnknownDatasetException(dataset);
    }
    Instant started = clock.instant().truncatedTo(ChronoUnit.MICROS);
    CuratedSnapshot snapshot = snapshot(ds, request.snapshotId());
    // Every valid version counts: the run quarantined markers past its own clock's limit, so
    // nothing it kept is in flight.
    Instant to = request.now().plus(ds.futureTolerance());
    // An audit is a FULL comparison: a rule that learns its threshold learns it from FULL runs.
    DynamicThresholds.Applied learned = thresholds.apply(ds, ReconciliationMode.FULL);
    List<RuleSpec> rules =
        learned.rules().stream().filter(r -> AUDITED.contains(r.kind())).toList();
    ReconciliationReport report =
        new ReconciliationReport(
            ReconciliationReport.SCHEMA_VERSION,
            "audit-" + ids.apply(started),
            ds.spec().pipeline(),
            dataset,
            ReconciliationMode.FULL,
            null,
            to,
            ds.engine(),
            "audit:" + request.runId(),
            ReconciliationStatus.RUNNING,
            started,
            null,
            List.of(),
            0,
            0.0,
            null,
            snapshot,
            null);
    Observations observed = null;
    String engineError = null;
    try {
      if (!running.tryAcquire()) {
        LOG.info(
            "Audit of {} branch {} waits: {} audit(s) compare already",
            dataset,
            request.branch(),
            concurrency(datasets.size()));
        running.acquire();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("Interrupted while waiting to audit " + dataset, e);
    }
    try {
      observed =
          engines
              .get(ds.engine())
              .observe(
                  new EngineRequest(
                      ds.contract(),
                      ds.catalog(),
                      ReconciliationMode.FULL,
                      null,
                      to,
                      request.now(),
                      ds.maxSampleSize(),
                      ds.futureTolerance(),
                      snapshot.id(),
                      request.rawArrivedBy(),
                      // An audit judges the audited kinds only: no reference is read.
                      java.util.Map.of()));
    } catch (RuntimeException | LinkageError e) {
      engineError = e.getMessage() == null ? e.toString() : e.getMessage();
      LOG.warn("Audit of {} branch {}: the engine failed: {}", dataset, request.branch(), e);
    } finally {
      running.release();
    }
    List<RuleResult> results =
        RuleEvaluator.evaluate(
            rules,
            new RuleEvaluator.Inputs(
                observed,
                engineError,
                null,
                null,
                ds.spec().changeMarker().type(),
                null,
                null,
                ds.spec().comparedColumns(),
                null,
                null,
                null,
                ds.contract()));
    results = DynamicThresholds.annotate(results, learned.notes());
    results = SampleMask.of(ds.contract()).apply(results);
    ReconciliationStatus status =
        observed == null ? ReconciliationStatus.ERROR : ReconciliationReport.statusOf(results);
    Instant finished = clock.instant().truncatedTo(ChronoUnit.MICROS);
    ReconciliationReport done =
        report.withOutcome(
            status,
            finished.isBefore(started) ? started : finished,
            results,
            observed == null ? 0 : observed.bytesScanned(),
            observed == null ? 0 : observed.scanCostUsd(),
            engineError);
    LOG.info(
        "Audit {} of {} branch {} (snapshot {}, batch {} of run {}): {}",
        done.id(),
        dataset,
        request.branch(),
        snapshot.id(),
        request.batchId(),
        request.runId(),
        done.status());
    return done;
  }

  /** The snapshot, which must be one of the curated table's. */
  private static CuratedSnapshot snapshot(ReconciledDataset ds, long snapshotId) {
    Catalog catalog = IcebergTables.catalog(ds.catalog());
    try {
      Table table = IcebergTables.load(catalog, ds.spec().curatedTable());
      Snapshot s = table == null ? null : table.snapshot(snapshotId);
      if (s == null) {
        throw new InvalidRequestException(
            "snapshotId", snapshotId, "is not a snapshot of " + ds.spec().curatedTable());
      }
      return new CuratedSnapshot(s.snapshotId(), Instant.ofEpochMilli(s.timestampMillis()));
    } finally {
      IcebergTables.close(catalog);
    }
  }
}
