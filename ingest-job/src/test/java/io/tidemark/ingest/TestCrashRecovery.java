package io.tidemark.ingest;

import static io.tidemark.ingest.RawFixtures.d;
import static io.tidemark.ingest.RawFixtures.u;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tidemark.ingest.RawFixtures.Rec;
import io.tidemark.ingest.checkpoint.CheckpointCodec;
import io.tidemark.ingest.commit.RunBranches;
import io.tidemark.ingest.config.IngestSettings;
import io.tidemark.ingest.kernel.FailurePoint;
import io.tidemark.ingest.kernel.FailurePoints;
import io.tidemark.ingest.report.ReportRecovery;
import io.tidemark.ingest.run.IngestJob;
import io.tidemark.ingest.run.IngestOutcome;
import io.tidemark.model.json.Json;
import io.tidemark.model.report.IngestCounts;
import io.tidemark.model.report.IngestRunReport;
import io.tidemark.model.report.IngestStatus;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.spark.Spark3Util;
import org.apache.iceberg.util.SnapshotUtil;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A crash at each point that matters, then a rerun: the table ends identical to a clean run's, no
 * key twice, quarantine without duplicates, counts consistent; rerunning after that is a no-op.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Tag("spark")
class TestCrashRecovery extends SparkTestSupport {
  /** What a crash looks like to the job: it simply stops (no report, nothing after the point). */
  static final class SimulatedCrash extends Error {
    SimulatedCrash(FailurePoint p) {
      super("simulated crash at " + p);
    }
  }

  static final List<Rec> DAY1 =
      List.of(
          u("C1", "Ada", "2024-03-01T10:01:00Z"),
          u("C2", "Bo", "2024-03-01T10:02:00Z"),
          u("C3", "Cy", "2024-03-01T10:03:00Z"));

  /** Day 2: an update, a delete, an insert, two versions of one key and one invalid row. */
  static final List<Rec> DAY2 =
      List.of(
          u("C1", "Ada2", "2024-03-02T09:00:00Z"),
          d("C2", "2024-03-02T09:05:00Z"),
          u("C4", "Di", "2024-03-02T09:10:00Z"),
          u("C4", "Di2", "2024-03-02T09:20:00Z"),
          new Rec(
              null,
              "Nobody",
              "n@example.com",
              java.time.Instant.parse("2024-03-02T09:30:00Z"),
              "U"));

  Map<String, List<Object>> cleanTable;
  List<String> cleanQuarantine;
  IngestRunReport cleanDay2;

  @BeforeAll
  void cleanRun(@TempDir Path dir) {
    IngestSettings s = settings(dir).withMaxInvalidRatio(0.5);
    deliverDay1(s);
    assertThat(new IngestJob(spark, s).run().report().status()).isEqualTo(IngestStatus.SUCCEEDED);
    deliverDay2(s);
    cleanDay2 = new IngestJob(spark, s).run().report();
    assertThat(cleanDay2.status()).isEqualTo(IngestStatus.SUCCEEDED);
    cleanTable = curated(s);
    cleanQuarantine = quarantine(s);
    assertThat(cleanQuarantine).hasSize(1);
  }

