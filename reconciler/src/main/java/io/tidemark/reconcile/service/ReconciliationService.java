package io.tidemark.reconcile.service;

import io.quarkus.arc.All;
import io.quarkus.runtime.Startup;
import io.tidemark.model.report.ReconciliationMode;
import io.tidemark.model.report.ReconciliationReport;
import io.tidemark.reconcile.alarms.AlarmStatus;
import io.tidemark.reconcile.config.ReconciledDataset;
import io.tidemark.reconcile.config.ReconcilerSettings;
import io.tidemark.reconcile.config.TidemarkConfig;
import io.tidemark.reconcile.engine.ReconciliationEngine;
import io.tidemark.reconcile.metrics.MeterPublisher;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;

/**
 * The service's reconciliations: validates the configuration at start-up (a bad value stops the
 * start with a message naming its key), marks runs cut off by the last shutdown ABANDONED, and runs
 * reconciliations in the background, one at a time per dataset.
 */
@Startup
@ApplicationScoped
public class ReconciliationService {
  private static final Logger LOG = Logger.getLogger(ReconciliationService.class);

  /** Prometheus: {@code tidemark_unreadable_reports{kind="run"|"reconciliation"}}. */
  public static final String UNREADABLE_REPORTS_GAUGE = "tidemark.unreadable.reports";

  private final ReconcilerSettings settings;
  private final Reconciler reconciler;
  private final ExecutorService executor;
  private final MeterPublisher meters;

  public ReconciliationService(
      TidemarkConfig config,
      @All List<ReconciliationEngine> engines,
      MeterPublisher meters,
      io.tidemark.reconcile.events.EventPublisher events,
      io.tidemark.reconcile.lineage.LineagePublisher lineage,
      StateStores stateStores,
      @ConfigProperty(name = "quarkus.http.host", defaultValue = ReconcilerSettings.LOOPBACK)
          String httpHost) {
    this.meters = meters;
    Set<String> names =
        engines.stream().map(ReconciliationEngine::name).collect(Collectors.toSet());
    this.settings = ReconcilerSettings.from(config, names, httpHost).requireLocations();
    Reconciler.Builder b =
        stateStores
            .builder(settings, config)
            .listener((r, datapoints) -> meters.publish(datapoints))
            .listener((r, datapoints) -> events.finished(r))
            .listener((r, datapoints) -> lineage.finished(r, settings.datasets().get(r.dataset())));
    engines.forEach(b::engine);
    settings.datasets().values().forEach(b::dataset);
    config.alarms().template().ifPresent(b::alarmTemplate);
    this.reconciler = b.build();
    List<ReconciliationReport> abandoned = reconciler.recover();
    for (String kind :
        List.of(
            io.tidemark.reconcile.report.UnreadableReport.RUN,
            io.tidemark.reconcile.report.UnreadableReport.RECONCILIATION)) {
      meters.serviceGauge(
          UNREADABLE_REPORTS_GAUGE,
          "Stored reports left out because they do not parse (GET /api/unreadable-reports)",
          "kind",
          kind,
          () -> reconciler.unreadableReports().stream().filter(u -> u.kind().equals(kind)).count());
    }
    AtomicInteger n = new AtomicInteger();
    this.executor =
        Executors.newFixedThreadPool(
            BranchAudits.concurrency(settings.datasets().size()),
            r -> {
              Thread t = new Thread(r, "reconciliation-" + n.incrementAndGet());
              t.setDaemon(true);
              return t;
            });
    LOG.infof(
        "Reconciler ready: %s; %d run(s) of the last shutdown marked ABANDONED",
        settings, abandoned.size());
  }

  public ReconcilerSettings settings() {
    return settings;
  }

  public Map<String, ReconciledDataset> datasets() {
    return settings.datasets();
  }

  public Reconciler reconciler() {
    return reconciler;
  }

