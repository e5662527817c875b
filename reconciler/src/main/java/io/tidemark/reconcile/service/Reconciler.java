package io.tidemark.reconcile.service;

import com.fasterxml.jackson.databind.JsonNode;
import io.tidemark.model.alarms.AlarmDefinition;
import io.tidemark.model.config.CatalogSpec;
import io.tidemark.model.contract.DatasetContract;
import io.tidemark.model.metrics.Datum;
import io.tidemark.model.metrics.Emitter;
import io.tidemark.model.metrics.IngestRunMetrics;
import io.tidemark.model.report.Acknowledgement;
import io.tidemark.model.report.IngestRunReport;
import io.tidemark.model.report.ReconciliationMode;
import io.tidemark.model.report.ReconciliationReport;
import io.tidemark.model.report.ReconciliationStatus;
import io.tidemark.model.report.RuleResult;
import io.tidemark.reconcile.alarms.AlarmBoard;
import io.tidemark.reconcile.alarms.AlarmDefinitions;
import io.tidemark.reconcile.alarms.AlarmStatus;
import io.tidemark.reconcile.config.ReconciledDataset;
import io.tidemark.reconcile.engine.EngineRequest;
import io.tidemark.reconcile.engine.Observations;
import io.tidemark.reconcile.engine.ReconciliationEngine;
import io.tidemark.reconcile.engine.duckdb.DuckDbEngine;
import io.tidemark.reconcile.metrics.MetricHistory;
import io.tidemark.reconcile.metrics.ReconciliationDatapoints;
import io.tidemark.reconcile.report.LocalReportStore;
import io.tidemark.reconcile.report.LocalRunReports;
import io.tidemark.reconcile.report.ReportStore;
import io.tidemark.reconcile.report.RunReportSource;
import io.tidemark.reconcile.report.UnreadableReport;
import io.tidemark.reconcile.rules.DynamicThresholds;
import io.tidemark.reconcile.rules.ForeignCommits;
import io.tidemark.reconcile.rules.RuleEvaluator;
import io.tidemark.reconcile.rules.RunAccounting;
import io.tidemark.reconcile.rules.SampleMask;
import io.tidemark.reconcile.rules.SchemaDrift;
import io.tidemark.reconcile.rules.UnprocessedFiles;
import io.tidemark.reconcile.storage.IcebergTables;
import io.tidemark.reconcile.storage.RawFiles;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs reconciliations and evaluates alarms, with no framework: the Quarkus service wraps one, and
 * another module's test or a plain {@code main} can use one directly.
 *
 * <pre>{@code
 * Reconciler r = Reconciler.builder(stateRoot)
 *     .dataset(ContractFile.load(contractFile).dataset("customers"),
 *              CatalogSpec.localJdbc(warehouse))
 *     .build();
 * r.recover();                                   // marks runs cut off by a crash ABANDONED
 * ReconciliationReport report = r.run("customers", ReconciliationMode.FULL, null, null, "demo");
 * List<AlarmStatus> alarms = r.alarms();         // OK / ALARM / INSUFFICIENT_DATA, with reasons
 * }</pre>
 *
 * At most one reconciliation per dataset runs at a time: a second {@link #begin} fails with {@link
 * AlreadyRunningException} naming the running one.
 */
public final class Reconciler {
  private static final Logger LOG = LoggerFactory.getLogger(Reconciler.class);
  private static final DateTimeFormatter ID_TIME =
      DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'").withZone(ZoneOffset.UTC);
  private static final SecureRandom RANDOM = new SecureRandom();

  /** Told about every finished reconciliation, e.g. to publish its datapoints as meters. */
  @FunctionalInterface
  public interface Listener {
    void finished(ReconciliationReport report, List<Datum> datapoints);
  }

  /** A reconciliation that has begun: its RUNNING report is stored. */
  public record Started(ReconciliationReport report, ReconciledDataset dataset) {}

  private final Map<String, ReconciledDataset> datasets;
  private final Map<String, ReconciliationEngine> engines;
  private final ReportStore reports;
  private final RunReportSource runReports;
  private final Clock clock;
  private final MetricHistory history = new MetricHistory();
  private final AlarmBoard alarms;
  private final List<Listener> listeners;
  private final Map<String, String> running = new ConcurrentHashMap<>();
  private final Map<String, java.time.Duration> unprocessedFileGrace;

  /** Held while acknowledgements are read and stored, so that none is lost to a run finishing. */
  private final Object acknowledging = new Object();

  private final BranchAudits audits;

  private Reconciler(Builder b) {
    this.datasets = java.util.Collections.unmodifiableMap(new TreeMap<>(b.datasets));
    this.engines = Map.copyOf(b.engines);
    this.reports = b.reports != null ? b.reports : new LocalReportStore(b.stateRoot);
    this.audits =
        new BranchAudits(
            this.datasets,
            this.engines,
            b.clock,
            Reconciler::newId,
            (ds, mode) -> dynamicThresholds(ds, mode));
    this.runReports = b.runReports != null ? b.runReports : new LocalRunReports(b.stateRoot);
    this.clock = b.clock;
    this.listeners = List.copyOf(b.listeners);
    this.unprocessedFileGrace = Map.copyOf(b.unprocessedFileGrace);
    JsonNode template = b.alarmTemplate != null ? b.alarmTemplate : AlarmDefinitions.bundled();
    Map<String, List<AlarmDefinition>> defs = new LinkedHashMap<>();
    for (ReconciledDataset d : datasets.values()) {
      if (!engines.containsKey(d.engine())) {
        throw new IllegalArgumentException(
            "Cannot reconcile dataset "
                + d.name()
                + ": no engine named '"
                + d.engine()
                + "' (have "
                + engines.keySet()
                + ")");
      }
      d.referenced(datasets); // a reference that cannot be read is refused at start
      defs.put(
          d.name(),
          AlarmDefinitions.forDataset(template, d.spec().pipeline(), d.name(), d.rules()));
    }
    this.alarms = new AlarmBoard(defs);
  }

