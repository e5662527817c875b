package io.tidemark.reconcile.service;

import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.model.audit.AuditRequest;
import io.tidemark.model.report.ReconciliationReport;
import io.tidemark.model.report.ReconciliationStatus;
import io.tidemark.reconcile.engine.EngineRequest;
import io.tidemark.reconcile.engine.Observations;
import io.tidemark.reconcile.engine.ReconciliationEngine;
import io.tidemark.reconcile.engine.duckdb.DuckDbEngine;
import io.tidemark.reconcile.fixtures.CustomersScenario;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Audits run on their callers' threads (the HTTP workers), yet no more of them compare at once than
 * the service runs reconciliations: ingest runs that all ask at the same hour wait their turn
 * instead of holding every FULL comparison in memory together. Every one still gets its verdict.
 */
class TestAuditConcurrency {
  @TempDir Path dir;

  @Test
  void auditsOfOneDatasetCompareOneAtATimeAndEachGetsItsVerdict() throws Exception {
    Instant now = Instant.now().plus(Duration.ofMinutes(5)).truncatedTo(ChronoUnit.SECONDS);
    try (CustomersScenario s = CustomersScenario.clean(dir, now)) {
      DuckDbEngine duckDb = new DuckDbEngine();
      AtomicInteger inFlight = new AtomicInteger();
      AtomicInteger most = new AtomicInteger();
      ReconciliationEngine counting =
          new ReconciliationEngine() {
            @Override
            public String name() {
              return duckDb.name();
            }

            @Override
            public Observations observe(EngineRequest request) {
              most.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
              try {
                // Long enough that the other audits arrive while this one compares.
                Thread.sleep(400);
                return duckDb.observe(request);
              } catch (InterruptedException e) {
                throw new IllegalStateException(e);
              } finally {
                inFlight.decrementAndGet();
              }
            }
          };
      Reconciler reconciler =
          Reconciler.builder(s.stateRoot)
              .dataset(s.contract(), s.catalog())
              .engine(counting)
              .clock(Clock.fixed(now, ZoneOffset.UTC))
              .build();
      long head = s.curated.table().currentSnapshot().snapshotId();
      ExecutorService callers = Executors.newFixedThreadPool(3);
      try {
        List<Future<ReconciliationReport>> audits = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
          AuditRequest request =
              new AuditRequest("run-" + i, "b" + i, "tidemark_run_" + i, head, now, now);
          audits.add(callers.submit(() -> reconciler.audit("customers", request)));
        }
        for (Future<ReconciliationReport> a : audits) {
          assertThat(a.get().status()).isEqualTo(ReconciliationStatus.PASSED);
        }
      } finally {
        callers.shutdownNow();
      }
      assertThat(most.get())
          .as("audits comparing at once, for a service of one dataset")
          .isEqualTo(BranchAudits.concurrency(1))
          .isEqualTo(1);
    }
  }
}