  /**
   * Starts a reconciliation in the background.
   *
   * @return its RUNNING report
   * @throws UnknownDatasetException, InvalidRequestException, AlreadyRunningException
   */
  public ReconciliationReport start(
      String dataset, ReconciliationMode mode, Instant from, Instant to, String trigger) {
    return launch(dataset, mode, from, to, trigger).running();
  }

  /**
   * A reconciliation started in the background.
   *
   * @param running its report as it started (RUNNING)
   * @param end its finished report, once it has one
   */
  public record Launched(ReconciliationReport running, Future<ReconciliationReport> end) {
    /**
     * Its finished report, or empty when it did not finish within {@code wait} (it goes on; its
     * report is found by id later).
     */
    public Optional<ReconciliationReport> await(Duration wait) {
      try {
        return Optional.of(end.get(wait.toNanos(), TimeUnit.NANOSECONDS));
      } catch (TimeoutException e) {
        return Optional.empty();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return Optional.empty();
      } catch (ExecutionException e) {
        // execute() stores and returns an ERROR report rather than throwing: this is a bug.
        throw new IllegalStateException(
            "Reconciliation " + running.id() + " broke: " + e.getCause(), e.getCause());
      }
    }
  }

  /**
   * Starts a reconciliation in the background, for a caller that may wait for its end.
   *
   * @throws UnknownDatasetException, InvalidRequestException, AlreadyRunningException
   */
  public Launched launch(
      String dataset, ReconciliationMode mode, Instant from, Instant to, String trigger) {
    Reconciler.Started started = reconciler.begin(dataset, mode, from, to, trigger);
    try {
      return new Launched(started.report(), executor.submit(() -> reconciler.execute(started)));
    } catch (RejectedExecutionException e) {
      reconciler.abandon(started, "The service is shutting down");
      throw new IllegalStateException("Cannot start a reconciliation: the service is stopping", e);
    }
  }

  public Optional<ReconciliationReport> find(String id) {
    return reconciler.reports().find(id);
  }

  public List<ReconciliationReport> list(Optional<String> dataset, int limit) {
    return reconciler.reports().list(dataset, limit);
  }

  public Optional<String> running(String dataset) {
    return reconciler.running(dataset);
  }

  public io.tidemark.reconcile.report.RunReportSource.Listing ingestRuns(
      String dataset, int limit) {
    return reconciler.ingestRuns(dataset, limit);
  }

  /** Every stored report that does not parse and is left out of the answers. */
  public List<io.tidemark.reconcile.report.UnreadableReport> unreadableReports() {
    return reconciler.unreadableReports();
  }

  public io.tidemark.reconcile.storage.QuarantineCounts quarantine(String dataset) {
    return reconciler.quarantine(dataset);
  }

  public java.util.Map<String, String> rawKeyTypes(
      String dataset, org.apache.iceberg.io.FileIO files) {
    return reconciler.rawKeyTypes(dataset, files);
  }

  public Verdict verdict(String dataset) {
    return reconciler.verdict(dataset);
  }

  /** Acknowledges a failing rule (see {@link Reconciler#acknowledge}) and publishes the change. */
  public io.tidemark.model.report.Acknowledgement acknowledge(
      String dataset, String rule, String by, String note, String seen) {
    Reconciler.AcknowledgementChange c = reconciler.acknowledge(dataset, rule, by, note, seen);
    meters.publish(c.datapoints());
    return c.acknowledgement();
  }

  /** Withdraws an acknowledgement (see {@link Reconciler#withdraw}) and publishes the change. */
  public io.tidemark.model.report.Acknowledgement withdraw(String dataset, String rule) {
    Reconciler.AcknowledgementChange c = reconciler.withdraw(dataset, rule);
    meters.publish(c.datapoints());
    return c.acknowledgement();
  }

  public List<AlarmStatus> alarms() {
    return reconciler.alarms();
  }

  @PreDestroy
  void stop() {
    executor.shutdownNow();
    try {
      if (!executor.awaitTermination(10, TimeUnit.SECONDS)) {
        LOG.warn("Reconciliations still running at shutdown: the next start marks them ABANDONED");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