  public static Builder builder(Path stateRoot) {
    return new Builder(stateRoot);
  }

  public Map<String, ReconciledDataset> datasets() {
    return datasets;
  }

  public ReportStore reports() {
    return reports;
  }

  public MetricHistory history() {
    return history;
  }

  /** The id of the dataset's running reconciliation, if one runs. */
  public Optional<String> running(String dataset) {
    return Optional.ofNullable(running.get(dataset));
  }

  /**
   * Call once before the first run: rewrites RUNNING reports left by a process that died as
   * ABANDONED, and rebuilds the alarm history from the stored reports.
   */
  public List<ReconciliationReport> recover() {
    List<ReconciliationReport> abandoned = reports.abandonRunning(clock.instant());
    // Oldest first, so that each report's datapoints carry the age of the snapshot proven by then.
    List<ReconciliationReport> stored =
        new java.util.ArrayList<>(reports.list(Optional.empty(), Integer.MAX_VALUE));
    java.util.Collections.reverse(stored);
    Map<String, io.tidemark.model.report.CuratedSnapshot> proven = new java.util.HashMap<>();
    for (ReconciliationReport r : stored) {
      if (datasets.containsKey(r.dataset())) {
        if (Verdict.proves(r)) {
          proven.put(r.dataset(), r.curatedSnapshot());
        }
        history.record(ReconciliationDatapoints.of(r, null, proven.get(r.dataset())));
      }
    }
    return abandoned;
  }

  /** Begins and runs a reconciliation on the calling thread; never throws once begun. */
  public ReconciliationReport run(
      String dataset, ReconciliationMode mode, Instant from, Instant to, String trigger) {
    return execute(begin(dataset, mode, from, to, trigger));
  }

  /**
   * Validates a request, resolves its window and stores its RUNNING report.
   *
   * @param mode WINDOW (default when null) or FULL
   * @param from window start (exclusive); default: the end of the last PASSED run's window
   * @param to window end (inclusive); default: now
   * @throws UnknownDatasetException for a dataset that is not configured
   * @throws InvalidRequestException naming the field for an impossible window
   * @throws AlreadyRunningException when the dataset has a run in progress
   */
  public Started begin(
      String dataset, ReconciliationMode mode, Instant from, Instant to, String trigger) {
    ReconciledDataset ds = datasets.get(dataset);
    if (ds == null) {
      throw new UnknownDatasetException(dataset);
    }
    mode = mode == null ? ReconciliationMode.WINDOW : mode;
    Instant now = clock.instant().truncatedTo(ChronoUnit.MICROS);
    if (to != null && to.isAfter(now)) {
      throw new InvalidRequestException("to", to, "is in the future (now is " + now + ")");
    }
    Instant end = to == null ? now : to;
    if (mode == ReconciliationMode.FULL && from != null) {
      throw new InvalidRequestException("from", from, "applies to mode 'window' only");
    }
    Instant start = mode == ReconciliationMode.WINDOW ? windowStart(dataset, from, end) : null;
    String id = newId(now);
    String other = running.putIfAbsent(dataset, id);
    if (other != null) {
      throw new AlreadyRunningException(dataset, other);
    }
    try {
      ReconciliationReport report =
          new ReconciliationReport(
              ReconciliationReport.SCHEMA_VERSION,
              id,
              ds.spec().pipeline(),
              dataset,
              mode,
              start,
              end,
              ds.engine(),
              trigger,
              ReconciliationStatus.RUNNING,
              now,
              null,
              List.of(),
              0,
              0.0,
              null,
              null,
              null);
      reports.save(report);
      logContext(report);
      try {
        LOG.info(
            "Reconciliation {} of {} started ({} mode, window ({}, {}], trigger {})",
            id,
            dataset,
            mode,
            start,
            end,
            trigger);
      } finally {
        LOG_CONTEXT.forEach(org.slf4j.MDC::remove);
      }
      return new Started(report, ds);
    } catch (RuntimeException e) {
      running.remove(dataset, id);
      throw e;
    }
  }

  /** A WINDOW's start: {@code from}, else the end of the last PASSED run's window. */
  private Instant windowStart(String dataset, Instant from, Instant end) {
    if (from != null) {
      if (!from.isBefore(end)) {
        throw new InvalidRequestException("from", from, "must be before 'to' (" + end + ")");
      }
      return from;
    }
    Instant start = reports.lastPassedWindowEnd(dataset).orElse(null);
    if (start != null && !start.isBefore(end)) {
      // Nothing changed since the last passed run: an empty window, checked all the same.
      start = end.minus(1, ChronoUnit.MICROS);
    }
    return start;
  }

  /**
   * The dataset's rules with the thresholds they learned from its stored reports of runs in {@code
   * mode}; the reports are read only when a rule learns.
   */
  private DynamicThresholds.Applied dynamicThresholds(
      ReconciledDataset ds, ReconciliationMode mode) {
    if (ds.rules().stream().noneMatch(r -> r.dynamic() != null)) {
      return new DynamicThresholds.Applied(ds.rules(), Map.of());
    }
    return DynamicThresholds.apply(
        ds.rules(), mode, reports.list(Optional.of(ds.name()), Integer.MAX_VALUE));
  }

