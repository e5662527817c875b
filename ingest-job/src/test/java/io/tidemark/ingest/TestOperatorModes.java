package io.tidemark.ingest;

import static io.tidemark.ingest.RawFixtures.u;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tidemark.ingest.checkpoint.Checkpoint;
import io.tidemark.ingest.checkpoint.CheckpointLog;
import io.tidemark.ingest.config.IngestSettings;
import io.tidemark.ingest.kernel.FailurePoint;
import io.tidemark.ingest.kernel.FailurePoints;
import io.tidemark.ingest.run.IngestJob;
import io.tidemark.ingest.run.IngestOutcome;
import io.tidemark.model.json.Json;
import io.tidemark.model.report.IngestCounts;
import io.tidemark.model.report.IngestErrorCode;
import io.tidemark.model.report.IngestMode;
import io.tidemark.model.report.IngestRunReport;
import io.tidemark.model.report.IngestStatus;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDate;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.iceberg.Table;
import org.apache.iceberg.spark.Spark3Util;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The operator modes that re-read raw data: a backfill of a date range (same version guard, its own
 * batch, the checkpoint left where it was) and a sweep for files no committed batch read (late
 * beyond the lookback), each with a crash and a rerun.
 */
@Tag("spark")
class TestOperatorModes extends SparkTestSupport {
  @TempDir Path dir;

  static LocalDate day(int d) {
    return LocalDate.of(2024, 3, d);
  }

  static final class SimulatedCrash extends Error {
    SimulatedCrash(FailurePoint p) {
      super("simulated crash at " + p);
    }
  }

  /** A run that dies at {@code point}, as a killed process would: nothing after it happens. */
  static FailurePoints crashAt(FailurePoint point) {
    return p -> {
      if (p == point) {
        throw new SimulatedCrash(p);
      }
    };
  }

  /** Days 1 to 5, one file each: key K<d>, and key S updated every day. */
  private IngestSettings fiveDays() {
    IngestSettings s = settings(dir).withLookback(Duration.ofDays(1));
    Path raw = raw(s);
    for (int d = 1; d <= 5; d++) {
      deliver(
          raw,
          day(d).toString(),
          "a.parquet",
          List.of(
              u("K" + d, "N" + d, day(d) + "T10:00:00Z"), u("S", "S" + d, day(d) + "T10:00:00Z")));
    }
    IngestOutcome first = new IngestJob(spark, s).run();
    assertThat(first.report().status())
        .as(first.report().error())
        .isEqualTo(IngestStatus.SUCCEEDED);
    return s;
  }

