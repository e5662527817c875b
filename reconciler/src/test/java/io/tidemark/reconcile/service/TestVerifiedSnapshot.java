package io.tidemark.reconcile.service;

import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.model.contract.DatasetContract;
import io.tidemark.model.report.ReconciliationMode;
import io.tidemark.model.report.ReconciliationReport;
import io.tidemark.model.report.ReconciliationStatus;
import io.tidemark.reconcile.engine.EngineRequest;
import io.tidemark.reconcile.engine.Observations;
import io.tidemark.reconcile.engine.duckdb.DuckDbEngine;
import io.tidemark.reconcile.fixtures.Contracts;
import io.tidemark.reconcile.fixtures.CustomersScenario;
import io.tidemark.reconcile.storage.IcebergTables;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.List;
import org.apache.iceberg.SnapshotRef;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A reconciliation reads the curated snapshot that was current when it began and names it; a FULL
 * run that passes moves the verified tag to it, so readers can pin proven data; and the dataset's
 * verdict says whether what readers of main see now is that proven snapshot.
 */
class TestVerifiedSnapshot {
  private static final String TAG = DatasetContract.Reconcile.VERIFIED_TAG_DEFAULT;

  @TempDir Path dir;
  private CustomersScenario s;
  private Instant now;

  @BeforeEach
  void clean() {
    // Iceberg stamps commits with the wall clock: "now" is a few minutes after it.
    now = Instant.now().plus(Duration.ofMinutes(5)).truncatedTo(ChronoUnit.SECONDS);
    s = CustomersScenario.clean(dir, now);
  }

  @AfterEach
  void close() {
    s.close();
  }

  private Reconciler reconciler(DatasetContract contract) {
    return reconciler(contract, now);
  }

  private Reconciler reconciler(DatasetContract contract, Instant at) {
    return Reconciler.builder(s.stateRoot)
        .dataset(contract, s.catalog())
        .clock(Clock.fixed(at, ZoneOffset.UTC))
        .build();
  }

  private Reconciler reconciler() {
    return reconciler(s.contract());
  }

  private long current() {
    return s.curated.table().currentSnapshot().snapshotId();
  }

  private SnapshotRef tag(String name) {
    return s.curated.table().refs().get(name);
  }

  @Test
  void aFullPassNamesTheSnapshotItCheckedAndMovesTheTagThere() {
    long checked = current();

    ReconciliationReport r =
        reconciler().run("customers", ReconciliationMode.FULL, null, null, "t");

    assertThat(r.status()).isEqualTo(ReconciliationStatus.PASSED);
    assertThat(r.curatedSnapshot().id()).isEqualTo(checked);
    assertThat(r.curatedSnapshot().committedAt())
        .isEqualTo(Instant.ofEpochMilli(s.curated.table().currentSnapshot().timestampMillis()));
    assertThat(tag(TAG)).as("the verified tag").isNotNull();
    assertThat(tag(TAG).isTag()).isTrue();
    assertThat(tag(TAG).snapshotId()).isEqualTo(checked);

    Verdict v = reconciler().verdict("customers");
    assertThat(v.verified()).as(v.reason()).isTrue();
    assertThat(v.currentSnapshot().id()).isEqualTo(checked);
    assertThat(v.verifiedSnapshot().id()).isEqualTo(checked);
    assertThat(v.verifiedBy()).isEqualTo(r.id());
    assertThat(v.verifiedAt()).isEqualTo(r.finishedAt());
    assertThat(v.tag()).isEqualTo(TAG);
    assertThat(v.taggedSnapshot()).isEqualTo(checked);
    assertThat(v.reason())
        .isEqualTo(
            "FULL reconciliation "
                + r.id()
                + " proved snapshot "
                + checked
                + " (committed "
                + r.curatedSnapshot().committedAt()
                + ") equal to raw");
  }

