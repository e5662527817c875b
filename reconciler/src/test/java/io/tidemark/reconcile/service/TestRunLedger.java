package io.tidemark.reconcile.service;

import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.model.config.RuleKind;
import io.tidemark.model.config.RuleSpec;
import io.tidemark.model.report.IngestStatus;
import io.tidemark.model.report.ReconciliationMode;
import io.tidemark.model.report.RuleResult;
import io.tidemark.model.report.RuleStatus;
import io.tidemark.reconcile.fixtures.CuratedTable;
import io.tidemark.reconcile.fixtures.CustomersScenario;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * run_accounting matches the ingest commits on the curated table's history (their snapshot
 * summaries carry run and batch ids) with the run reports, both ways. The fixture's "now" is a few
 * minutes after the wall clock, since Iceberg stamps commits with the wall clock.
 */
class TestRunLedger {
  @TempDir Path dir;
  private CustomersScenario s;
  private Instant now;

  @BeforeEach
  void clean() {
    now = Instant.now().plus(Duration.ofMinutes(5)).truncatedTo(ChronoUnit.SECONDS);
    s = CustomersScenario.clean(dir, now);
  }

  @AfterEach
  void close() {
    s.close();
  }

  private RuleResult runAccounting() {
    return runAccounting(ReconciliationMode.FULL, null);
  }

  private RuleResult runAccounting(ReconciliationMode mode, Instant from) {
    return Reconciler.builder(s.stateRoot)
        .dataset(s.contract(List.of(RuleSpec.of(RuleKind.RUN_ACCOUNTING))), s.catalog())
        .clock(Clock.fixed(now, ZoneOffset.UTC))
        .build()
        .run("customers", mode, from, mode == ReconciliationMode.FULL ? null : now, "test")
        .results()
        .get(0);
  }

  @Test
  void everyCommitHasItsReportAndEveryReportItsCommit() {
    RuleResult r = runAccounting();
    assertThat(r.status()).as(r.reason()).isEqualTo(RuleStatus.PASS);
  }

  @Test
  void aDeletedRunReportIsCaughtFromTheCommitItLeftBehind() throws Exception {
    try (var files = Files.walk(s.stateRoot.resolve("_runs"))) {
      for (Path f : files.filter(p -> p.toString().endsWith(".json")).toList()) {
        Files.delete(f);
      }
    }

    RuleResult r = runAccounting();

    assertThat(r.status()).isEqualTo(RuleStatus.FAIL);
    assertThat(r.sampleKeys()).containsExactly(CustomersScenario.RUN_ID);
    assertThat(r.reason())
        .contains(
            CustomersScenario.RUN_ID
                + ": committed batch batch-"
                + CustomersScenario.RUN_ID
                + " at ")
        .contains("but no run report of it exists");
  }

  @Test
  void aReportOfABatchNoCommitHoldsIsCaught() {
    s.writeRunReport(
        "run-0002", now.minus(Duration.ofMinutes(1)), CustomersScenario.consistentCounts());

    RuleResult r = runAccounting();

    assertThat(r.status()).isEqualTo(RuleStatus.FAIL);
    assertThat(r.sampleKeys()).containsExactly("run-0002");
    assertThat(r.reason())
        .contains(
            "run-0002: reports batch batch-run-0002 committed, but no commit on the curated"
                + " table's main history holds it");
  }

  @Test
  void aCommitWhoseRunDiedBeforeItsReportIsAccountedForByTheRetryThatFoundIt() {
    s.curated
        .asIngestRun("run-0003", "batch-run-0003")
        .upsert(
            List.of(
                new CuratedTable.Row(
                    CustomersScenario.key(19),
                    CustomersScenario.name(19, 1),
                    CustomersScenario.email(19, 1),
                    s.ago(3))));
    s.writeRunReport(
        "run-0004",
        "batch-run-0003",
        IngestStatus.ALREADY_COMMITTED,
        now.minus(Duration.ofMinutes(1)),
        CustomersScenario.consistentCounts());

    RuleResult r = runAccounting();

    assertThat(r.status()).as(r.reason()).isEqualTo(RuleStatus.PASS);
  }

  @Test
  void aWindowAfterTheLastPassSeesMainRolledBackBehindASucceededRun() {
    long before = s.curated.table().currentSnapshot().snapshotId();
    s.curated
        .asIngestRun("run-0002", "batch-run-0002")
        .upsert(
            List.of(
                new CuratedTable.Row(
                    CustomersScenario.key(19),
                    CustomersScenario.name(19, 2),
                    CustomersScenario.email(19, 2),
                    s.ago(1))));
    s.writeRunReport(
        "run-0002", now.minus(Duration.ofMinutes(90)), CustomersScenario.consistentCounts());
    // A pass after run-0002 finished, then main is set back one ingest commit.
    Instant lastPass = now.minus(Duration.ofMinutes(60));
    s.curated.table().manageSnapshots().rollbackTo(before).commit();

    RuleResult r = runAccounting(ReconciliationMode.WINDOW, lastPass);

    assertThat(r.status()).as(r.reason()).isEqualTo(RuleStatus.FAIL);
    assertThat(r.sampleKeys()).containsExactly("run-0002");
    assertThat(r.reason())
        .isEqualTo(
            "1 of 2 runs do not account for their records, files or commits: run-0002: reports"
                + " batch batch-run-0002 committed, but no commit on the curated table's main"
                + " history holds it");
  }

  @Test
  void aCommitWithoutAReportCountsItsRunAmongTheRunsChecked() throws Exception {
    try (var files = Files.walk(s.stateRoot.resolve("_runs"))) {
      for (Path f : files.filter(p -> p.toString().endsWith(".json")).toList()) {
        Files.delete(f);
      }
    }
    var commit = s.curated.table().currentSnapshot();

    RuleResult r = runAccounting(ReconciliationMode.WINDOW, now.minus(Duration.ofHours(1)));

    assertThat(r.status()).isEqualTo(RuleStatus.FAIL);
    assertThat(r.reason())
        .isEqualTo(
            "1 of 1 runs do not account for their records, files or commits: run-0001: committed"
                + " batch batch-run-0001 at "
                + Instant.ofEpochMilli(commit.timestampMillis())
                + " (snapshot "
                + commit.snapshotId()
                + ") but no run report of it exists");
  }
}
