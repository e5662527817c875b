package io.tidemark.ingest;

import static io.tidemark.ingest.RawFixtures.u;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tidemark.ingest.RawFixtures.Rec;
import io.tidemark.ingest.TestCrashRecovery.SimulatedCrash;
import io.tidemark.ingest.checkpoint.Checkpoint;
import io.tidemark.ingest.checkpoint.CheckpointCodec;
import io.tidemark.ingest.checkpoint.CheckpointLog;
import io.tidemark.ingest.config.IngestSettings;
import io.tidemark.ingest.config.OperatorOptions;
import io.tidemark.ingest.kernel.FailurePoint;
import io.tidemark.ingest.kernel.FailurePoints;
import io.tidemark.ingest.run.IngestJob;
import io.tidemark.ingest.run.IngestOutcome;
import io.tidemark.ingest.run.ReplaySelection;
import io.tidemark.ingest.tables.OutputTables;
import io.tidemark.model.report.IngestCounts;
import io.tidemark.model.report.IngestMode;
import io.tidemark.model.report.IngestRunReport;
import io.tidemark.model.report.IngestStatus;
import io.tidemark.model.testing.raw.RawColumn;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.iceberg.Table;
import org.apache.iceberg.spark.Spark3Util;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@code --mode replay-quarantine} on real Iceberg tables: records quarantined for a change marker
 * in the future (NOW plus the one-hour tolerance) are replayed once the clock has moved past them.
 */
@Tag("spark")
class TestQuarantineReplay extends SparkTestSupport {
  /** Two days after {@link #NOW}: the future markers below are in the past by then. */
  static final Instant LATER = Instant.parse("2024-03-22T00:00:00Z");

  /** Day 1: two valid records, two with a marker a day in the future, one with a null key. */
  static final List<Rec> DAY1 =
      List.of(
          u("C1", "Ada", "2024-03-01T10:00:00Z"),
          u("C2", "Bo", "2024-03-01T10:00:00Z"),
          u("C3", "Cy", "2024-03-21T00:00:00Z"),
          u("C4", "Di", "2024-03-21T00:00:00Z"),
          new Rec(null, "Nobody", "n@example.com", Instant.parse("2024-03-01T10:00:00Z"), "U"));

  @Test
  void futureRecordsAreMergedAfterTheClockMovedAndKeptMarkedInQuarantine(@TempDir Path dir)
      throws Exception {
    IngestSettings s = settings(dir).withMaxInvalidRatio(0.9);
    deliver(s, "2024-03-01", "a.parquet", DAY1);
    IngestRunReport first = new IngestJob(spark, s).run().report();
    assertThat(first.status()).isEqualTo(IngestStatus.SUCCEEDED);
    assertThat(curated(s)).containsOnlyKeys("C1", "C2");
    // A quarantine table written before the replay columns existed: the replay adds them.
    spark.sql(
        "ALTER TABLE "
            + s.quarantineSparkName()
            + " DROP COLUMNS "
            + OutputTables.REPLAYED_AT
            + ", "
            + OutputTables.REPLAY_BATCH_ID);
    Checkpoint before = checkpoint(s);

    IngestOutcome out = replay(s, LATER, OperatorOptions.replay(null, null, null, false));
    IngestRunReport r = out.report();

    assertThat(out.exitCode()).isZero();
    assertThat(r.status()).as(r.error()).isEqualTo(IngestStatus.SUCCEEDED);
    assertThat(r.mode()).isEqualTo(IngestMode.REPLAY_QUARANTINE);
    assertThat(r.inputFiles()).containsExactly(quarantinedPath(s, "a.parquet"));
    IngestCounts c = r.counts();
    assertThat(c.accountingErrors()).isEmpty();
    assertThat(c.recordsRead()).isEqualTo(3);
    assertThat(c.recordsChanged()).isEqualTo(3);
    assertThat(c.recordsInvalid()).isEqualTo(1);
    assertThat(c.recordsInserted()).isEqualTo(2);
    assertThat(c.recordsWritten()).isEqualTo(2);
    Map<String, List<Object>> table = curated(s);
    assertThat(table).containsOnlyKeys("C1", "C2", "C3", "C4");
    assertThat(table.get("C3"))
        .containsExactly("Cy", "cy@example.com", Instant.parse("2024-03-21T00:00:00Z"));
    // Kept for audit: C3 and C4 marked with the replay's batch, the null key not marked.
    assertThat(quarantine(s))
        .containsExactly(
            "a.parquet#2:FUTURE_CHANGE_MARKER:" + r.batchId(),
            "a.parquet#3:FUTURE_CHANGE_MARKER:" + r.batchId(),
            "a.parquet#4:NULL_KEY:-");
    // The replay's commit carries its batch, mode and counts, and no checkpoint.
    assertThat(commitsOnMain(s, r.batchId())).isEqualTo(1);
    Table t = Spark3Util.loadIcebergTable(spark, s.curatedSparkName());
    Map<String, String> summary = t.currentSnapshot().summary();
    assertThat(summary)
        .containsEntry(CheckpointCodec.MODE, IngestMode.REPLAY_QUARANTINE.name())
        .containsEntry(CheckpointCodec.RUN_ID, r.runId())
        .doesNotContainKey(CheckpointCodec.WATERMARK);
    assertThat(checkpoint(s)).isEqualTo(before);
    assertThat(r.watermarkBefore()).isEqualTo(r.watermarkAfter()).isEqualTo(before.watermark());
  }

