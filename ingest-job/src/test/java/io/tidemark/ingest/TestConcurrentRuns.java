package io.tidemark.ingest;

import static io.tidemark.ingest.RawFixtures.u;
import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.ingest.RawFixtures.Rec;
import io.tidemark.ingest.checkpoint.Checkpoint;
import io.tidemark.ingest.checkpoint.CheckpointCodec;
import io.tidemark.ingest.checkpoint.CheckpointLog;
import io.tidemark.ingest.config.IngestSettings;
import io.tidemark.ingest.kernel.FailurePoint;
import io.tidemark.ingest.kernel.FailurePoints;
import io.tidemark.ingest.run.IngestJob;
import io.tidemark.ingest.run.IngestOutcome;
import io.tidemark.model.report.IngestErrorCode;
import io.tidemark.model.report.IngestStatus;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.spark.Spark3Util;
import org.apache.iceberg.util.SnapshotUtil;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two runs on the same table at the same moment: one commits; the other fails with a clear message
 * or finds its batch already committed. Never a key twice, never a lost batch.
 */
@Tag("spark")
class TestConcurrentRuns extends SparkTestSupport {
  @TempDir Path dir;

  static List<Rec> day(String date, String... ids) {
    List<Rec> out = new ArrayList<>();
    for (String id : ids) {
      out.add(u(id, "N" + id + date, date + "T10:00:00Z"));
    }
    return out;
  }

  /** A hook that holds each run at the given point until both have reached it. */
  static FailurePoints meetAt(FailurePoint point, CyclicBarrier barrier) {
    return p -> {
      if (p == point) {
        try {
          barrier.await(60, TimeUnit.SECONDS);
        } catch (Exception e) {
          throw new IllegalStateException("the other run never arrived", e);
        }
      }
    };
  }

  @Test
  void twoRunsOfTheSameBatchCommitItOnce() throws Exception {
    IngestSettings s = settings(dir);
    Path raw = Path.of(s.dataset().raw().location());
    RawFixtures.write(raw, "2024-03-01", "a.parquet", day("2024-03-01", "A", "B"));
    assertThat(new IngestJob(spark, s).run().report().status()).isEqualTo(IngestStatus.SUCCEEDED);
    RawFixtures.write(raw, "2024-03-02", "a.parquet", day("2024-03-02", "A", "C"));

    CyclicBarrier barrier = new CyclicBarrier(2);
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try {
      Future<IngestOutcome> one =
          pool.submit(
              () -> new IngestJob(spark, s, meetAt(FailurePoint.BEFORE_COMMIT, barrier)).run());
      Future<IngestOutcome> two =
          pool.submit(
              () -> new IngestJob(spark, s, meetAt(FailurePoint.BEFORE_COMMIT, barrier)).run());
      List<IngestOutcome> outcomes =
          List.of(one.get(3, TimeUnit.MINUTES), two.get(3, TimeUnit.MINUTES));
      List<IngestStatus> statuses = outcomes.stream().map(o -> o.report().status()).toList();
      assertThat(statuses).containsOnlyOnce(IngestStatus.SUCCEEDED);
      IngestOutcome loser =
          outcomes.stream()
              .filter(o -> o.report().status() != IngestStatus.SUCCEEDED)
              .findFirst()
              .orElseThrow();
      if (loser.report().status() == IngestStatus.FAILED) {
        assertThat(loser.exitCode()).isEqualTo(1);
        assertThat(loser.report().errorCode()).isEqualTo(IngestErrorCode.CONCURRENT_COMMIT);
        assertThat(loser.report().error())
            .contains("another run committed first")
            .contains("rerunning is safe");
      } else {
        assertThat(loser.report().status()).isEqualTo(IngestStatus.ALREADY_COMMITTED);
        assertThat(loser.exitCode()).isZero();
        assertThat(loser.report().counts().recordsWritten()).isZero();
      }
      assertThat(outcomes.get(0).report().batchId()).isEqualTo(outcomes.get(1).report().batchId());
      assertThat(commitsOnMain(s, outcomes.get(0).report().batchId())).isEqualTo(1);
    } finally {
      pool.shutdownNow();
    }
    // No key twice (curated() fails on a duplicate), nothing lost.
    assertThat(curated(s).keySet()).containsExactlyInAnyOrder("A", "B", "C");
    assertThat(curated(s).get("A").get(0)).isEqualTo("NA2024-03-02");
    assertThat(runBranches(s)).isEmpty();
    assertThat(new IngestJob(spark, s).run().report().status())
        .isEqualTo(IngestStatus.NOTHING_TO_DO);
  }