  @Test
  void aCommitAfterTheProofLeavesMainUnprovenAndTheTagOnTheProvenSnapshot() {
    ReconciliationReport passed =
        reconciler().run("customers", ReconciliationMode.FULL, null, null, "t");
    long proven = passed.curatedSnapshot().id();
    // Someone deletes a row by hand: main now holds damage no run checked.
    s.curated.delete(List.of(CustomersScenario.key(19)));
    long damaged = current();

    Verdict v = reconciler().verdict("customers");
    assertThat(v.verified()).isFalse();
    assertThat(v.currentSnapshot().id()).isEqualTo(damaged);
    assertThat(v.verifiedSnapshot().id()).as("the one to pin").isEqualTo(proven);
    assertThat(v.reason())
        .startsWith("Snapshot " + damaged + " (committed ")
        .contains("is not the one FULL reconciliation " + passed.id() + " proved (" + proven + ")");

    ReconciliationReport failed =
        reconciler(s.contract(), now.plusSeconds(60))
            .run("customers", ReconciliationMode.FULL, null, null, "t");
    assertThat(failed.status()).isEqualTo(ReconciliationStatus.FAILED);
    assertThat(failed.curatedSnapshot().id()).isEqualTo(damaged);
    assertThat(tag(TAG).snapshotId()).as("a failing run moves no tag").isEqualTo(proven);

    Verdict after = reconciler().verdict("customers");
    assertThat(after.verified()).isFalse();
    assertThat(after.latestFull()).isEqualTo(failed.id());
    assertThat(after.verifiedBy()).isEqualTo(passed.id());
    assertThat(after.taggedSnapshot()).isEqualTo(proven);
    assertThat(after.reason())
        .startsWith("The latest FULL reconciliation, " + failed.id() + ", FAILED rule(s) ")
        .contains("missing_keys")
        .endsWith(
            "; the last proven snapshot is "
                + proven
                + " (FULL reconciliation "
                + passed.id()
                + ")");
  }

  /** How old proven data is, after every run once a FULL run proved a snapshot. */
  @Test
  void theAgeOfTheProvenSnapshotIsPublishedAfterEveryRunOnceOneIsProven() {
    java.util.List<io.tidemark.model.metrics.Datum> published = new java.util.ArrayList<>();
    java.util.function.Function<Instant, Reconciler> at =
        t ->
            Reconciler.builder(s.stateRoot)
                .dataset(s.contract(), s.catalog())
                .clock(Clock.fixed(t, ZoneOffset.UTC))
                .listener((r, datapoints) -> published.addAll(datapoints))
                .build();
    java.util.function.Supplier<java.util.List<Double>> ages =
        () ->
            published.stream()
                .filter(d -> d.metric() == io.tidemark.model.metrics.Metric.VERIFIED_SNAPSHOT_AGE)
                .map(io.tidemark.model.metrics.Datum::value)
                .toList();

    Instant before = now.minusSeconds(60);
    at.apply(before)
        .run("customers", ReconciliationMode.WINDOW, now.minus(Duration.ofDays(30)), before, "t");
    assertThat(ages.get()).as("nothing proven yet").isEmpty();

    ReconciliationReport full =
        at.apply(now).run("customers", ReconciliationMode.FULL, null, null, "t");
    Instant committed = full.curatedSnapshot().committedAt();
    assertThat(ages.get())
        .containsExactly(Duration.between(committed, full.finishedAt()).toMillis() / 1000.0);

    Instant later = now.plus(Duration.ofHours(2));
    ReconciliationReport window =
        at.apply(later).run("customers", ReconciliationMode.WINDOW, now, later, "t");
    assertThat(ages.get())
        .as("a WINDOW run reports the age of the snapshot the FULL run proved")
        .last()
        .isEqualTo(Duration.between(committed, window.finishedAt()).toMillis() / 1000.0);

    // A restarted service rebuilds the series from the stored reports, as its alarms read it.
    Reconciler restarted = at.apply(later);
    restarted.recover();
    assertThat(
            restarted
                .history()
                .series(
                    io.tidemark.model.metrics.Metric.VERIFIED_SNAPSHOT_AGE,
                    java.util.Map.of(
                        io.tidemark.model.metrics.Dimension.PIPELINE,
                        full.pipeline(),
                        io.tidemark.model.metrics.Dimension.DATASET,
                        "customers")))
        .extracting(io.tidemark.model.metrics.Datum::value)
        .containsExactlyElementsOf(ages.get());
  }

