package io.tidemark.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.ingest.audit.HeldBatch;
import io.tidemark.ingest.audit.VerifiedPublish;
import io.tidemark.ingest.commit.HeldBranches;
import io.tidemark.ingest.config.IngestSettings;
import io.tidemark.ingest.kernel.FailurePoint;
import io.tidemark.ingest.kernel.FailurePoints;
import io.tidemark.ingest.run.IngestJob;
import io.tidemark.ingest.run.IngestOutcome;
import io.tidemark.ingest.tables.OutputTables;
import io.tidemark.model.report.BatchAudit;
import io.tidemark.model.report.IngestErrorCode;
import io.tidemark.model.report.IngestRunReport;
import io.tidemark.model.report.IngestStatus;
import io.tidemark.model.report.ReconciliationMode;
import io.tidemark.model.report.ReconciliationReport;
import io.tidemark.model.report.ReconciliationStatus;
import io.tidemark.model.report.RuleResult;
import io.tidemark.model.testing.raw.CustomerScenario;
import io.tidemark.model.testing.raw.Delivery;
import io.tidemark.model.testing.raw.ExpectedState;
import io.tidemark.model.testing.raw.RawFile;
import io.tidemark.model.testing.raw.RawRecord;
import io.tidemark.reconcile.service.Reconciler;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.function.Function;
import org.apache.iceberg.Table;
import org.apache.spark.sql.SparkSession;

/**
 * Verified publish end to end, on whichever engine audits: the job writes each batch to its branch,
 * the reconciler audits the branch's head, and main moves only on PASSED. Faults are injected on
 * the branch between the MERGE and the publish, as a bug in the job's write would leave them:
 *
 * <ol>
 *   <li>a commit made to the run's branch while its audit runs is not published (the audited head
 *       is, or nothing); a clean batch is audited, PASSED, and published;
 *   <li>a batch whose branch got an altered value and a lost row fails its audit: exit 5, nothing
 *       published, the branch held, the report naming the failing rules and keys;
 *   <li>the next run refuses while the batch is held (exit 2, naming the branch);
 *   <li>raw moves on (the next day lands), the branch is repaired, and a retry audits it again
 *       against raw as the held run found it: PASSED, published, the later files left to the next
 *       run, which ingests them;
 *   <li>a batch whose branch got a duplicated row is held, then discarded: the run drops it, reads
 *       its files again and publishes them, audited;
 *   <li>a reconciliation of main with every rule (runs, files, commits) passes: the held and
 *       retried runs left a consistent ledger.
 * </ol>
 */
public final class VerifiedPublishScenario {
  static final int CUSTOMERS = 300;

  private final Pipeline p;
  private final SparkSession spark;
  private final List<Delivery> days;

  public VerifiedPublishScenario(Pipeline p, SparkSession spark, long seed) {
    this.p = p;
    this.spark = spark;
    // The scenario's calendar ends two days from now, so that its fifth day, the last one run
    // here, is recent: main stays fresh.
    this.days =
        new CustomerScenario(CUSTOMERS, seed, LocalDate.now(ZoneOffset.UTC).plusDays(2))
            .deliveries();
  }