  /** Runs a begun reconciliation to its end and stores the outcome; never throws. */
  public ReconciliationReport execute(Started started) {
    ReconciliationReport report = started.report();
    ReconciledDataset ds = started.dataset();
    logContext(report);
    try {
      // The curated table is read once, first: its current snapshot is pinned, so every check
      // reads the same table state however many commits land meanwhile, and the verdict names
      // it; its main history up to that snapshot is what run accounting matches the job's
      // commits in and what foreign_commits names the others from.
      Step<CuratedState> curated = curatedState(ds);
      if (curated.value() != null) {
        report = report.withCuratedSnapshot(curated.value().snapshot());
      }
      Step<Observations> observed = observe(report, ds);
      // Every run report of the dataset, read once and last: run accounting and unprocessed
      // files both need the whole history, the window's identities only the reports that
      // finished in it. Read after the engine, so a run that committed just before the window's
      // end has had that long to write its report; a report of a commit after the pin finished
      // after the window's end and is not held to it.
      Step<List<IngestRunReport>> allReports = runReports(report, ds);
      Step<IcebergTables.CommitHistory> commits =
          curated.value() == null
              ? new Step<>(null, curated.error())
              : new Step<>(curated.value().history(), null);
      Step<RunAccounting.Outcome> runs = runAccounting(report, commits, allReports);
      Step<UnprocessedFiles.Outcome> unprocessed = unprocessedFiles(report, ds, allReports);
      DynamicThresholds.Applied thresholds = dynamicThresholds(ds, report.mode());
      List<RuleResult> results =
          RuleEvaluator.evaluate(
              thresholds.rules(),
              new RuleEvaluator.Inputs(
                  observed.value(),
                  observed.error(),
                  runs.value(),
                  runs.error(),
                  ds.spec().changeMarker().type(),
                  unprocessed.value(),
                  unprocessed.error(),
                  ds.spec().comparedColumns(),
                  allReports.value() == null
                      ? null
                      : SchemaDrift.check(
                          allReports.value(), report.windowFrom(), report.windowTo()),
                  commits.value() == null
                      ? null
                      : ForeignCommits.check(
                          commits.value().foreign(), report.windowFrom(), report.windowTo()),
                  commits.error(),
                  ds.contract()));
      results = DynamicThresholds.annotate(results, thresholds.notes());
      // Masked before anything stores or shows them; carried-over results were masked when
      // their own run stored them.
      results = SampleMask.of(ds.contract()).apply(results);
      if (report.mode() == ReconciliationMode.WINDOW) {
        results = carryOverFullFailures(report, results);
      }
      return finish(report, ds, observed, results);
    } catch (RuntimeException e) {
      ReconciliationReport failed =
          report.withOutcome(
              ReconciliationStatus.ERROR, finishTime(report), List.of(), 0, message(e));
      try {
        reports.save(failed);
      } catch (RuntimeException saveFailure) {
        e.addSuppressed(saveFailure);
      }
      LOG.error("Reconciliation {} of {} broke", report.id(), ds.name(), e);
      // A run that broke is a finished ERROR like any other: its metrics and event go out.
      for (Listener l : listeners) {
        try {
          l.finished(failed, ReconciliationDatapoints.of(failed, null));
        } catch (RuntimeException listenerFailure) {
          LOG.warn(
              "Reconciliation {} of {}: a listener failed: {}",
              report.id(),
              ds.name(),
              message(listenerFailure));
        }
      }
      return failed;
    } finally {
      running.remove(ds.name(), report.id());
      LOG_CONTEXT.forEach(org.slf4j.MDC::remove);
    }
  }

  /** The keys every line a reconciliation logs carries (JSON logs show them in "mdc"). */
  static final List<String> LOG_CONTEXT = List.of("reconciliationId", "dataset", "mode");

  /** Names the reconciliation on every line its thread logs from here on. */
  private static void logContext(ReconciliationReport report) {
    org.slf4j.MDC.put("reconciliationId", report.id());
    org.slf4j.MDC.put("dataset", report.dataset());
    org.slf4j.MDC.put("mode", report.mode().name());
  }

  /**
   * What one step of a run found, or why it could not.
   *
   * @param value what it found; null when it failed (or did not run)
   * @param error why it failed; null when it did not
   */
  private record Step<T>(T value, String error) {}

  /** The engine's observations of the run's window. */
  private Step<Observations> observe(ReconciliationReport report, ReconciledDataset ds) {
    try {
      return new Step<>(
          engines
              .get(ds.engine())
              .observe(
                  new EngineRequest(
                      ds.contract(),
                      ds.catalog(),
                      report.mode(),
                      report.windowFrom(),
                      report.windowTo(),
                      report.startedAt(),
                      ds.maxSampleSize(),
                      ds.futureTolerance(),
                      report.curatedSnapshot() == null ? null : report.curatedSnapshot().id(),
                      null,
                      ds.referenced(datasets))),
          null);
    } catch (RuntimeException | LinkageError e) {
      String engineError = message(e);
      LOG.warn(
          "Reconciliation {} of {}: the engine failed: {}", report.id(), ds.name(), engineError, e);
      return new Step<>(null, engineError);
    }
  }

  /** Every run report of the dataset; the unreadable ones are logged. */
  private Step<List<IngestRunReport>> runReports(
      ReconciliationReport report, ReconciledDataset ds) {
    try {
      RunReportSource.Listing listing =
          runReports.read(ds.spec().pipeline(), ds.name(), null, Instant.MAX);
      for (UnreadableReport u : listing.unreadable()) {
        LOG.warn("Reconciliation {} of {}: {}", report.id(), ds.name(), u.message());
      }
      return new Step<>(listing.reports(), null);
    } catch (RuntimeException e) {
      return new Step<>(null, message(e));
    }
  }