  @Test
  void aWindowRunProvesNoSnapshot() {
    ReconciliationReport r =
        reconciler()
            .run("customers", ReconciliationMode.WINDOW, now.minus(Duration.ofDays(30)), now, "t");

    assertThat(r.status()).isEqualTo(ReconciliationStatus.PASSED);
    assertThat(r.curatedSnapshot().id()).isEqualTo(current());
    assertThat(tag(TAG)).isNull();
    Verdict v = reconciler().verdict("customers");
    assertThat(v.verified()).isFalse();
    assertThat(v.verifiedSnapshot()).isNull();
    assertThat(v.reason())
        .isEqualTo(
            "No FULL reconciliation has judged the table: snapshot "
                + current()
                + " is not proven");
  }

  @Test
  void theContractNamesTheTagOrTurnsItOff() {
    reconciler(Contracts.withVerifiedTag(s.contract(), "customers_proven"))
        .run("customers", ReconciliationMode.FULL, null, null, "t");
    assertThat(tag("customers_proven").snapshotId()).isEqualTo(current());
    assertThat(tag(TAG)).isNull();

    s.curated.table().manageSnapshots().removeTag("customers_proven").commit();
    Reconciler off = reconciler(Contracts.withVerifiedTag(s.contract(), ""));
    ReconciliationReport r = off.run("customers", ReconciliationMode.FULL, null, null, "t");
    assertThat(r.status()).isEqualTo(ReconciliationStatus.PASSED);
    assertThat(s.curated.table().refs()).containsOnlyKeys(SnapshotRef.MAIN_BRANCH);
    Verdict v = off.verdict("customers");
    assertThat(v.verified()).isTrue();
    assertThat(v.tag()).isNull();
    assertThat(v.taggedSnapshot()).isNull();
  }

  /**
   * A commit that lands while a reconciliation runs, after it pinned the table and before its
   * engine reads it, is not seen by it, nor by its foreign_commits: the run proves the snapshot it
   * pinned, and the next run finds the commit.
   */
  @Test
  void aCommitDuringARunIsTheNextRunsToCheck() {
    long pinned = current();
    DuckDbEngine duckDb = new DuckDbEngine();
    io.tidemark.reconcile.engine.ReconciliationEngine commitFirst =
        new io.tidemark.reconcile.engine.ReconciliationEngine() {
          @Override
          public String name() {
            return duckDb.name();
          }

          @Override
          public Observations observe(EngineRequest request) {
            // Someone's DELETE lands between the pin and the engine's read.
            s.curated.delete(List.of(CustomersScenario.key(19)));
            return duckDb.observe(request);
          }
        };

    ReconciliationReport during =
        Reconciler.builder(s.stateRoot)
            .dataset(s.contract(), s.catalog())
            .engine(commitFirst)
            .clock(Clock.fixed(now, ZoneOffset.UTC))
            .build()
            .run("customers", ReconciliationMode.FULL, null, null, "t");

    assertThat(current()).as("the commit landed").isNotEqualTo(pinned);
    assertThat(during.status()).as(during.toString()).isEqualTo(ReconciliationStatus.PASSED);
    assertThat(during.curatedSnapshot().id()).isEqualTo(pinned);
    assertThat(tag(TAG).snapshotId()).isEqualTo(pinned);

    ReconciliationReport next =
        reconciler(s.contract(), now.plusSeconds(60))
            .run("customers", ReconciliationMode.FULL, null, null, "t");
    assertThat(next.status()).isEqualTo(ReconciliationStatus.FAILED);
    assertThat(next.curatedSnapshot().id()).isEqualTo(current());
    assertThat(tag(TAG).snapshotId()).isEqualTo(pinned);
  }