  @Test
  void aRunThatFindsItsBatchCommittedWhileItWaitedIsANoOp() throws Exception {
    IngestSettings s = settings(dir);
    Path raw = Path.of(s.dataset().raw().location());
    RawFixtures.write(raw, "2024-03-01", "a.parquet", day("2024-03-01", "A", "B"));

    // The slow run plans its batch, then waits just before committing while the fast one
    // commits the same batch.
    CountDownLatch slowReady = new CountDownLatch(1);
    CountDownLatch fastDone = new CountDownLatch(1);
    FailurePoints slowHook =
        p -> {
          if (p == FailurePoint.BEFORE_COMMIT) {
            slowReady.countDown();
            try {
              assertThat(fastDone.await(2, TimeUnit.MINUTES)).isTrue();
            } catch (InterruptedException e) {
              throw new IllegalStateException(e);
            }
          }
        };
    ExecutorService pool = Executors.newSingleThreadExecutor();
    try {
      Future<IngestOutcome> slow = pool.submit(() -> new IngestJob(spark, s, slowHook).run());
      assertThat(slowReady.await(2, TimeUnit.MINUTES)).isTrue();
      IngestOutcome fast = new IngestJob(spark, s).run();
      fastDone.countDown();
      IngestOutcome late = slow.get(3, TimeUnit.MINUTES);
      assertThat(fast.report().status()).isEqualTo(IngestStatus.SUCCEEDED);
      assertThat(late.report().status()).isEqualTo(IngestStatus.ALREADY_COMMITTED);
      assertThat(late.exitCode()).isZero();
      assertThat(late.report().snapshotId()).isEqualTo(fast.report().snapshotId());
      assertThat(commitsOnMain(s, fast.report().batchId())).isEqualTo(1);
    } finally {
      pool.shutdownNow();
    }
    assertThat(curated(s).keySet()).containsExactlyInAnyOrder("A", "B");
  }

  @Test
  void twoRunsOfDifferentBatchesNeverBothCommitAndTheLoserCanRerun() throws Exception {
    IngestSettings s = settings(dir);
    Path raw = Path.of(s.dataset().raw().location());
    RawFixtures.write(raw, "2024-03-01", "a.parquet", day("2024-03-01", "A", "B"));
    assertThat(new IngestJob(spark, s).run().report().status()).isEqualTo(IngestStatus.SUCCEEDED);
    RawFixtures.write(raw, "2024-03-02", "a.parquet", day("2024-03-02", "A", "C"));

    // Run one reads its batch and waits; a file lands; run two reads a bigger batch; both then
    // try to commit at the same moment.
    CyclicBarrier atCommit = new CyclicBarrier(2);
    CountDownLatch oneRead = new CountDownLatch(1);
    FailurePoints first =
        p -> {
          if (p == FailurePoint.AFTER_READ) {
            oneRead.countDown();
          }
          meetAt(FailurePoint.BEFORE_COMMIT, atCommit).reached(p);
        };
    ExecutorService pool = Executors.newSingleThreadExecutor();
    IngestOutcome a;
    IngestOutcome b;
    try {
      Future<IngestOutcome> one = pool.submit(() -> new IngestJob(spark, s, first).run());
      assertThat(oneRead.await(2, TimeUnit.MINUTES)).isTrue();
      RawFixtures.write(raw, "2024-03-02", "b.parquet", day("2024-03-02", "D"));
      b = new IngestJob(spark, s, meetAt(FailurePoint.BEFORE_COMMIT, atCommit)).run();
      a = one.get(3, TimeUnit.MINUTES);
    } finally {
      pool.shutdownNow();
    }
    assertThat(a.report().batchId()).isNotEqualTo(b.report().batchId());
    List<IngestOutcome> both = List.of(a, b);
    assertThat(both.stream().filter(o -> o.report().status() == IngestStatus.SUCCEEDED)).hasSize(1);
    IngestOutcome loser =
        both.stream()
            .filter(o -> o.report().status() != IngestStatus.SUCCEEDED)
            .findFirst()
            .orElseThrow();
    assertThat(loser.report().status()).isEqualTo(IngestStatus.FAILED);
    assertThat(loser.exitCode()).isEqualTo(1);
    assertThat(loser.report().errorCode()).isEqualTo(IngestErrorCode.CONCURRENT_COMMIT);
    assertThat(loser.report().error())
        .startsWith("Cannot commit batch " + loser.report().batchId())
        .contains("another run committed first")
        .contains("rerunning is safe");
    assertThat(commitsOnMain(s, loser.report().batchId())).isZero();
    assertThat(runBranches(s)).isEmpty();

    // The rerun picks up whatever the winner did not include; nothing is lost or doubled.
    IngestOutcome rerun = new IngestJob(spark, s).run();
    assertThat(rerun.report().status()).isIn(IngestStatus.SUCCEEDED, IngestStatus.NOTHING_TO_DO);
    assertThat(curated(s).keySet()).containsExactlyInAnyOrder("A", "B", "C", "D");
    assertThat(curated(s).get("A").get(0)).isEqualTo("NA2024-03-02");
  }