  /** The run accounting of the window's runs against the table's commits. */
  private static Step<RunAccounting.Outcome> runAccounting(
      ReconciliationReport report,
      Step<IcebergTables.CommitHistory> commits,
      Step<List<IngestRunReport>> all) {
    if (all.value() == null) {
      return new Step<>(null, all.error());
    }
    if (commits.value() == null) {
      return new Step<>(null, commits.error());
    }
    try {
      IcebergTables.CommitHistory history = commits.value();
      RunAccounting.Ledger ledger =
          new RunAccounting.Ledger(
              history.commits(),
              history.retainedSince(),
              all.value(),
              report.windowFrom(),
              report.windowTo());
      return new Step<>(
          RunAccounting.check(
              all.value().stream().filter(r -> ledger.inWindow(r.finishedAt())).toList(), ledger),
          null);
    } catch (RuntimeException e) {
      return new Step<>(null, message(e));
    }
  }

  /** The raw files no run report accounts for, when a rule checks them. */
  private Step<UnprocessedFiles.Outcome> unprocessedFiles(
      ReconciliationReport report, ReconciledDataset ds, Step<List<IngestRunReport>> all) {
    String reportsError =
        all.error() == null ? null : "Cannot check unprocessed files: " + all.error();
    boolean checkFiles =
        ds.rules().stream()
            .anyMatch(r -> r.kind() == io.tidemark.model.config.RuleKind.UNPROCESSED_FILES);
    if (!checkFiles || all.value() == null) {
      return new Step<>(null, reportsError);
    }
    try {
      RawFiles.Listing listing = engines.get(ds.engine()).listRawFiles(ds.contract());
      return new Step<>(
          UnprocessedFiles.check(
              ds.contract().raw().location(),
              listing.files(),
              listing.strays(),
              all.value(),
              unprocessedFileGrace.getOrDefault(ds.name(), ds.unprocessedFileGrace()),
              report.startedAt()),
          null);
    } catch (RuntimeException e) {
      return new Step<>(null, "Cannot check unprocessed files: " + message(e));
    }
  }

  /** Stores the outcome, records and publishes its datapoints, and evaluates the alarms. */
  private ReconciliationReport finish(
      ReconciliationReport report,
      ReconciledDataset ds,
      Step<Observations> observed,
      List<RuleResult> results) {
    Observations observations = observed.value();
    ReconciliationStatus status =
        observations == null ? ReconciliationStatus.ERROR : ReconciliationReport.statusOf(results);
    ReconciliationReport done =
        report.withOutcome(
            status,
            finishTime(report),
            results,
            observations == null ? 0 : observations.bytesScanned(),
            observations == null ? 0 : observations.scanCostUsd(),
            observed.error());
    // Held until the datapoints are published: an acknowledgement given meanwhile lands on this
    // report, or waits and its RuleAlerting follows this run's.
    synchronized (acknowledging) {
      done = done.withAcknowledgements(carriedAcknowledgements(done));
      reports.save(done);
      // Before anyone is told: a caller that waited for the verdict may read the tag next.
      moveVerifiedTag(done, ds);
      List<Datum> datapoints = ReconciliationDatapoints.of(done, observations, proven(done));
      history.record(datapoints);
      for (Listener l : listeners) {
        l.finished(done, datapoints);
      }
    }
    LOG.info(
        "Reconciliation {} of {} {}: {}", done.id(), ds.name(), done.status(), summary(results));
    alarms.evaluate(ds.name(), clock.instant(), this::datapoints);
    return done;
  }

  /**
   * The acknowledgements of the dataset's previous finished reconciliation that still hold after
   * {@code done}: a rule that passes clears its acknowledgement; one whose failure observes more or
   * names anything new breaks it (logged: it alerts again). A run that could not check (no results)
   * keeps them as they were.
   */
  private List<Acknowledgement> carriedAcknowledgements(ReconciliationReport done) {
    Optional<ReconciliationReport> previous = latestChecked(done.dataset(), done.id());
    if (previous.isEmpty()) {
      return List.of();
    }
    if (done.results().isEmpty()) {
      return previous.get().acknowledgements();
    }
    List<Acknowledgement> kept = new ArrayList<>();
    for (Acknowledgement a : previous.get().acknowledgements()) {
      Optional<RuleResult> now =
          done.results().stream().filter(r -> r.ruleId().equals(a.ruleId())).findFirst();
      if (now.isEmpty()) {
        LOG.info(
            "Reconciliation {} of {}: rule {} is no longer configured; its acknowledgement ends",
            done.id(),
            done.dataset(),
            a.ruleId());
      } else if (now.get().status() == io.tidemark.model.report.RuleStatus.ERROR) {
        // The rule could not check: the error alerts, and the acknowledgement waits for a verdict.
        kept.add(a);
      } else if (now.get().status() == io.tidemark.model.report.RuleStatus.PASS) {
        LOG.info(
            "Reconciliation {} of {}: rule {} passes; the acknowledgement by {} is cleared",
            done.id(),
            done.dataset(),
            a.ruleId(),
            a.by());
      } else if (a.covers(now.get())) {
        kept.add(a);
      } else {
        LOG.warn(
            "Reconciliation {} of {}: the acknowledgement of rule {} by {} no longer holds: {};"
                + " it alerts again",
            done.id(),
            done.dataset(),
            a.ruleId(),
            a.by(),
            a.whyNot(now.get()));
      }
    }
    return kept;
  }