  @Test
  void aBackfillThatQuarantinesReplayedRowsAgainKeepsTheirReplayMark(@TempDir Path dir)
      throws Exception {
    IngestSettings s = settings(dir).withMaxInvalidRatio(0.9);
    deliver(s, "2024-03-01", "a.parquet", DAY1);
    assertThat(new IngestJob(spark, s).run().report().status()).isEqualTo(IngestStatus.SUCCEEDED);
    IngestRunReport replayed =
        replay(s, LATER, OperatorOptions.replay(null, null, null, false)).report();
    assertThat(replayed.status()).as(replayed.error()).isEqualTo(IngestStatus.SUCCEEDED);

    // Under the original clock a backfill of the day finds C3 and C4 in the future again.
    java.time.LocalDate day = java.time.LocalDate.parse("2024-03-01");
    IngestRunReport backfill = new IngestJob(spark, s.backfill(day, day)).run().report();

    assertThat(backfill.status()).as(backfill.error()).isEqualTo(IngestStatus.SUCCEEDED);
    assertThat(backfill.counts().recordsInvalid()).isEqualTo(3);
    assertThat(quarantine(s))
        .as("a replayed row keeps its audit trail")
        .containsExactly(
            "a.parquet#2:FUTURE_CHANGE_MARKER:" + replayed.batchId(),
            "a.parquet#3:FUTURE_CHANGE_MARKER:" + replayed.batchId(),
            "a.parquet#4:NULL_KEY:-");
    assertThat(curated(s)).containsOnlyKeys("C1", "C2", "C3", "C4");
  }

  @Test
  void aReplayFirstRebuildsTheReportOfARunThatCommittedWithoutOne(@TempDir Path dir)
      throws Exception {
    IngestSettings s = settings(dir).withMaxInvalidRatio(0.9);
    deliver(s, "2024-03-01", "a.parquet", DAY1);
    assertThat(new IngestJob(spark, s).run().report().status()).isEqualTo(IngestStatus.SUCCEEDED);
    deliver(s, "2024-03-02", "b.parquet", List.of(u("C9", "x", "2024-03-02T10:00:00Z")));
    FailurePoints crash =
        p -> {
          if (p == FailurePoint.AFTER_COMMIT) {
            throw new TestCrashRecovery.SimulatedCrash(p);
          }
        };
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> new IngestJob(spark, s, crash).run())
        .isInstanceOf(TestCrashRecovery.SimulatedCrash.class);
    String crashedRun =
        Spark3Util.loadIcebergTable(spark, s.curatedSparkName())
            .currentSnapshot()
            .summary()
            .get(CheckpointCodec.RUN_ID);

    IngestRunReport r = replay(s, LATER, OperatorOptions.replay(null, null, null, false)).report();