  /**
   * Two runs of one batch with invalid rows, released together right after reading: both write the
   * quarantine table at once, so whichever loses may lose there rather than on the curated table.
   * Whatever table the loser lost on, its message names that table and the snapshots it really
   * moved between.
   */
  @Test
  void theLoserOfARaceSaysWhichTableMovedAndBetweenWhichSnapshots() throws Exception {
    IngestSettings s = settings(dir).withMaxInvalidRatio(1.0);
    Path raw = Path.of(s.dataset().raw().location());
    RawFixtures.write(raw, "2024-03-01", "a.parquet", day("2024-03-01", "A", "B"));
    assertThat(new IngestJob(spark, s).run().report().status()).isEqualTo(IngestStatus.SUCCEEDED);
    List<Rec> day2 = new ArrayList<>(day("2024-03-02", "A", "C"));
    day2.add(new Rec(null, "NoKey", null, java.time.Instant.parse("2024-03-02T10:00:00Z"), "U"));
    RawFixtures.write(raw, "2024-03-02", "a.parquet", day2);

    CyclicBarrier afterRead = new CyclicBarrier(2);
    ExecutorService pool = Executors.newFixedThreadPool(2);
    List<IngestOutcome> outcomes;
    try {
      Future<IngestOutcome> one =
          pool.submit(
              () -> new IngestJob(spark, s, meetAt(FailurePoint.AFTER_READ, afterRead)).run());
      Future<IngestOutcome> two =
          pool.submit(
              () -> new IngestJob(spark, s, meetAt(FailurePoint.AFTER_READ, afterRead)).run());
      outcomes = List.of(one.get(3, TimeUnit.MINUTES), two.get(3, TimeUnit.MINUTES));
    } finally {
      pool.shutdownNow();
    }
    assertThat(outcomes.stream().map(o -> o.report().status()))
        .containsOnlyOnce(IngestStatus.SUCCEEDED);
    for (IngestOutcome o : outcomes) {
      if (o.report().status() != IngestStatus.FAILED) {
        continue;
      }
      assertThat(o.report().errorCode()).isEqualTo(IngestErrorCode.CONCURRENT_COMMIT);
      java.util.regex.Matcher m =
          java.util.regex.Pattern.compile(
                  "another run committed first: (\\S+) moved from snapshot (\\S+) to (\\S+);")
              .matcher(o.report().error());
      assertThat(m.find()).as(o.report().error()).isTrue();
      assertThat(m.group(1))
          .isIn(s.curatedSparkName(), s.quarantineSparkName(), s.tombstoneSparkName());
      assertThat(m.group(2)).as(o.report().error()).isNotEqualTo(m.group(3));
      assertThat(o.report().error()).contains("rerunning is safe");
    }
    assertThat(curated(s).keySet()).containsExactlyInAnyOrder("A", "B", "C");
    assertThat(count(s.quarantineSparkName())).isEqualTo(1);
    assertThat(runBranches(s)).isEmpty();
  }

  /** A row without a key, which the job quarantines. */
  private static Rec noKey(String date) {
    return new Rec(null, "NoKey", null, java.time.Instant.parse(date + "T10:00:00Z"), "U");
  }

  /**
   * Two days of records with a row without a key each (its third), the first day ingested: its row
   * is quarantined, the second's is not yet.
   */
  private IngestSettings twoDaysWithAnInvalidRowTheFirstIngested() {
    IngestSettings s = settings(dir).withMaxInvalidRatio(1.0);
    Path raw = Path.of(s.dataset().raw().location());
    for (String date : List.of("2024-03-01", "2024-03-02")) {
      List<Rec> recs = new ArrayList<>(day(date, "A", date.endsWith("1") ? "B" : "C"));
      recs.add(noKey(date));
      RawFixtures.write(raw, date, "a.parquet", recs);
      if (date.endsWith("1")) {
        assertThat(new IngestJob(spark, s).run().report().status())
            .isEqualTo(IngestStatus.SUCCEEDED);
      }
    }
    return s;
  }