  /**
   * The dataset's newest finished reconciliation that evaluated its rules (not abandoned, not one
   * that broke before any rule ran), other than {@code except}: where acknowledgements are kept.
   */
  private Optional<ReconciliationReport> latestChecked(String dataset, String except) {
    return reports.list(Optional.of(dataset), Integer.MAX_VALUE).stream()
        .filter(
            r ->
                r.status().finished()
                    && r.status() != ReconciliationStatus.ABANDONED
                    && !r.results().isEmpty()
                    && !r.id().equals(except))
        .findFirst();
  }

  /** The acknowledgements that hold: those of the dataset's latest finished reconciliation. */
  public List<Acknowledgement> acknowledgements(String dataset) {
    if (!datasets.containsKey(dataset)) {
      throw new UnknownDatasetException(dataset);
    }
    return latestChecked(dataset, null)
        .map(ReconciliationReport::acknowledgements)
        .orElse(List.of());
  }

  /**
   * An acknowledgement given or withdrawn, and the RuleAlerting datum it changes, for the meters.
   */
  public record AcknowledgementChange(
      ReconciliationReport report, Acknowledgement acknowledgement, List<Datum> datapoints) {}

  /**
   * Acknowledges the failure of a rule in the dataset's latest finished reconciliation: it stops
   * alerting while its failure names nothing new (see {@link Acknowledgement}). Stored in that
   * report, where the next reconciliation finds it.
   *
   * @throws UnknownDatasetException for a dataset that is not configured
   * @throws InvalidRequestException for a rule the dataset does not have
   * @throws NotFailingException when the rule does not fail there, or there is no reconciliation
   */
  public AcknowledgementChange acknowledge(String dataset, String ruleId, String by, String note) {
    return acknowledge(dataset, ruleId, by, note, null);
  }

  /**
   * Acknowledges the failure of a rule in the reconciliation {@code seen}, which must be the
   * dataset's latest that checked: what the person acknowledging looked at (null: the latest).
   *
   * @throws NotFailingException also when {@code seen} is not the latest any more
   */
  public AcknowledgementChange acknowledge(
      String dataset, String ruleId, String by, String note, String seen) {
    ReconciledDataset ds = datasets.get(dataset);
    if (ds == null) {
      throw new UnknownDatasetException(dataset);
    }
    synchronized (acknowledging) {
      ReconciliationReport latest = latestOrRefuse(dataset, ruleId, "acknowledge");
      if (seen != null && !seen.equals(latest.id())) {
        throw new NotFailingException(
            "Cannot acknowledge rule "
                + ruleId
                + " of "
                + dataset
                + " as reconciliation "
                + seen
                + " saw it: the latest is "
                + latest.id()
                + "; look at that one and acknowledge what it found",
            latest.id());
      }
      RuleResult result = resultOrRefuse(latest, ruleId);
      if (result.status() != io.tidemark.model.report.RuleStatus.FAIL) {
        throw new NotFailingException(
            "Cannot acknowledge rule "
                + ruleId
                + " of "
                + dataset
                + ": it is "
                + result.status()
                + " in the latest reconciliation, "
                + latest.id()
                + (result.status() == io.tidemark.model.report.RuleStatus.ERROR
                    ? " (an error is not a failure to live with: fix what it names)"
                    : ""),
            latest.id());
      }
      Instant now = clock.instant();
      Acknowledgement ack = Acknowledgement.of(latest, result, by, note, now);
      List<Acknowledgement> acks = new ArrayList<>();
      latest.acknowledgements().stream().filter(a -> !a.ruleId().equals(ruleId)).forEach(acks::add);
      acks.add(ack);
      ReconciliationReport updated = latest.withAcknowledgements(acks);
      reports.save(updated);
      LOG.info(
          "Rule {} of {} acknowledged by {} on reconciliation {} ({} observed, {} sample(s)): {}",
          ruleId,
          dataset,
          ack.by(),
          latest.id(),
          ack.observed(),
          ack.keys().size(),
          ack.note().isEmpty() ? "no note" : ack.note());
      return changed(updated, result, ack, now);
    }
  }

  /**
   * Withdraws the acknowledgement of a rule of the dataset: its failure alerts again.
   *
   * @throws UnknownDatasetException for a dataset that is not configured
   * @throws NotFailingException when there is no acknowledgement of the rule
   */
  public AcknowledgementChange withdraw(String dataset, String ruleId) {
    ReconciledDataset ds = datasets.get(dataset);
    if (ds == null) {
      throw new UnknownDatasetException(dataset);
    }
    synchronized (acknowledging) {
      ReconciliationReport latest =
          latestOrRefuse(dataset, ruleId, "withdraw the acknowledgement of");
      Acknowledgement ack =
          latest
              .acknowledgement(ruleId)
              .orElseThrow(
                  () ->
                      new NotFailingException(
                          "Cannot withdraw the acknowledgement of rule "
                              + ruleId
                              + " of "
                              + dataset
                              + ": there is none after reconciliation "
                              + latest.id(),
                          latest.id()));
      ReconciliationReport updated =
          latest.withAcknowledgements(
              latest.acknowledgements().stream().filter(a -> a != ack).toList());
      reports.save(updated);
      LOG.info(
          "The acknowledgement of rule {} of {} by {} is withdrawn", ruleId, dataset, ack.by());
      return changed(updated, resultOrRefuse(updated, ruleId), ack, clock.instant());
    }
  }