  /**
   * Two reconcilers, or a run that pinned early and finished late: a pass on an older snapshot does
   * not take the tag back from a later proven one while that is on main; after a rollback past the
   * tagged snapshot, it does.
   */
  @Test
  void theTagNeverMovesBackToAnOlderSnapshotOnMain() {
    long older = current();
    s.curated.delete(List.of(CustomersScenario.key(19)));
    long newer = current();
    org.apache.iceberg.Table table = s.curated.table();
    assertThat(io.tidemark.reconcile.storage.IcebergTables.tag(table, TAG, newer)).isTrue();

    table.refresh();
    assertThat(io.tidemark.reconcile.storage.IcebergTables.tag(table, TAG, older))
        .as("the late pass of the older snapshot")
        .isFalse();
    assertThat(tag(TAG).snapshotId()).isEqualTo(newer);

    table.manageSnapshots().rollbackTo(older).commit();
    table.refresh();
    assertThat(io.tidemark.reconcile.storage.IcebergTables.tag(table, TAG, older))
        .as("main rolled back past the tagged snapshot")
        .isTrue();
    assertThat(tag(TAG).snapshotId()).isEqualTo(older);
  }

  /**
   * Two reconcilers that loaded the table before either moved the tag: the one that commits last,
   * with the older proven snapshot, must not take the tag back. Its view of the table is stale, so
   * the check has to be made against the metadata it commits on, not the metadata it loaded.
   */
  @Test
  void aReconcilerWithAStaleViewOfTheTableDoesNotMoveTheTagBack() {
    long oldest = current();
    assertThat(IcebergTables.tag(s.curated.table(), TAG, oldest)).isTrue();
    s.curated.delete(List.of(CustomersScenario.key(18)));
    long older = current();
    s.curated.delete(List.of(CustomersScenario.key(19)));
    long newer = current();
    String name = s.contract().curatedTable();
    Catalog one = IcebergTables.catalog(s.catalog());
    Catalog other = IcebergTables.catalog(s.catalog());
    try {
      Table first = IcebergTables.load(one, name);
      Table late = IcebergTables.load(other, name);

      assertThat(IcebergTables.tag(first, TAG, newer)).isTrue();
      assertThat(IcebergTables.tag(late, TAG, older))
          .as("the pass of the older snapshot, committed after the newer one's")
          .isFalse();
      assertThat(tag(TAG).snapshotId()).isEqualTo(newer);
    } finally {
      IcebergTables.close(one);
      IcebergTables.close(other);
    }
  }

  /**
   * The embedded engine reads the pinned snapshot, not whatever is current when it gets to the
   * curated table: a commit that lands during a reconciliation is the next run's to check.
   */
  @Test
  void theEngineReadsThePinnedSnapshot() {
    long pinned = current();
    s.curated.delete(List.of(CustomersScenario.key(19)));

    Observations atPin = new DuckDbEngine().observe(request(pinned));
    Observations atCurrent = new DuckDbEngine().observe(request(null));

    assertThat(atPin.missing().count()).as("at the pinned snapshot").isZero();
    assertThat(atCurrent.missing().count()).as("at the current one").isEqualTo(1);
    assertThat(atCurrent.missing().sample()).containsExactly(CustomersScenario.key(19));
  }

  @Test
  void aSnapshotThatIsGoneIsNamed() {
    long gone = current() + 1;

    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> new DuckDbEngine().observe(request(gone)))
        .hasMessageContaining("Cannot read snapshot " + gone + " of ")
        .hasMessageContaining("it is no longer in the table's metadata");
  }

  private EngineRequest request(Long snapshot) {
    return new EngineRequest(
        s.contract(),
        s.catalog(),
        ReconciliationMode.FULL,
        null,
        now,
        now,
        10,
        Duration.ofHours(1),
        snapshot);
  }
}