  /**
   * Writes a raw file dated as delivered at noon of its partition's day, before the fixed "now" the
   * runs see (the sweep tells a re-delivered file from a read one by its modification time).
   */
  private static Path deliver(Path raw, Object date, String name, List<RawFixtures.Rec> recs) {
    Path f = RawFixtures.write(raw, date.toString(), name, recs);
    try {
      Files.setLastModifiedTime(
          f,
          java.nio.file.attribute.FileTime.from(
              LocalDate.parse(date.toString()).atTime(12, 0).toInstant(java.time.ZoneOffset.UTC)));
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    return f;
  }

  private static Path raw(IngestSettings s) {
    return Path.of(s.dataset().raw().location());
  }

  private Checkpoint checkpoint(IngestSettings s) throws Exception {
    return CheckpointLog.latest(Spark3Util.loadIcebergTable(spark, s.curatedSparkName()))
        .orElseThrow();
  }

  private long snapshots(IngestSettings s) throws Exception {
    Table t = Spark3Util.loadIcebergTable(spark, s.curatedSparkName());
    t.refresh();
    return java.util.stream.StreamSupport.stream(t.snapshots().spliterator(), false).count();
  }

  private List<IngestRunReport> reports(IngestSettings s) throws Exception {
    try (Stream<Path> files = Files.walk(Path.of(s.stateRoot(), "_runs"))) {
      return files
          .filter(p -> p.toString().endsWith(".json"))
          .map(p -> Json.read(p, IngestRunReport.class))
          .toList();
    }
  }

  @Test
  void backfillMergesARangeWithTheVersionGuardAndLeavesTheCheckpoint() throws Exception {
    IngestSettings s = fiveDays();
    Checkpoint before = checkpoint(s);
    // Day 2 gets a corrected file long after it was ingested: a newer K2, a new key, and an
    // older S that must not overwrite day 5's.
    deliver(
        raw(s),
        day(2).toString(),
        "fix.parquet",
        List.of(
            u("K2", "fixed", "2024-03-02T12:00:00Z"),
            u("K2x", "added", "2024-03-02T12:00:00Z"),
            u("S", "stale", "2024-03-02T12:00:00Z")));

    IngestOutcome backfill = new IngestJob(spark, s.backfill(day(2), day(3))).run();

    IngestRunReport r = backfill.report();
    assertThat(r.status()).as(r.error()).isEqualTo(IngestStatus.SUCCEEDED);
    assertThat(backfill.exitCode()).isZero();
    assertThat(r.mode()).isEqualTo(IngestMode.BACKFILL);
    assertThat(r.partitionsRead()).containsExactly("2024-03-02", "2024-03-03");
    assertThat(r.inputFiles())
        .hasSize(3)
        .allSatisfy(f -> assertThat(f).containsAnyOf("=2024-03-02/", "=2024-03-03/"));
    assertThat(backfill.partitionsListed()).containsExactly(day(2), day(3));
    IngestCounts c = r.counts();
    assertThat(c.accountingErrors()).isEmpty();
    assertThat(c.recordsRead()).isEqualTo(7);
    assertThat(c.recordsInserted()).isEqualTo(1);
    assertThat(c.recordsUpdated()).isEqualTo(1);
    assertThat(curated(s).get("K2").get(0)).isEqualTo("fixed");
    assertThat(curated(s).get("K2x").get(0)).isEqualTo("added");
    assertThat(curated(s).get("S").get(0)).as("an older version never wins").isEqualTo("S5");
    // The checkpoint and its file list did not move, and the watermark stays.
    Checkpoint after = checkpoint(s);
    assertThat(after.batchId()).isEqualTo(before.batchId());
    assertThat(after.processed()).isEqualTo(before.processed());
    assertThat(r.watermarkAfter()).isEqualTo(r.watermarkBefore()).isEqualTo(before.watermark());

    // The same backfill again: its batch is on the table already.
    long snaps = snapshots(s);
    IngestOutcome again = new IngestJob(spark, s.backfill(day(2), day(3))).run();
    assertThat(again.report().status()).isEqualTo(IngestStatus.ALREADY_COMMITTED);
    assertThat(snapshots(s)).isEqualTo(snaps);

    // A normal run afterwards still sees every new file: one in the checkpoint's window, one in a
    // new partition. The backfilled fix lies before the window and stays the backfill's.
    deliver(
        raw(s), day(5).toString(), "late.parquet", List.of(u("K5b", "x", "2024-03-05T11:00:00Z")));
    deliver(raw(s), day(6).toString(), "a.parquet", List.of(u("K6", "x", "2024-03-06T10:00:00Z")));
    IngestOutcome next = new IngestJob(spark, s).run();
    assertThat(next.report().status()).isEqualTo(IngestStatus.SUCCEEDED);
    assertThat(next.report().mode()).isEqualTo(IngestMode.INCREMENTAL);
    assertThat(next.report().counts().filesNew()).isEqualTo(2);
    assertThat(next.report().watermarkBefore()).isEqualTo(before.watermark());
    assertThat(curated(s)).containsKeys("K5b", "K6");
    assertThat(checkpoint(s).previousBatchId()).isEqualTo(before.batchId());
  }

  @Test
  void theSameBackfillUnderChangedRulesIsANewBatch() {
    IngestSettings s = fiveDays().withMaxInvalidRatio(0.9);
    deliver(raw(s), day(3), "future.parquet", List.of(u("F1", "x", "2024-03-25T00:00:00Z")));
    IngestOutcome first = new IngestJob(spark, s.backfill(day(3), day(3))).run();
    assertThat(first.report().status())
        .as(first.report().error())
        .isEqualTo(IngestStatus.SUCCEEDED);
    assertThat(first.report().counts().recordsInvalid()).isEqualTo(1);

    // A future tolerance wide enough for the source's clock: the backfill is worth running again.
    IngestSettings b = s.backfill(day(3), day(3));
    IngestSettings wider =
        new IngestSettings(
            b.dataset(),
            b.catalog(),
            b.tombstoneTable(),
            b.mode(),
            b.discovery(),
            b.lookback(),
            b.maxInvalidRatio(),
            Duration.ofDays(30),
            b.stateRoot(),
            b.cloudWatch(),
            b.events(),
            b.lineage(),
            b.publish(),
            null,
            b.clock(),
            b.leaseTtl(),
            b.operator());
    IngestOutcome again = new IngestJob(spark, wider).run();

    assertThat(again.report().status())
        .as(again.report().error())
        .isEqualTo(IngestStatus.SUCCEEDED);
    assertThat(again.report().batchId()).isNotEqualTo(first.report().batchId());
    assertThat(curated(s)).containsKey("F1");
  }

  @Test
  void backfillOfAnEmptyRangeDoesNothing() {
    IngestSettings s = fiveDays();
    IngestOutcome none = new IngestJob(spark, s.backfill(day(10), day(12))).run();
    assertThat(none.report().status()).isEqualTo(IngestStatus.NOTHING_TO_DO);
    assertThat(none.exitCode()).isZero();
  }

  @ParameterizedTest
  @EnumSource(
      value = FailurePoint.class,
      names = {
        "AFTER_READ",
        "AFTER_QUARANTINE_WRITE",
        "BEFORE_COMMIT",
        "BEFORE_PUBLISH",
        "AFTER_COMMIT"
      })
  void aBackfillThatCrashesIsRerunWithNothingLostAndNothingTwice(FailurePoint point)
      throws Exception {
    IngestSettings s = fiveDays();
    Checkpoint before = checkpoint(s);
    deliver(
        raw(s),
        day(3).toString(),
        "fix.parquet",
        List.of(u("K3", "fixed", "2024-03-03T12:00:00Z"), u("B3", "new", "2024-03-03T12:00:00Z")));
    IngestSettings backfill = s.backfill(day(3), day(4));
    FailurePoints crash = crashAt(point);
    assertThatThrownBy(() -> new IngestJob(spark, backfill, crash).run())
        .isInstanceOf(SimulatedCrash.class);

    IngestOutcome rerun = new IngestJob(spark, backfill).run();

    assertThat(rerun.report().status())
        .as(rerun.report().error())
        .isEqualTo(
            point == FailurePoint.AFTER_COMMIT
                ? IngestStatus.ALREADY_COMMITTED
                : IngestStatus.SUCCEEDED);
    assertThat(commitsOnMain(s, rerun.report().batchId())).isEqualTo(1);
    assertThat(curated(s).get("K3").get(0)).isEqualTo("fixed");
    assertThat(curated(s)).containsKey("B3").hasSize(7);
    assertThat(checkpoint(s).batchId()).isEqualTo(before.batchId());
    // A crash after the commit left no report; the next run rebuilt it from the commit.
    assertThat(reports(s))
        .filteredOn(x -> x.mode() == IngestMode.BACKFILL && x.status() == IngestStatus.SUCCEEDED)
        .hasSize(1);
  }

  @Test
  void aNormalRunThatCommitsWhileABackfillWorksMakesTheBackfillRetry() throws Exception {
    IngestSettings s = fiveDays();
    deliver(raw(s), day(6).toString(), "a.parquet", List.of(u("K6", "x", "2024-03-06T10:00:00Z")));
    CountDownLatch planned = new CountDownLatch(1);
    CountDownLatch normalDone = new CountDownLatch(1);
    FailurePoints hold =
        p -> {
          if (p == FailurePoint.BEFORE_COMMIT) {
            planned.countDown();
            try {
              assertThat(normalDone.await(2, TimeUnit.MINUTES)).isTrue();
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
          }
        };
    ExecutorService pool = Executors.newSingleThreadExecutor();
    try {
      Future<IngestOutcome> backfill =
          pool.submit(() -> new IngestJob(spark, s.backfill(day(1), day(2)), hold).run());
      assertThat(planned.await(2, TimeUnit.MINUTES)).isTrue();
      IngestOutcome normal = new IngestJob(spark, s).run();
      normalDone.countDown();
      assertThat(normal.report().status()).isEqualTo(IngestStatus.SUCCEEDED);

      IngestOutcome refused = backfill.get(3, TimeUnit.MINUTES);
      assertThat(refused.report().status()).isEqualTo(IngestStatus.FAILED);
      assertThat(refused.report().errorCode()).isEqualTo(IngestErrorCode.CONCURRENT_COMMIT);
      assertThat(refused.exitCode()).isEqualTo(1);
      assertThat(refused.report().error()).contains("rerunning is safe");
    } finally {
      pool.shutdownNow();
    }
    Checkpoint normalCp = checkpoint(s);
    IngestOutcome retried = new IngestJob(spark, s.backfill(day(1), day(2))).run();
    assertThat(retried.report().status()).isEqualTo(IngestStatus.SUCCEEDED);
    assertThat(checkpoint(s).batchId()).isEqualTo(normalCp.batchId());
    assertThat(curated(s)).containsKey("K6").hasSize(7);
  }

  @Test
  void sweepPicksUpFilesTheLookbackMissedAndCountsThem() throws Exception {
    IngestSettings s = fiveDays();
    // A file lands in day 2, long folded; another in day 5, inside the lookback.
    deliver(
        raw(s),
        day(2).toString(),
        "too-late.parquet",
        List.of(u("OLD", "x", "2024-03-02T11:00:00Z"), u("K1", "older", "2024-03-01T09:00:00Z")));
    deliver(raw(s), day(5).toString(), "b.parquet", List.of(u("K5b", "x", "2024-03-05T11:00:00Z")));
    IngestOutcome normal = new IngestJob(spark, s).run();
    assertThat(normal.report().counts().filesNew()).isEqualTo(1);
    assertThat(curated(s)).doesNotContainKey("OLD");

    IngestOutcome sweep = new IngestJob(spark, s.withMode(IngestMode.SWEEP)).run();

    IngestRunReport r = sweep.report();
    assertThat(r.status()).as(r.error()).isEqualTo(IngestStatus.SUCCEEDED);
    assertThat(r.mode()).isEqualTo(IngestMode.SWEEP);
    assertThat(sweep.partitionsListed()).hasSize(5);
    assertThat(r.filesMissedByLookback()).isEqualTo(1);
    assertThat(r.counts().filesNew()).isEqualTo(1);
    assertThat(r.counts().filesSkipped()).isEqualTo(6);
    assertThat(r.inputFiles())
        .singleElement()
        .satisfies(f -> assertThat(f).endsWith("ingest_date=2024-03-02/too-late.parquet"));
    assertThat(r.partitionsRead()).containsExactly("2024-03-02");
    assertThat(r.warnings()).anySatisfy(w -> assertThat(w).contains("2024-03-02/too-late.parquet"));
    assertThat(curated(s)).containsKey("OLD");
    assertThat(curated(s).get("K1").get(0)).as("the version guard holds").isEqualTo("N1");
    assertThat(r.counts().recordsLate()).isEqualTo(2);

    // Nothing left to sweep; the nightly run goes on in its own window.
    IngestOutcome again = new IngestJob(spark, s.withMode(IngestMode.SWEEP)).run();
    assertThat(again.report().status()).isEqualTo(IngestStatus.NOTHING_TO_DO);
    assertThat(again.report().filesMissedByLookback()).isZero();
    IngestOutcome nightly = new IngestJob(spark, s).run();
    assertThat(nightly.report().status()).isEqualTo(IngestStatus.NOTHING_TO_DO);
    assertThat(nightly.partitionsListed()).containsExactly(day(4), day(5));
  }

  @Test
  void sweepReadsAFileReplacedUnderTheSameNameInAFoldedPartition() throws Exception {
    IngestSettings s = fiveDays();
    // Day 2's file is re-delivered corrected, after the run that read the first version.
    Files.delete(raw(s).resolve("ingest_date=" + day(2)).resolve("a.parquet"));
    Path f =
        deliver(raw(s), day(2), "a.parquet", List.of(u("K2", "corrected", "2024-03-02T12:00:00Z")));
    Files.setLastModifiedTime(
        f, java.nio.file.attribute.FileTime.from(NOW.plus(Duration.ofHours(1))));

    IngestOutcome sweep = new IngestJob(spark, s.withMode(IngestMode.SWEEP)).run();

    assertThat(sweep.report().status())
        .as(sweep.report().error())
        .isEqualTo(IngestStatus.SUCCEEDED);
    assertThat(sweep.report().inputFiles())
        .singleElement()
        .satisfies(x -> assertThat(x).endsWith("ingest_date=2024-03-02/a.parquet"));
    assertThat(curated(s).get("K2").get(0)).isEqualTo("corrected");
    // The sweep's commit holds the new version's stamp: a second sweep finds nothing.
    assertThat(new IngestJob(spark, s.withMode(IngestMode.SWEEP)).run().report().status())
        .isEqualTo(IngestStatus.NOTHING_TO_DO);
  }

  @Test
  void aBackfillBeforeTheFirstRunIsRefusedSoTheNightlyRunCanStillBootstrap() {
    IngestSettings s = settings(dir);
    deliver(raw(s), day(1), "a.parquet", List.of(u("K1", "x", "2024-03-01T10:00:00Z")));
    IngestOutcome refused = new IngestJob(spark, s.backfill(day(1), day(1))).run();
    assertThat(refused.exitCode()).isEqualTo(2);
    assertThat(refused.report().errorCode()).isEqualTo(IngestErrorCode.INVALID_CONFIG);
    assertThat(refused.report().error()).contains("no checkpoint yet").contains("without --mode");
    IngestOutcome first = new IngestJob(spark, s).run();
    assertThat(first.report().status())
        .as(first.report().error())
        .isEqualTo(IngestStatus.SUCCEEDED);
    assertThat(curated(s)).containsOnlyKeys("K1");
  }

  @Test
  void sweepKnowsWhatBatchesReadFromTheHistoryWhenRunReportsAreGone() throws Exception {
    IngestSettings s = fiveDays();
    deliver(
        raw(s), day(3).toString(), "late.parquet", List.of(u("L3", "x", "2024-03-03T11:00:00Z")));
    assertThat(new IngestJob(spark, s.withMode(IngestMode.SWEEP)).run().report().status())
        .isEqualTo(IngestStatus.SUCCEEDED);
    // Days 1 to 3 were folded at the first commit, so their names live in the reports only;
    // the swept file also in the sweep's commit. Without the reports the sweep reads days 1-3's
    // original files again (harmless: every version is already on the table) but not the swept
    // one.
    try (Stream<Path> files = Files.walk(Path.of(s.stateRoot(), "_runs"))) {
      for (Path p : files.sorted(java.util.Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
    IngestOutcome blind = new IngestJob(spark, s.withMode(IngestMode.SWEEP)).run();
    assertThat(blind.report().status()).isEqualTo(IngestStatus.SUCCEEDED);
    assertThat(blind.report().inputFiles())
        .noneSatisfy(f -> assertThat(f).endsWith("late.parquet"))
        .hasSize(3);
    assertThat(blind.report().counts().recordsWritten())
        .isEqualTo(blind.report().counts().recordsUnchanged());
  }

  @ParameterizedTest
  @EnumSource(
      value = FailurePoint.class,
      names = {"AFTER_READ", "BEFORE_PUBLISH", "AFTER_COMMIT"})
  void aSweepThatCrashesIsRerunWithNothingLostAndNothingTwice(FailurePoint point) throws Exception {
    IngestSettings s = fiveDays();
    deliver(
        raw(s), day(1).toString(), "late.parquet", List.of(u("L1", "x", "2024-03-01T11:00:00Z")));
    IngestSettings sweep = s.withMode(IngestMode.SWEEP);
    FailurePoints crash = crashAt(point);
    assertThatThrownBy(() -> new IngestJob(spark, sweep, crash).run())
        .isInstanceOf(SimulatedCrash.class);

    IngestOutcome rerun = new IngestJob(spark, sweep).run();

    if (point == FailurePoint.AFTER_COMMIT) {
      // The crashed sweep committed; its commit names the file, so the rerun finds nothing.
      assertThat(rerun.report().status()).isEqualTo(IngestStatus.NOTHING_TO_DO);
    } else {
      assertThat(rerun.report().status())
          .as(rerun.report().error())
          .isEqualTo(IngestStatus.SUCCEEDED);
      assertThat(rerun.report().filesMissedByLookback()).isEqualTo(1);
      assertThat(commitsOnMain(s, rerun.report().batchId())).isEqualTo(1);
    }
    assertThat(curated(s)).containsKey("L1").hasSize(7);
    assertThat(new IngestJob(spark, sweep).run().report().status())
        .isEqualTo(IngestStatus.NOTHING_TO_DO);
  }

  @Test
  void backfillOptionsOutsideBackfillAreRefused() {
    IngestSettings s = settings(dir);
    assertThatThrownBy(
            () -> s.withOperator(IngestMode.INCREMENTAL, s.backfill(day(1), day(2)).operator()))
        .hasMessageContaining("only --mode backfill takes a date range");
    assertThatThrownBy(() -> s.backfill(day(3), day(2))).hasMessageContaining("is after --to");
  }
}