  private ReconciliationReport latestOrRefuse(String dataset, String ruleId, String action) {
    return latestChecked(dataset, null)
        .orElseThrow(
            () ->
                new NotFailingException(
                    "Cannot "
                        + action
                        + " rule "
                        + ruleId
                        + " of "
                        + dataset
                        + ": the dataset has no finished reconciliation yet",
                    null));
  }

  private static RuleResult resultOrRefuse(ReconciliationReport report, String ruleId) {
    return report.results().stream()
        .filter(r -> r.ruleId().equals(ruleId))
        .findFirst()
        .orElseThrow(
            () ->
                new InvalidRequestException(
                    "rule",
                    ruleId,
                    "is no rule of reconciliation "
                        + report.id()
                        + " of "
                        + report.dataset()
                        + " (its rules: "
                        + String.join(
                            ", ", report.results().stream().map(RuleResult::ruleId).toList())
                        + ")"));
  }

  /** The rule's RuleAlerting now, recorded and evaluated like a reconciliation's. */
  private AcknowledgementChange changed(
      ReconciliationReport updated, RuleResult result, Acknowledgement ack, Instant now) {
    List<Datum> datapoints = List.of(ReconciliationDatapoints.alerting(updated, result, now));
    history.record(datapoints);
    alarms.evaluate(updated.dataset(), now, this::datapoints);
    return new AcknowledgementChange(updated, ack, datapoints);
  }

  /** The last curated snapshot a FULL run proved, this one included; null when none did. */
  private io.tidemark.model.report.CuratedSnapshot proven(ReconciliationReport done) {
    if (Verdict.proves(done)) {
      return done.curatedSnapshot();
    }
    return Verdict.lastProof(reports.list(Optional.of(done.dataset()), Integer.MAX_VALUE))
        .map(ReconciliationReport::curatedSnapshot)
        .orElse(null);
  }

  /**
   * The curated table as a run reads it.
   *
   * @param snapshot its current snapshot when the run began; null when it has none (or does not
   *     exist yet)
   * @param history the commits on main up to that snapshot
   */
  private record CuratedState(
      io.tidemark.model.report.CuratedSnapshot snapshot, IcebergTables.CommitHistory history) {}

  /** The curated table's current snapshot and main history, from one read of its metadata. */
  private static Step<CuratedState> curatedState(ReconciledDataset ds) {
    try {
      org.apache.iceberg.catalog.Catalog catalog = IcebergTables.catalog(ds.catalog());
      try {
        org.apache.iceberg.catalog.TableIdentifier id =
            org.apache.iceberg.catalog.TableIdentifier.parse(ds.spec().curatedTable());
        if (!catalog.tableExists(id)) {
          return new Step<>(new CuratedState(null, IcebergTables.CommitHistory.empty()), null);
        }
        org.apache.iceberg.Table table = catalog.loadTable(id);
        org.apache.iceberg.Snapshot current = table.currentSnapshot();
        return new Step<>(
            new CuratedState(
                current == null
                    ? null
                    : new io.tidemark.model.report.CuratedSnapshot(
                        current.snapshotId(), Instant.ofEpochMilli(current.timestampMillis())),
                IcebergTables.ingestCommits(table)),
            null);
      } finally {
        IcebergTables.close(catalog);
      }
    } catch (RuntimeException e) {
      return new Step<>(null, message(e));
    }
  }

  /**
   * After a FULL run passed, moves the contract's verified tag to the snapshot it checked, so that
   * readers who need proven data can pin it. A tag that cannot move is logged and left where it
   * was: the run's verdict stands, and the dataset's verdict shows where the tag points.
   */
  private static void moveVerifiedTag(ReconciliationReport done, ReconciledDataset ds) {
    Optional<String> tag = ds.contract().reconcile().tag();
    if (!Verdict.proves(done) || tag.isEmpty()) {
      return;
    }
    try {
      org.apache.iceberg.catalog.Catalog catalog = IcebergTables.catalog(ds.catalog());
      boolean moved;
      try {
        moved =
            IcebergTables.tag(
                IcebergTables.load(catalog, ds.spec().curatedTable()),
                tag.get(),
                done.curatedSnapshot().id());
      } finally {
        IcebergTables.close(catalog);
      }
      if (!moved) {
        LOG.info(
            "Reconciliation {} of {}: tag {} stays on a later proven snapshot than {}, the one it"
                + " proved",
            done.id(),
            ds.name(),
            tag.get(),
            done.curatedSnapshot().id());
        return;
      }
      LOG.info(
          "Reconciliation {} of {}: tag {} now on snapshot {}, the one it proved",
          done.id(),
          ds.name(),
          tag.get(),
          done.curatedSnapshot().id());
    } catch (RuntimeException e) {
      LOG.error(
          "Reconciliation {} of {} passed but could not move tag {} to snapshot {}: {}",
          done.id(),
          ds.name(),
          tag.get(),
          done.curatedSnapshot().id(),
          message(e),
          e);
    }
  }