  /**
   * Runs the scenario; {@code auditors} gives the reconciler that audits, once the curated table
   * exists (an engine on Trino reads its types when it starts).
   */
  public void run(Function<Pipeline, Reconciler> auditors, String engine) {
    // Day 1, the initial export, published without an audit: the table exists from here on.
    p.land(days.get(0));
    assertThat(p.ingest(FailurePoints.none()).report().status()).isEqualTo(IngestStatus.SUCCEEDED);
    Reconciler auditor = auditors.apply(p);
    VerifiedPublish verified = VerifiedPublish.by(auditor::audit, "the reconciler on " + engine);
    IngestSettings settings = p.ingestSettings().withPublish(verified);

    // 1. A clean batch: audited, PASSED, published. But first, a commit made to the run's branch
    // while its audit runs: what was audited is what would be published, so nothing is.
    p.land(days.get(1));
    long beforeDay2 = mainSnapshot();
    String meddledKey = changedKeys(days.get(1)).get(0);
    VerifiedPublish meddled =
        VerifiedPublish.by(
            (dataset, request) -> {
              spark.sql(
                  "DELETE FROM "
                      + p.sparkTable()
                      + ".branch_"
                      + request.branch()
                      + " WHERE customer_id = '"
                      + meddledKey
                      + "'");
              return auditor.audit(dataset, request);
            },
            "the reconciler on " + engine);
    IngestOutcome moved = run(p.ingestSettings().withPublish(meddled), FailurePoints.none());
    assertThat(moved.exitCode()).as(moved.report().error()).isEqualTo(1);
    assertThat(moved.report().errorCode()).isEqualTo(IngestErrorCode.AUDIT_UNAVAILABLE);
    assertThat(moved.report().error()).contains("moved from the audited snapshot");
    assertThat(mainSnapshot()).as("nothing published").isEqualTo(beforeDay2);
    assertThat(heldBranches()).isEmpty();

    IngestRunReport clean = run(settings, FailurePoints.none()).report();
    assertThat(clean.status()).as(clean.error()).isEqualTo(IngestStatus.SUCCEEDED);
    assertThat(clean.audit()).isNotNull();
    assertThat(clean.audit().status()).isEqualTo(ReconciliationStatus.PASSED);
    assertThat(clean.audit().engine()).isEqualTo(engine);
    assertThat(clean.audit().snapshotId())
        .as("the snapshot audited is the one published")
        .isEqualTo(clean.snapshotId());
    assertThat(p.curated()).isEqualTo(expected());

    // 2. A value altered on the branch: the audit fails, nothing is published, the branch held.
    Map<String, ExpectedState.Row> beforeDay3 = expected();
    long mainBefore = mainSnapshot();
    p.land(days.get(2));
    String altered = changedKeys(days.get(2)).get(0);
    String[] original = new String[1];
    IngestOutcome held =
        run(
            settings,
            onTheBranch(
                branch -> {
                  original[0] = email(branch, altered);
                  spark.sql(
                      "UPDATE "
                          + branch
                          + " SET email = 'altered@example.com' WHERE customer_id = '"
                          + altered
                          + "'");
                }));
    IngestRunReport heldReport = held.report();
    assertThat(held.exitCode()).as("a failed audit's own exit code").isEqualTo(5);
    assertThat(heldReport.status()).isEqualTo(IngestStatus.FAILED);
    assertThat(heldReport.errorCode()).isEqualTo(IngestErrorCode.AUDIT_FAILED);
    BatchAudit audit = heldReport.audit();
    assertThat(audit.status()).isEqualTo(ReconciliationStatus.FAILED);
    assertThat(ruleIds(audit)).containsExactly("value_mismatches");
    assertThat(audit.failedRules().get(0).sampleKeys()).containsExactly(altered);
    assertThat(audit.branch()).startsWith(HeldBranches.PREFIX);
    assertThat(heldReport.error())
        .contains("value_mismatches", altered, audit.branch(), "--held-batch retry");
    assertThat(mainSnapshot()).as("main did not move").isEqualTo(mainBefore);
    assertThat(p.curated()).as("main holds what it held").isEqualTo(beforeDay3);
    assertThat(heldBranches()).containsExactly(audit.branch());

    // 3. The next run refuses while the batch is held.
    IngestOutcome refused = run(settings, FailurePoints.none());
    assertThat(refused.exitCode()).isEqualTo(2);
    assertThat(refused.report().errorCode()).isEqualTo(IngestErrorCode.HELD_BATCH);
    assertThat(refused.report().error()).contains(audit.branch(), heldReport.batchId());
    assertThat(mainSnapshot()).isEqualTo(mainBefore);

    // 4. Raw moves on, the branch is repaired, the retry audits raw as the held run found it.
    Map<String, ExpectedState.Row> afterDay3 = expected();
    p.land(days.get(3));
    spark.sql(
        "UPDATE "
            + p.sparkTable()
            + ".branch_"
            + audit.branch()
            + " SET email = '"
            + original[0]
            + "' WHERE customer_id = '"
            + altered
            + "'");
    IngestRunReport retried =
        run(settings.withPublish(verified.onHeld(HeldBatch.RETRY)), FailurePoints.none()).report();
    assertThat(retried.status()).as(retried.error()).isEqualTo(IngestStatus.SUCCEEDED);
    assertThat(retried.batchId()).isEqualTo(heldReport.batchId());
    assertThat(retried.inputFiles()).isEqualTo(heldReport.inputFiles());
    assertThat(retried.audit().status()).isEqualTo(ReconciliationStatus.PASSED);
    assertThat(retried.audit().rawArrivedBy())
        .as("raw as the held run found it")
        .isEqualTo(audit.rawArrivedBy());
    assertThat(retried.snapshotId())
        .as("the repaired head, audited and published")
        .isEqualTo(retried.audit().snapshotId())
        .isNotEqualTo(audit.snapshotId());
    assertThat(retried.counts().recordsWritten()).isGreaterThan(0);
    assertThat(retried.warnings())
        .anyMatch(w -> w.startsWith("2 commit(s) made on branch " + audit.branch()));
    assertThat(heldBranches()).isEmpty();
    assertThat(p.curated()).as("day 3 published, day 4 not yet").isEqualTo(afterDay3);
    // A held branch main already holds (a retry that published but could not drop it) holds
    // nothing back: the next run drops it and goes on.
    spark.sql(
        "ALTER TABLE "
            + p.sparkTable()
            + " CREATE BRANCH "
            + HeldBranches.PREFIX
            + "published AS OF VERSION "
            + mainSnapshot());
    IngestRunReport day4 = run(settings, FailurePoints.none()).report();
    assertThat(day4.status()).as(day4.error()).isEqualTo(IngestStatus.SUCCEEDED);
    assertThat(day4.warnings())
        .contains(
            "Dropped held branch(es) "
                + HeldBranches.PREFIX
                + "published: main already holds them, they were published");
    assertThat(heldBranches()).isEmpty();
    assertThat(day4.audit().status()).isEqualTo(ReconciliationStatus.PASSED);
    assertThat(p.curated()).isEqualTo(expected());

    // 5. A row lost and another duplicated on the branch: held, then discarded and redone.
    Map<String, ExpectedState.Row> beforeDay5 = expected();
    p.land(days.get(4));
    List<String> keys = changedKeys(days.get(4));
    IngestOutcome damaged =
        run(
            settings,
            onTheBranch(
                branch -> {
                  spark.sql("DELETE FROM " + branch + " WHERE customer_id = '" + keys.get(0) + "'");
                  spark.sql(
                      "INSERT INTO "
                          + branch
                          + " SELECT * FROM "
                          + branch
                          + " WHERE customer_id = '"
                          + keys.get(1)
                          + "'");
                }));
    assertThat(damaged.exitCode()).isEqualTo(5);
    // One row lost and one doubled: the count still matches; the keys do not.
    assertThat(ruleIds(damaged.report().audit())).containsExactly("duplicate_keys", "missing_keys");
    assertThat(sample(damaged.report().audit(), "missing_keys")).containsExactly(keys.get(0));
    assertThat(sample(damaged.report().audit(), "duplicate_keys")).containsExactly(keys.get(1));
    assertThat(p.curated()).isEqualTo(beforeDay5);
    IngestRunReport redone =
        run(settings.withPublish(verified.onHeld(HeldBatch.DISCARD)), FailurePoints.none())
            .report();
    assertThat(redone.status()).as(redone.error()).isEqualTo(IngestStatus.SUCCEEDED);
    assertThat(redone.batchId()).isEqualTo(damaged.report().batchId());
    assertThat(redone.audit().status()).isEqualTo(ReconciliationStatus.PASSED);
    assertThat(redone.warnings()).anyMatch(w -> w.startsWith("Discarded batch"));
    assertThat(heldBranches()).isEmpty();
    assertThat(p.curated()).isEqualTo(expected());

    // 6. Main, reconciled with every rule: the data and the ledger of runs hold; the two commits
    // made by hand on the held branch (the fault and its repair), published by the retry, are
    // named as commits no run made.
    ReconciliationReport full =
        TestFaultInjection.reconciler(p, p.stateRoot().resolve("verify-main"))
            .run(Pipeline.DATASET, ReconciliationMode.FULL, null, null, "test");
    assertThat(TestFaultInjection.failing(full))
        .as("failing rules")
        .containsExactly("foreign_commits");
    assertThat(
            full.results().stream()
                .filter(r -> r.ruleId().equals("foreign_commits"))
                .findFirst()
                .orElseThrow()
                .observed())
        .isEqualTo(2.0);
  }