  /** Day {@code date}'s quarantine rows copied as rows of the same rows of another day's file. */
  private static String copyQuarantineRows(String q, String date, String asDate) {
    return "INSERT INTO "
        + q
        + " SELECT batch_id, run_id, quarantined_at, replace(source_file, '"
        + date
        + "', '"
        + asDate
        + "'), row_number, reason, detail, original_values, replayed_at, replay_batch_id FROM "
        + q
        + " WHERE source_file LIKE '%"
        + date
        + "%'";
  }

  /**
   * A batch whose raw files no quarantine row names appends its quarantine rows, validated from the
   * snapshot it checked: when another run of the same batch quarantines the same row between the
   * check and the append, the append fails as a conflict, the row stays single, and the rerun
   * MERGEs onto it.
   */
  @Test
  void aQuarantineRowOfTheBatchCommittedAfterTheCheckFailsTheAppendAsAConflict() {
    IngestSettings s = twoDaysWithAnInvalidRowTheFirstIngested();
    String q = s.quarantineSparkName();

    FailurePoints otherRun =
        p -> {
          if (p == FailurePoint.QUARANTINE_CHECKED) {
            // What another run of the batch commits: the same row of the same file.
            spark.sql(copyQuarantineRows(q, "2024-03-01", "2024-03-02"));
          }
        };
    IngestOutcome lost = new IngestJob(spark, s, otherRun).run();

    assertThat(lost.report().status()).isEqualTo(IngestStatus.FAILED);
    assertThat(lost.report().errorCode()).isEqualTo(IngestErrorCode.CONCURRENT_COMMIT);
    assertThat(lost.report().error()).contains(q + " moved from snapshot");
    assertThat(count(q)).isEqualTo(2);
    IngestOutcome rerun = new IngestJob(spark, s).run();
    assertThat(rerun.report().status())
        .as(rerun.report().error())
        .isEqualTo(IngestStatus.SUCCEEDED);
    assertThat(
            spark
                .sql("SELECT batch_id FROM " + q + " WHERE source_file LIKE '%2024-03-02%'")
                .collectAsList())
        .as("day 2's quarantine rows")
        .singleElement()
        .satisfies(r -> assertThat(r.getString(0)).isEqualTo(rerun.report().batchId()));
    assertThat(curated(s).keySet()).containsExactlyInAnyOrder("A", "B", "C");
  }

  /**
   * Another engine compacts the quarantine table between the check and the append, into a file
   * whose rows lie on both sides of the batch's raw files: Iceberg's conflict check does not count
   * a rewrite, and the append's overwrite cannot take such a file apart, so the batch MERGEs its
   * rows instead and succeeds.
   */
  @Test
  void aQuarantineCompactedAfterTheCheckTakesTheBatchsRowsByMerge() {
    IngestSettings s = twoDaysWithAnInvalidRowTheFirstIngested();
    String q = s.quarantineSparkName();
    // A row of a later day's file, in a file of its own: day 2's file sorts between the two.
    spark.sql(copyQuarantineRows(q, "2024-03-01", "2024-03-05"));
    assertThat(spark.table(q + ".files").count()).isEqualTo(2);

    String catalog = s.catalog().name();
    FailurePoints compaction =
        p -> {
          if (p == FailurePoint.QUARANTINE_CHECKED) {
            spark.sql(
                "CALL "
                    + catalog
                    + ".system.rewrite_data_files(table => '"
                    + q.substring(catalog.length() + 1)
                    + "', options => map('rewrite-all', 'true'))");
          }
        };
    IngestOutcome out = new IngestJob(spark, s, compaction).run();

    assertThat(out.report().status()).as(out.report().error()).isEqualTo(IngestStatus.SUCCEEDED);
    assertThat(count(q)).isEqualTo(3);
    assertThat(spark.table(q + ".files").count())
        .as("the compaction's one file and the batch's")
        .isEqualTo(2);
    assertThat(curated(s).keySet()).containsExactlyInAnyOrder("A", "B", "C");
  }