  /**
   * A WINDOW run checks only what changed in its window, so it cannot see damage to rows that did
   * not change: a rule that the latest finished FULL run failed stays FAIL (carried over, naming
   * that run) until a FULL run passes it, instead of publishing "0 failing" and clearing its alarm.
   * A rule the window itself fails keeps the window's own result.
   */
  private List<RuleResult> carryOverFullFailures(
      ReconciliationReport window, List<RuleResult> results) {
    Optional<ReconciliationReport> full =
        reports.list(Optional.of(window.dataset()), Integer.MAX_VALUE).stream()
            .filter(
                r ->
                    r.mode() == ReconciliationMode.FULL
                        && (r.status() == ReconciliationStatus.PASSED
                            || r.status() == ReconciliationStatus.FAILED))
            .findFirst();
    if (full.isEmpty() || full.get().status() == ReconciliationStatus.PASSED) {
      return results;
    }
    Map<String, RuleResult> failed = new LinkedHashMap<>();
    for (RuleResult r : full.get().results()) {
      if (r.status() == io.tidemark.model.report.RuleStatus.FAIL) {
        failed.put(r.ruleId(), r);
      }
    }
    List<RuleResult> out = new ArrayList<>();
    for (RuleResult r : results) {
      RuleResult fullFailure = failed.get(r.ruleId());
      if (fullFailure != null && r.status() == io.tidemark.model.report.RuleStatus.PASS) {
        LOG.info(
            "Reconciliation {} of {}: rule {} passes in the window but FULL reconciliation {}"
                + " failed it; carried over until a FULL run passes",
            window.id(),
            window.dataset(),
            r.ruleId(),
            full.get().id());
        out.add(RuleResult.carriedOver(fullFailure, full.get().id()));
      } else {
        out.add(r);
      }
    }
    return out;
  }

  /**
   * Audits an ingest run's branch before the run publishes it (verified publish); see {@link
   * BranchAudits}. Not stored, not published, not alarmed on: the batch is not on {@code main}.
   *
   * @throws UnknownDatasetException for a dataset that is not configured
   * @throws InvalidRequestException when the snapshot is not one of the curated table's
   */
  public ReconciliationReport audit(String dataset, io.tidemark.model.audit.AuditRequest request) {
    // An audit runs on the caller's (an HTTP worker's) thread: its lines name the dataset, the
    // mode and the ingest run that asked, and the thread is left as it was found.
    try (org.slf4j.MDC.MDCCloseable d = org.slf4j.MDC.putCloseable("dataset", dataset);
        org.slf4j.MDC.MDCCloseable m =
            org.slf4j.MDC.putCloseable("mode", ReconciliationMode.FULL.name());
        org.slf4j.MDC.MDCCloseable r = org.slf4j.MDC.putCloseable("runId", request.runId())) {
      return audits.audit(dataset, request);
    }
  }

  /**
   * Gives up a begun reconciliation that will never execute (its executor shut down): stores it as
   * ABANDONED and frees the dataset.
   */
  public ReconciliationReport abandon(Started started, String reason) {
    ReconciliationReport r = started.report();
    try {
      ReconciliationReport abandoned =
          r.withOutcome(ReconciliationStatus.ABANDONED, finishTime(r), List.of(), 0, reason);
      reports.save(abandoned);
      return abandoned;
    } finally {
      running.remove(started.dataset().name(), r.id());
    }
  }

  /**
   * The dataset's newest ingest run reports, newest first (by end time), at most {@code limit}, and
   * the report files read that do not parse.
   *
   * @throws UnknownDatasetException for a dataset that is not configured
   */
  public RunReportSource.Listing ingestRuns(String dataset, int limit) {
    ReconciledDataset ds = datasets.get(dataset);
    if (ds == null) {
      throw new UnknownDatasetException(dataset);
    }
    return runReports.newest(ds.spec().pipeline(), dataset, limit);
  }

  /**
   * Whether the curated table's current snapshot, read from the catalog now, is proven equal to
   * raw, by which reconciliation and since when; where the verified tag points.
   *
   * @throws UnknownDatasetException for a dataset that is not configured
   */
  public Verdict verdict(String dataset) {
    ReconciledDataset ds = datasets.get(dataset);
    if (ds == null) {
      throw new UnknownDatasetException(dataset);
    }
    String tag = ds.contract().reconcile().tag().orElse(null);
    io.tidemark.model.report.CuratedSnapshot current = null;
    Long tagged = null;
    org.apache.iceberg.catalog.Catalog catalog = IcebergTables.catalog(ds.catalog());
    try {
      org.apache.iceberg.catalog.TableIdentifier id =
          org.apache.iceberg.catalog.TableIdentifier.parse(ds.spec().curatedTable());
      if (catalog.tableExists(id)) {
        org.apache.iceberg.Table table = catalog.loadTable(id);
        org.apache.iceberg.Snapshot s = table.currentSnapshot();
        if (s != null) {
          current =
              new io.tidemark.model.report.CuratedSnapshot(
                  s.snapshotId(), Instant.ofEpochMilli(s.timestampMillis()));
        }
        tagged = tag == null ? null : IcebergTables.tagged(table, tag).orElse(null);
      }
    } finally {
      IcebergTables.close(catalog);
    }
    return Verdict.of(
        dataset, current, tag, tagged, reports.list(Optional.of(dataset), Integer.MAX_VALUE));
  }

  /** Every stored report, of runs and of reconciliations, that does not parse and is left out. */
  public List<UnreadableReport> unreadableReports() {
    List<UnreadableReport> out = new ArrayList<>(reports.unreadable());
    out.addAll(runReports.unreadable());
    return out;
  }

  /**
   * The rows of the dataset's quarantine table by reason code.
   *
   * @throws UnknownDatasetException for a dataset that is not configured
   */
  public io.tidemark.reconcile.storage.QuarantineCounts quarantine(String dataset) {
    ReconciledDataset ds = datasets.get(dataset);
    if (ds == null) {
      throw new UnknownDatasetException(dataset);
    }
    org.apache.iceberg.catalog.Catalog catalog = IcebergTables.catalog(ds.catalog());
    try {
      return io.tidemark.reconcile.storage.QuarantineCounts.read(
          catalog, ds.spec().quarantineTable());
    } finally {
      IcebergTables.close(catalog);
    }
  }