  private IngestOutcome run(IngestSettings settings, FailurePoints hooks) {
    return new IngestJob(spark, settings, hooks).run();
  }

  /** A fault made to the run's branch once the batch is on it, before it is published. */
  private FailurePoints onTheBranch(java.util.function.Consumer<String> fault) {
    return FailurePoints.withBatchId(
        (point, batchId) -> {
          if (point == FailurePoint.BEFORE_PUBLISH) {
            String branch =
                spark
                    .sql(
                        "SELECT name FROM "
                            + p.sparkTable()
                            + ".refs WHERE name LIKE 'tidemark_run_%'")
                    .first()
                    .getString(0);
            fault.accept(p.sparkTable() + ".branch_" + branch);
          }
        });
  }

  private String email(String table, String key) {
    return spark
        .sql("SELECT email FROM " + table + " WHERE customer_id = '" + key + "'")
        .first()
        .getString(0);
  }

  /** Keys a delivery updates that stay live, in order. */
  private List<String> changedKeys(Delivery day) {
    Map<String, ExpectedState.Row> live = expected();
    TreeSet<String> keys = new TreeSet<>();
    for (RawFile f : day.files()) {
      for (RawRecord r : f.rows()) {
        if (r.customerId() != null && "U".equals(r.op()) && live.containsKey(r.customerId())) {
          keys.add(r.customerId());
        }
      }
    }
    assertThat(keys).hasSizeGreaterThanOrEqualTo(2);
    return new ArrayList<>(keys);
  }

  private Map<String, ExpectedState.Row> expected() {
    return ExpectedState.of(p.landed(), Instant.now(), p.ingestSettings().futureTolerance());
  }

  private long mainSnapshot() {
    return OutputTables.snapshotId(curated());
  }

  private List<String> heldBranches() {
    return HeldBranches.of(curated());
  }

  private Table curated() {
    try {
      return org.apache.iceberg.spark.Spark3Util.loadIcebergTable(spark, p.sparkTable());
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private static List<String> ruleIds(BatchAudit audit) {
    return audit.failedRules().stream().map(RuleResult::ruleId).sorted().toList();
  }

  private static List<String> sample(BatchAudit audit, String rule) {
    return audit.failedRules().stream()
        .filter(r -> r.ruleId().equals(rule))
        .findFirst()
        .orElseThrow()
        .sampleKeys();
  }
}