  /**
   * The race a check of the table before the MERGE cannot close: another run's commit reaching main
   * after this run planned its batch. The run's branch starts at the snapshot it planned on, so
   * main is no longer an ancestor of the run's commit and Iceberg refuses to publish it.
   */
  @Test
  void aCommitLandingAfterPlanningKeepsTheBatchOffMain() throws Exception {
    IngestSettings s = settings(dir);
    Path raw = Path.of(s.dataset().raw().location());
    RawFixtures.write(raw, "2024-03-01", "a.parquet", day("2024-03-01", "A", "B"));
    assertThat(new IngestJob(spark, s).run().report().status()).isEqualTo(IngestStatus.SUCCEEDED);
    RawFixtures.write(raw, "2024-03-02", "a.parquet", day("2024-03-02", "A", "C"));

    // Run B reads day 2's first file and waits. A second file lands. Run A reads both, creates
    // its branch and waits just before its MERGE. B commits fully; then A goes on.
    CountDownLatch bRead = new CountDownLatch(1);
    CountDownLatch aWaiting = new CountDownLatch(1);
    CountDownLatch bDone = new CountDownLatch(1);
    FailurePoints hookB =
        p -> {
          if (p == FailurePoint.AFTER_READ) {
            bRead.countDown();
            await(aWaiting);
          }
        };
    FailurePoints hookA =
        p -> {
          if (p == FailurePoint.BEFORE_COMMIT) {
            aWaiting.countDown();
            await(bDone);
          }
        };
    ExecutorService pool = Executors.newFixedThreadPool(2);
    IngestOutcome a;
    IngestOutcome b;
    try {
      Future<IngestOutcome> runB = pool.submit(() -> new IngestJob(spark, s, hookB).run());
      assertThat(bRead.await(2, TimeUnit.MINUTES)).isTrue();
      RawFixtures.write(raw, "2024-03-02", "b.parquet", day("2024-03-02", "D"));
      Future<IngestOutcome> runA = pool.submit(() -> new IngestJob(spark, s, hookA).run());
      try {
        b = runB.get(3, TimeUnit.MINUTES);
      } finally {
        bDone.countDown();
      }
      a = runA.get(3, TimeUnit.MINUTES);
    } finally {
      pool.shutdownNow();
    }

    assertThat(b.report().status()).as(b.report().error()).isEqualTo(IngestStatus.SUCCEEDED);
    assertThat(a.report().batchId()).isNotEqualTo(b.report().batchId());
    assertThat(a.report().status()).isEqualTo(IngestStatus.FAILED);
    assertThat(a.exitCode()).isEqualTo(1);
    assertThat(a.report().errorCode()).isEqualTo(IngestErrorCode.CONCURRENT_COMMIT);
    assertThat(a.report().error())
        .startsWith("Cannot commit batch " + a.report().batchId())
        .contains("another run committed first")
        .contains("rerunning is safe")
        .contains("Cannot fast-forward");
    // A's MERGE did commit, but only to its branch; main holds each batch at most once.
    assertThat(snapshotsCarrying(s, a.report().batchId())).isEqualTo(1);
    assertThat(commitsOnMain(s, a.report().batchId())).isZero();
    assertThat(commitsOnMain(s, b.report().batchId())).isEqualTo(1);
    assertThat(runBranches(s)).isEmpty();
    Table t = Spark3Util.loadIcebergTable(spark, s.curatedSparkName());
    assertThat(CheckpointLog.latest(t).orElseThrow().batchId()).isEqualTo(b.report().batchId());

    // The rerun commits what B did not take, once, on top of B's checkpoint.
    IngestOutcome rerun = new IngestJob(spark, s).run();
    assertThat(rerun.report().status())
        .as(rerun.report().error())
        .isEqualTo(IngestStatus.SUCCEEDED);
    assertThat(rerun.report().inputFiles()).hasSize(1);
    assertThat(rerun.report().inputFiles().get(0)).endsWith("ingest_date=2024-03-02/b.parquet");
    assertThat(commitsOnMain(s, rerun.report().batchId())).isEqualTo(1);
    t.refresh();
    Checkpoint cp = CheckpointLog.latest(t).orElseThrow();
    assertThat(cp.batchId()).isEqualTo(rerun.report().batchId());
    assertThat(cp.previousBatchId()).isEqualTo(b.report().batchId());
    assertThat(cp.processed().get(LocalDate.parse("2024-03-02")).keySet())
        .containsExactlyInAnyOrder("a.parquet", "b.parquet");
    List<String> published = new ArrayList<>();
    for (Snapshot snap : SnapshotUtil.ancestorsOf(t.currentSnapshot().snapshotId(), t::snapshot)) {
      String batch = snap.summary().get(CheckpointCodec.BATCH_ID);
      if (batch != null) {
        published.add(batch);
      }
    }
    assertThat(published).doesNotHaveDuplicates().hasSize(3);
    assertThat(curated(s).keySet()).containsExactlyInAnyOrder("A", "B", "C", "D");
    assertThat(curated(s).get("A").get(0)).isEqualTo("NA2024-03-02");
    assertThat(new IngestJob(spark, s).run().report().status())
        .isEqualTo(IngestStatus.NOTHING_TO_DO);
  }

  private static void await(CountDownLatch latch) {
    try {
      if (!latch.await(2, TimeUnit.MINUTES)) {
        throw new IllegalStateException("the other run never got there");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
