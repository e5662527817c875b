package io.tidemark.reconcile.service;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.StartupEvent;
import io.quarkus.scheduler.Scheduled;
import io.quarkus.scheduler.Scheduler;
import io.tidemark.model.report.ReconciliationMode;
import io.tidemark.reconcile.config.InvalidConfigException;
import io.tidemark.reconcile.config.ReconciledDataset;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import org.jboss.logging.Logger;

/**
 * One cron job per dataset, each starting a reconciliation in the dataset's {@code schedule-mode}
 * (FULL unless configured): FULL catches late files with old change markers and damage to rows that
 * did not change; WINDOW is cheaper (Athena bytes scanned) and only checks what changed since the
 * last passed run. A trigger that finds the dataset's previous run still going is skipped and
 * counted ({@value #SKIPPED_METER}), never queued.
 */
@ApplicationScoped
public class ScheduledReconciliations {
  public static final String SKIPPED_METER = "tidemark.reconciliations.skipped";
  public static final String TRIGGER = "schedule";
  private static final Logger LOG = Logger.getLogger(ScheduledReconciliations.class);

  /** What one trigger did. */
  public enum Outcome {
    STARTED,
    SKIPPED
  }

  private final Scheduler scheduler;
  private final ReconciliationService service;
  private final MeterRegistry registry;

  public ScheduledReconciliations(
      Scheduler scheduler, ReconciliationService service, MeterRegistry registry) {
    this.scheduler = scheduler;
    this.service = service;
    this.registry = registry;
  }

  /** The job id of a dataset's schedule. */
  public static String jobId(String dataset) {
    return "reconcile-" + dataset;
  }

  void schedule(@Observes StartupEvent event) {
    for (ReconciledDataset ds : service.datasets().values()) {
      skipped(ds.name());
      if (!ds.scheduled()) {
        continue;
      }
      try {
        scheduler
            .newJob(jobId(ds.name()))
            .setCron(ds.cron())
            .setConcurrentExecution(Scheduled.ConcurrentExecution.SKIP)
            .setTask(execution -> trigger(ds.name()))
            .schedule();
      } catch (RuntimeException e) {
        throw new InvalidConfigException(
            "tidemark.datasets." + ds.name() + ".cron",
            ds.cron(),
            "not a valid cron: " + e.getMessage());
      }
      LOG.infof(
          "Dataset %s reconciles in %s mode on cron '%s'", ds.name(), ds.scheduleMode(), ds.cron());
    }
  }

  /** Starts a scheduled reconciliation, or skips it when the dataset's last one still runs. */
  public Outcome trigger(String dataset) {
    try {
      ReconciledDataset ds = service.datasets().get(dataset);
      ReconciliationMode mode = ds == null ? ReconciliationMode.FULL : ds.scheduleMode();
      service.start(dataset, mode, null, null, TRIGGER);
      return Outcome.STARTED;
    } catch (AlreadyRunningException e) {
      skipped(dataset).increment();
      LOG.warnf(
          "Scheduled reconciliation of %s skipped: %s is still running", dataset, e.runningId());
      return Outcome.SKIPPED;
    }
  }

  private Counter skipped(String dataset) {
    return Counter.builder(SKIPPED_METER)
        .description("Scheduled reconciliations skipped because the previous one still ran")
        .tag("dataset", dataset)
        .register(registry);
  }
}