  @ParameterizedTest
  @EnumSource(FailurePoint.class)
  void crashThenRerunEndsLikeACleanRun(FailurePoint point, @TempDir Path dir) throws Exception {
    IngestSettings s = settings(dir).withMaxInvalidRatio(0.5);
    deliverDay1(s);
    assertThat(new IngestJob(spark, s).run().report().status()).isEqualTo(IngestStatus.SUCCEEDED);
    deliverDay2(s);

    String[] crashedBatch = new String[1];
    FailurePoints crashAt =
        FailurePoints.withBatchId(
            (p, batchId) -> {
              if (p == point) {
                crashedBatch[0] = batchId;
                throw new SimulatedCrash(p);
              }
            });
    assertThatThrownBy(() -> new IngestJob(spark, s, crashAt).run())
        .isInstanceOf(SimulatedCrash.class);
    // The crashed run wrote no report; only day 1's is there.
    assertThat(reports(s)).hasSize(1);
    if (point != FailurePoint.AFTER_COMMIT) {
      // Nothing reached main, even when the batch was committed to the run's branch.
      assertThat(commitsOnMain(s, crashedBatch[0])).isZero();
      assertThat(snapshotsCarrying(s, crashedBatch[0]))
          .isEqualTo(point == FailurePoint.BEFORE_PUBLISH ? 1 : 0);
      // Not even day 2's new rows, appended to the branch before the deletes: main holds day 1.
      assertThat(curated(s)).containsOnlyKeys("C1", "C2", "C3");
    }
    // A crash between creating the run's branch and publishing leaves the branch behind; a run
    // right after keeps it, since it cannot tell it from a live run's yet.
    boolean branchLeft =
        point == FailurePoint.BEFORE_COMMIT
            || point == FailurePoint.AFTER_INSERTS
            || point == FailurePoint.BEFORE_PUBLISH;
    assertThat(runBranches(s)).hasSize(branchLeft ? 1 : 0);
    if (point == FailurePoint.AFTER_INSERTS) {
      // The branch left behind ends with the append of the new rows (the new key's and the updated
      // key's), which carries no batch.
      Table t = Spark3Util.loadIcebergTable(spark, s.curatedSparkName());
      Snapshot head = t.snapshot(t.refs().get(runBranches(s).get(0)).snapshotId());
      assertThat(head.operation()).isEqualTo("append");
      assertThat(head.summary())
          .doesNotContainKey(CheckpointCodec.BATCH_ID)
          .containsEntry("added-records", "2");
    }

    IngestOutcome rerun = new IngestJob(spark, s).run();
    IngestRunReport r = rerun.report();
    assertThat(rerun.exitCode()).isZero();
    assertThat(r.counts().accountingErrors()).isEmpty();
    if (point == FailurePoint.AFTER_COMMIT) {
      // The batch was committed before the crash: the rerun finds nothing new, and rebuilds the
      // crashed run's report from its commit, so that every commit has its report.
      assertThat(r.status()).isEqualTo(IngestStatus.NOTHING_TO_DO);
      List<IngestRunReport> rebuilt = new ArrayList<>();
      for (Path f : reports(s)) {
        IngestRunReport x = Json.read(f, IngestRunReport.class);
        if (crashedBatch[0].equals(x.batchId())) {
          rebuilt.add(x);
        }
      }
      assertThat(rebuilt)
          .singleElement()
          .satisfies(
              x -> {
                assertThat(x.status()).isEqualTo(IngestStatus.SUCCEEDED);
                assertThat(x.counts()).isEqualTo(cleanDay2.counts());
                assertThat(x.warnings()).containsExactly(ReportRecovery.REBUILT);
                assertThat(x.runId()).isNotEqualTo(r.runId());
              });
    } else {
      assertThat(r.status()).as(r.error()).isEqualTo(IngestStatus.SUCCEEDED);
      // Same inputs on the same checkpoint: the same, deterministic batch id.
      assertThat(r.batchId()).isEqualTo(crashedBatch[0]);
      assertThat(r.counts()).isEqualTo(cleanDay2.counts());
    }
    assertThat(curated(s)).isEqualTo(cleanTable);
    assertThat(quarantine(s)).isEqualTo(cleanQuarantine);

    // Exactly one published commit carries the batch, and its recorded counts are the clean run's.
    Table table = Spark3Util.loadIcebergTable(spark, s.curatedSparkName());
    List<Snapshot> carrying = new ArrayList<>();
    SnapshotUtil.ancestorsOf(table.currentSnapshot().snapshotId(), table::snapshot)
        .forEach(
            snap -> {
              if (crashedBatch[0].equals(snap.summary().get(CheckpointCodec.BATCH_ID))) {
                carrying.add(snap);
              }
            });
    assertThat(carrying).hasSize(1);
    assertThat(runBranches(s)).hasSize(branchLeft ? 1 : 0);
    assertThat(Json.read(carrying.get(0).summary().get(CheckpointCodec.COUNTS), IngestCounts.class))
        .isEqualTo(cleanDay2.counts());

    // Once more, once the crashed run's branch is stale: nothing to do, nothing committed, and
    // the leftover branch is gone.
    int snapshots = table.history().size();
    Instant later = NOW.plus(RunBranches.STALE_AFTER).plusSeconds(1);
    IngestRunReport again =
        new IngestJob(spark, s.withClock(Clock.fixed(later, ZoneOffset.UTC))).run().report();
    assertThat(again.status()).isEqualTo(IngestStatus.NOTHING_TO_DO);
    table.refresh();
    assertThat(table.history()).hasSize(snapshots);
    assertThat(runBranches(s)).isEmpty();
  }

  static void deliverDay1(IngestSettings s) {
    RawFixtures.write(Path.of(s.dataset().raw().location()), "2024-03-01", "a.parquet", DAY1);
  }

  static void deliverDay2(IngestSettings s) {
    RawFixtures.write(Path.of(s.dataset().raw().location()), "2024-03-02", "a.parquet", DAY2);
  }

  /** Quarantine rows as "file#row:reason", sorted; duplicates would show twice. */
  static List<String> quarantine(IngestSettings s) {
    List<String> out = new ArrayList<>();
    for (Row r :
        spark
            .table(s.quarantineSparkName())
            .select("source_file", "row_number", "reason")
            .collectAsList()) {
      String file = r.getString(0);
      out.add(
          file.substring(file.indexOf("ingest_date=")) + "#" + r.getLong(1) + ":" + r.getString(2));
    }
    out.sort(null);
    return out;
  }

  static List<Path> reports(IngestSettings s) throws Exception {
    Path runs = Path.of(s.stateRoot(), "_runs");
    if (!Files.exists(runs)) {
      return List.of();
    }
    try (Stream<Path> w = Files.walk(runs)) {
      return w.filter(p -> p.toString().endsWith(".json")).toList();
    }
  }
}