  /**
   * The key columns' types in the dataset's newest raw files, read through {@code files} (the
   * curated table's, which reaches the raw location): what the raw table's DDL declares them as.
   */
  public Map<String, String> rawKeyTypes(String dataset, org.apache.iceberg.io.FileIO files) {
    ReconciledDataset ds = datasets.get(dataset);
    if (ds == null) {
      throw new UnknownDatasetException(dataset);
    }
    return io.tidemark.reconcile.storage.RawKeyTypes.read(
        ds.spec(), files, engines.get(ds.engine()).listRawFiles(ds.contract()).files());
  }

  /** Evaluates every alarm of every dataset now. */
  public List<AlarmStatus> alarms() {
    return alarms.evaluate(clock.instant(), this::datapoints);
  }

  /** The definitions the service evaluates for a dataset. */
  public List<AlarmDefinition> alarmDefinitions(String dataset) {
    return alarms.definitions(dataset);
  }

  /**
   * An alarm's datapoints: the reconciler's own from its history; the ingest job's derived from the
   * run reports it wrote (the same values the job publishes).
   */
  private List<Datum> datapoints(AlarmDefinition alarm, Instant from, Instant to) {
    if (alarm.metric().emitter() == Emitter.RECONCILER) {
      return history.series(alarm.metric(), alarm.dimensions()).stream()
          .filter(d -> d.timestamp().isAfter(from) && !d.timestamp().isAfter(to))
          .toList();
    }
    String pipeline = alarm.dimensions().get(io.tidemark.model.metrics.Dimension.PIPELINE);
    String dataset = alarm.dimensions().get(io.tidemark.model.metrics.Dimension.DATASET);
    List<Datum> out = new ArrayList<>();
    for (IngestRunReport r : runReports.read(pipeline, dataset, from, to).reports()) {
      for (Datum d : IngestRunMetrics.datums(r)) {
        if (d.metric() == alarm.metric() && d.dimensions().equals(alarm.dimensions())) {
          out.add(d);
        }
      }
    }
    return out;
  }

  private Instant finishTime(ReconciliationReport report) {
    Instant now = clock.instant();
    return now.isBefore(report.startedAt()) ? report.startedAt() : now;
  }

  private static String summary(List<RuleResult> results) {
    StringBuilder sb = new StringBuilder();
    for (RuleResult r : results) {
      sb.append(sb.isEmpty() ? "" : ", ").append(r.ruleId()).append('=').append(r.status());
    }
    return sb.toString();
  }

  private static String message(Throwable e) {
    String m = e.getMessage();
    return m == null || m.isBlank() ? e.getClass().getSimpleName() : m;
  }

  private static String newId(Instant now) {
    byte[] bytes = new byte[4];
    RANDOM.nextBytes(bytes);
    return ID_TIME.format(now) + "-" + HexFormat.of().formatHex(bytes);
  }

  /** Builds a {@link Reconciler}. */
  public static final class Builder {
    private final Path stateRoot;
    private final Map<String, ReconciledDataset> datasets = new LinkedHashMap<>();
    private final Map<String, ReconciliationEngine> engines = new LinkedHashMap<>();
    private final List<Listener> listeners = new ArrayList<>();
    private ReportStore reports;
    private RunReportSource runReports;
    private Clock clock = Clock.systemUTC();
    private JsonNode alarmTemplate;
    private final Map<String, java.time.Duration> unprocessedFileGrace = new LinkedHashMap<>();

    private Builder(Path stateRoot) {
      this.stateRoot = Objects.requireNonNull(stateRoot, "stateRoot is null");
      engine(new DuckDbEngine());
    }

    public Builder dataset(ReconciledDataset dataset) {
      datasets.put(dataset.name(), dataset);
      return this;
    }

    /** A dataset of a contract on the embedded engine, with its contract's rules. */
    public Builder dataset(DatasetContract contract, CatalogSpec catalog) {
      return dataset(new ReconciledDataset(contract, catalog, new DuckDbEngine().name()));
    }

    /** Adds (or replaces) an engine, found by its name. */
    public Builder engine(ReconciliationEngine engine) {
      engines.put(engine.name(), engine);
      return this;
    }

    public Builder reportStore(ReportStore store) {
      this.reports = store;
      return this;
    }

    public Builder runReports(RunReportSource source) {
      this.runReports = source;
      return this;
    }

    public Builder clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock is null");
      return this;
    }

    /** The alarm template; default: the copy of {@code alerts/tidemark-alarms.json} bundled. */
    public Builder alarmTemplate(JsonNode template) {
      this.alarmTemplate = template;
      return this;
    }

    public Builder alarmTemplate(Path template) {
      return alarmTemplate(AlarmDefinitions.read(template));
    }

    /**
     * How old a raw file of the dataset must be before {@code unprocessed_files} expects a
     * committed batch to have read it; default: the dataset's {@code unprocessedFileGrace}.
     */
    public Builder unprocessedFileGrace(String dataset, java.time.Duration grace) {
      Objects.requireNonNull(grace, "grace is null");
      if (grace.isNegative()) {
        throw new IllegalArgumentException(
            "Cannot set the unprocessed-file grace of dataset "
                + dataset
                + ": "
                + grace
                + " is negative");
      }
      unprocessedFileGrace.put(Objects.requireNonNull(dataset, "dataset is null"), grace);
      return this;
    }

    public Builder listener(Listener listener) {
      listeners.add(Objects.requireNonNull(listener, "listener is null"));
      return this;
    }

    public Reconciler build() {
      return new Reconciler(this);
    }
  }
}