    assertThat(r.status()).as(r.error()).isEqualTo(IngestStatus.SUCCEEDED);
    List<String> reported;
    try (java.util.stream.Stream<Path> files =
        java.nio.file.Files.walk(Path.of(s.stateRoot(), "_runs"))) {
      reported =
          files
              .filter(f -> f.toString().endsWith(".json"))
              .map(f -> io.tidemark.model.json.Json.read(f, IngestRunReport.class).runId())
              .toList();
    }
    assertThat(reported).as("the crashed run's report, rebuilt").contains(crashedRun, r.runId());
  }

  @Test
  void theVersionGuardKeepsANewerCuratedVersionAndTakesAnOlderOne(@TempDir Path dir)
      throws Exception {
    IngestSettings s = settings(dir).withMaxInvalidRatio(0.9);
    deliver(s, "2024-03-01", "a.parquet", DAY1);
    assertThat(new IngestJob(spark, s).run().report().status()).isEqualTo(IngestStatus.SUCCEEDED);
    // Meanwhile C3 arrived in a newer version (and C4 in an older one, below the quarantined).
    deliver(
        s,
        "2024-03-02",
        "b.parquet",
        List.of(
            u("C3", "Cy-new", "2024-03-21T06:00:00Z"), u("C4", "Di-old", "2024-03-02T00:00:00Z")));
    IngestSettings later = s.withClock(Clock.fixed(LATER, ZoneOffset.UTC));
    assertThat(new IngestJob(spark, later).run().report().status())
        .isEqualTo(IngestStatus.SUCCEEDED);

    IngestRunReport r = replay(s, LATER, OperatorOptions.replay(null, null, null, false)).report();

    assertThat(r.status()).as(r.error()).isEqualTo(IngestStatus.SUCCEEDED);
    assertThat(r.counts().accountingErrors()).isEmpty();
    assertThat(r.counts().recordsUnchanged()).isEqualTo(1);
    assertThat(r.counts().recordsUpdated()).isEqualTo(1);
    assertThat(r.counts().recordsInserted()).isZero();
    Map<String, List<Object>> table = curated(s);
    assertThat(table.get("C3").get(0)).isEqualTo("Cy-new");
    assertThat(table.get("C4").get(0)).isEqualTo("Di");
    // Both were replayed: the version guard decided, and the older one stays out for good.
    assertThat(quarantine(s))
        .containsExactly(
            "a.parquet#2:FUTURE_CHANGE_MARKER:" + r.batchId(),
            "a.parquet#3:FUTURE_CHANGE_MARKER:" + r.batchId(),
            "a.parquet#4:NULL_KEY:-");
  }

  @Test
  void filtersSelectOnlyMatchingRows(@TempDir Path dir) throws Exception {
    IngestSettings s = settings(dir).withMaxInvalidRatio(1.0);
    deliver(s, "2024-03-01", "a.parquet", DAY1);
    String day1Batch = new IngestJob(spark, s).run().report().batchId();
    deliver(s, "2024-03-02", "b.parquet", List.of(u("C5", "Ed", "2024-03-21T00:00:00Z")));
    assertThat(new IngestJob(spark, s).run().report().status()).isEqualTo(IngestStatus.SUCCEEDED);
    String b = quarantinedPath(s, "b.parquet");

    // Only file b.
    IngestRunReport byFile =
        replay(s, LATER, OperatorOptions.replay(null, null, b, false)).report();
    assertThat(byFile.status()).as(byFile.error()).isEqualTo(IngestStatus.SUCCEEDED);
    assertThat(byFile.inputFiles()).containsExactly(b);
    assertThat(curated(s)).containsOnlyKeys("C1", "C2", "C5");
    assertThat(quarantine(s))
        .containsExactly(
            "a.parquet#2:FUTURE_CHANGE_MARKER:-",
            "a.parquet#3:FUTURE_CHANGE_MARKER:-",
            "a.parquet#4:NULL_KEY:-",
            "b.parquet#0:FUTURE_CHANGE_MARKER:" + byFile.batchId());

    // A reason no selected row has: nothing selected, and the run says so.
    IngestRunReport none =
        replay(s, LATER, OperatorOptions.replay("UNKNOWN_OPERATION", day1Batch, null, false))
            .report();
    assertThat(none.status()).isEqualTo(IngestStatus.NOTHING_TO_DO);
    assertThat(none.warnings())
        .containsExactly(
            "Nothing to replay: "
                + s.quarantineSparkName()
                + " holds no row not yet replayed with reason UNKNOWN_OPERATION, quarantined by"
                + " batch "
                + day1Batch
                + "; nothing committed");
    IngestRunReport noFile =
        replay(s, LATER, OperatorOptions.replay(null, null, b + ".old", false)).report();
    assertThat(noFile.warnings())
        .containsExactly(
            "Nothing to replay: "
                + s.quarantineSparkName()
                + " holds no row not yet replayed from file "
                + b
                + ".old; nothing committed");

    // Day 1's null keys: selected, still invalid, left unmarked.
    IngestRunReport nulls =
        replay(s, LATER, OperatorOptions.replay("NULL_KEY", day1Batch, null, false)).report();
    assertThat(nulls.status()).isEqualTo(IngestStatus.NOTHING_TO_DO);
    assertThat(nulls.warnings())
        .anySatisfy(w -> assertThat(w).contains("NULL_KEY: 0 now valid, 1 still invalid"));

    // Day 1's future markers.
    IngestRunReport future =
        replay(s, LATER, OperatorOptions.replay("future_change_marker", day1Batch, null, false))
            .report();
    assertThat(future.status()).as(future.error()).isEqualTo(IngestStatus.SUCCEEDED);
    assertThat(future.counts().recordsInserted()).isEqualTo(2);
    assertThat(curated(s)).containsOnlyKeys("C1", "C2", "C3", "C4", "C5");
    assertThat(quarantine(s))
        .containsExactly(
            "a.parquet#2:FUTURE_CHANGE_MARKER:" + future.batchId(),
            "a.parquet#3:FUTURE_CHANGE_MARKER:" + future.batchId(),
            "a.parquet#4:NULL_KEY:-",
            "b.parquet#0:FUTURE_CHANGE_MARKER:" + byFile.batchId());
  }

  @Test
  void aSecondReplayChangesNothingAndWholeFileEntriesAreLeft(@TempDir Path dir) throws Exception {
    IngestSettings s = settings(dir).withMaxInvalidRatio(0.9);
    deliver(s, "2024-03-01", "a.parquet", DAY1);
    // A file without the email column: quarantined whole (its rows carry a whole-file reason).
    List<RawColumn> noEmail =
        List.of(
            RawColumn.of("customer_id", "VARCHAR"),
            RawColumn.of("customer_name", "VARCHAR"),
            RawColumn.of("updated_at", "TIMESTAMPTZ"));
    RawFixtures.write(
        Path.of(s.dataset().raw().location(), "ingest_date=2024-03-01", "c.parquet"),
        noEmail,
        List.of(
            Arrays.asList(
                "C9", "Ivy", java.sql.Timestamp.from(Instant.parse("2024-03-01T10:00:00Z")))));
    assertThat(new IngestJob(spark, s).run().report().status()).isEqualTo(IngestStatus.SUCCEEDED);
    assertThat(quarantine(s)).contains("c.parquet#0:MISSING_COLUMN:-");

    IngestRunReport r = replay(s, LATER, OperatorOptions.replay(null, null, null, false)).report();
    assertThat(r.status()).as(r.error()).isEqualTo(IngestStatus.SUCCEEDED);
    assertThat(r.counts().recordsRead()).isEqualTo(4);
    assertThat(r.counts().recordsChanged()).isEqualTo(3);
    assertThat(r.warnings())
        .anySatisfy(
            w ->
                assertThat(w)
                    .contains("1 quarantine row(s) of 1 file(s) quarantined whole were left")
                    .contains("c.parquet (MISSING_COLUMN, 1 row(s))"));
    assertThat(curated(s)).doesNotContainKey("C9");
    Map<String, Long> snapshots = snapshots(s);

    IngestOutcome again = replay(s, LATER, OperatorOptions.replay(null, null, null, false));
    assertThat(again.exitCode()).isZero();
    assertThat(again.report().status()).isEqualTo(IngestStatus.NOTHING_TO_DO);
    assertThat(snapshots(s)).isEqualTo(snapshots);
    assertThat(quarantine(s))
        .containsExactly(
            "a.parquet#2:FUTURE_CHANGE_MARKER:" + r.batchId(),
            "a.parquet#3:FUTURE_CHANGE_MARKER:" + r.batchId(),
            "a.parquet#4:NULL_KEY:-",
            "c.parquet#0:MISSING_COLUMN:-");
  }

  @ParameterizedTest
  @EnumSource(
      value = FailurePoint.class,
      names = {"BEFORE_PUBLISH", "AFTER_COMMIT"})
  void aCrashBetweenCommitAndMarkingIsFinishedByTheRerun(FailurePoint point, @TempDir Path dir)
      throws Exception {
    IngestSettings s = settings(dir).withMaxInvalidRatio(0.9);
    deliver(s, "2024-03-01", "a.parquet", DAY1);
    assertThat(new IngestJob(spark, s).run().report().status()).isEqualTo(IngestStatus.SUCCEEDED);
    IngestSettings replay =
        s.withOperator(
                IngestMode.REPLAY_QUARANTINE, OperatorOptions.replay(null, null, null, false))
            .withClock(Clock.fixed(LATER, ZoneOffset.UTC));
    String[] crashed = new String[1];
    FailurePoints crashAt =
        FailurePoints.withBatchId(
            (p, batchId) -> {
              if (p == point) {
                crashed[0] = batchId;
                throw new SimulatedCrash(p);
              }
            });
    assertThatThrownBy(() -> new IngestJob(spark, replay, crashAt).run())
        .isInstanceOf(SimulatedCrash.class);
    assertThat(commitsOnMain(s, crashed[0])).isEqualTo(point == FailurePoint.AFTER_COMMIT ? 1 : 0);
    assertThat(quarantine(s)).allSatisfy(q -> assertThat(q).endsWith(":-"));

    IngestRunReport r = new IngestJob(spark, replay).run().report();

    assertThat(r.batchId()).isEqualTo(crashed[0]);
    assertThat(r.status())
        .as(r.error())
        .isEqualTo(
            point == FailurePoint.AFTER_COMMIT
                ? IngestStatus.ALREADY_COMMITTED
                : IngestStatus.SUCCEEDED);
    assertThat(r.counts().accountingErrors()).isEmpty();
    assertThat(commitsOnMain(s, r.batchId())).isEqualTo(1);
    assertThat(curated(s)).containsOnlyKeys("C1", "C2", "C3", "C4"); // curated() fails on a twin
    assertThat(quarantine(s))
        .containsExactly(
            "a.parquet#2:FUTURE_CHANGE_MARKER:" + r.batchId(),
            "a.parquet#3:FUTURE_CHANGE_MARKER:" + r.batchId(),
            "a.parquet#4:NULL_KEY:-");
    Map<String, Long> snapshots = snapshots(s);
    assertThat(new IngestJob(spark, replay).run().report().status())
        .isEqualTo(IngestStatus.NOTHING_TO_DO);
    assertThat(snapshots(s)).isEqualTo(snapshots);
  }

  @Test
  void aDryRunSaysWhatWouldHappenAndWritesNothing(@TempDir Path dir) throws Exception {
    IngestSettings s = settings(dir).withMaxInvalidRatio(0.9);
    deliver(s, "2024-03-01", "a.parquet", DAY1);
    assertThat(new IngestJob(spark, s).run().report().status()).isEqualTo(IngestStatus.SUCCEEDED);
    Map<String, Long> snapshots = snapshots(s);

    IngestOutcome out = replay(s, LATER, OperatorOptions.replay(null, null, null, true));

    assertThat(out.exitCode()).isZero();
    IngestRunReport r = out.report();
    assertThat(r.status()).isEqualTo(IngestStatus.NOTHING_TO_DO);
    assertThat(r.warnings().get(0))
        .startsWith(ReplaySelection.DRY_RUN)
        .contains("would merge 2 record(s)")
        .contains("insert 2, update 0")
        .contains("1 stay quarantined")
        .contains("FUTURE_CHANGE_MARKER: 2 now valid, 0 still invalid")
        .contains("NULL_KEY: 0 now valid, 1 still invalid");
    assertThat(snapshots(s)).isEqualTo(snapshots);
    assertThat(curated(s)).containsOnlyKeys("C1", "C2");
    assertThat(quarantine(s)).allSatisfy(q -> assertThat(q).endsWith(":-"));
  }

  @Test
  void aNormalRunAfterAReplayStillFindsItsCheckpointAndNewFiles(@TempDir Path dir)
      throws Exception {
    IngestSettings s = settings(dir).withMaxInvalidRatio(0.9);
    deliver(s, "2024-03-01", "a.parquet", DAY1);
    IngestRunReport first = new IngestJob(spark, s).run().report();
    assertThat(replay(s, LATER, OperatorOptions.replay(null, null, null, false)).report().status())
        .isEqualTo(IngestStatus.SUCCEEDED);
    deliver(s, "2024-03-02", "b.parquet", List.of(u("C1", "Ada2", "2024-03-02T10:00:00Z")));

    IngestRunReport next =
        new IngestJob(spark, s.withClock(Clock.fixed(LATER, ZoneOffset.UTC))).run().report();

    assertThat(next.status()).as(next.error()).isEqualTo(IngestStatus.SUCCEEDED);
    assertThat(next.mode()).isEqualTo(IngestMode.INCREMENTAL);
    assertThat(next.inputFiles()).singleElement().asString().endsWith("/b.parquet");
    assertThat(next.counts().filesSkipped()).isEqualTo(1);
    assertThat(next.watermarkBefore()).isEqualTo(first.watermarkAfter());
    assertThat(curated(s).get("C1").get(0)).isEqualTo("Ada2");
    assertThat(curated(s)).containsOnlyKeys("C1", "C2", "C3", "C4");
  }

  static String deliver(IngestSettings s, String date, String name, List<Rec> recs) {
    return RawFixtures.write(Path.of(s.dataset().raw().location()), date, name, recs).toString();
  }

  /** The source file path of a quarantined file, as the quarantine table holds it. */
  static String quarantinedPath(IngestSettings s, String name) {
    return spark
        .table(s.quarantineSparkName())
        .select("source_file")
        .distinct()
        .collectAsList()
        .stream()
        .map(r -> r.getString(0))
        .filter(f -> f.endsWith("/" + name))
        .findFirst()
        .orElseThrow();
  }

  static IngestOutcome replay(IngestSettings s, Instant now, OperatorOptions o) {
    return new IngestJob(
            spark,
            s.withOperator(IngestMode.REPLAY_QUARANTINE, o)
                .withClock(Clock.fixed(now, ZoneOffset.UTC)))
        .run();
  }

  static Checkpoint checkpoint(IngestSettings s) throws Exception {
    return CheckpointLog.latest(Spark3Util.loadIcebergTable(spark, s.curatedSparkName()))
        .orElseThrow();
  }

  /** Quarantine rows as "file#row:reason:replay batch or -", sorted. */
  static List<String> quarantine(IngestSettings s) {
    return spark
        .table(s.quarantineSparkName())
        .select("source_file", "row_number", "reason", OutputTables.REPLAY_BATCH_ID)
        .collectAsList()
        .stream()
        .map(
            (Row r) -> {
              String file = r.getString(0);
              return file.substring(file.lastIndexOf('/') + 1)
                  + "#"
                  + r.getLong(1)
                  + ":"
                  + r.getString(2)
                  + ":"
                  + (r.isNullAt(3) ? "-" : r.getString(3));
            })
        .sorted()
        .toList();
  }

  /** Each output table's current snapshot id and metadata history size. */
  static Map<String, Long> snapshots(IngestSettings s) throws Exception {
    Map<String, Long> out = new TreeMap<>();
    for (String name :
        List.of(s.curatedSparkName(), s.quarantineSparkName(), s.tombstoneSparkName())) {
      Table t = Spark3Util.loadIcebergTable(spark, name);
      out.put(name, OutputTables.snapshotId(t));
      long n = 0;
      for (org.apache.iceberg.Snapshot ignored : t.snapshots()) {
        n++;
      }
      out.put(name + "#snapshots", n);
    }
    return out;
  }
}
