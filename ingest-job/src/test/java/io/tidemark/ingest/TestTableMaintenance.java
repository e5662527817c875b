package io.tidemark.ingest;

import static io.tidemark.ingest.RawFixtures.d;
import static io.tidemark.ingest.RawFixtures.u;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tidemark.ingest.RawFixtures.Rec;
import io.tidemark.ingest.checkpoint.CheckpointCodec;
import io.tidemark.ingest.checkpoint.CheckpointLog;
import io.tidemark.ingest.config.IngestSettings;
import io.tidemark.ingest.config.OperatorOptions;
import io.tidemark.ingest.maintain.TableMaintainer;
import io.tidemark.ingest.run.IngestJob;
import io.tidemark.ingest.run.IngestOutcome;
import io.tidemark.model.report.IngestCounts;
import io.tidemark.model.report.IngestErrorCode;
import io.tidemark.model.report.IngestMode;
import io.tidemark.model.report.IngestRunReport;
import io.tidemark.model.report.IngestStatus;
import io.tidemark.model.report.TableMaintenance;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.spark.Spark3Util;
import org.apache.iceberg.spark.actions.SparkActions;
import org.apache.iceberg.util.SnapshotUtil;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The curated table maintained behind the job's back, as AWS Glue's table optimizers or an
 * operator's procedures do: compaction, rewritten delete files, expired snapshots and removed
 * orphans must not cost a full refresh, lose a record or make the sweep read a file again.
 */
@Tag("spark")
class TestTableMaintenance extends SparkTestSupport {
  @TempDir Path dir;

  @Test
  void incrementalRunsGoOnAfterCompactionExpiryAndOrphanRemovalByAnotherEngine() throws Exception {
    IngestSettings s = settings(dir);
    Path raw = Path.of(s.dataset().raw().location());
    List<Rec> delivered = new ArrayList<>();
    twoDays(s, raw, delivered);

    maintain(s);
    Table curated = Spark3Util.loadIcebergTable(spark, s.curatedSparkName());
    assertThat(checkpointsOnMain(curated)).as("expiry left no checkpoint on main").isZero();
    assertThat(CheckpointLog.latest(curated)).isPresent();
    assertThat(curated(s)).isEqualTo(TestMultiDayScenario.expectedState(delivered));

    IngestOutcome day3 = thirdDay(s, raw, delivered);
    IngestCounts counts = day3.report().counts();
    assertThat(counts.recordsRead()).isEqualTo(3);
    assertThat(counts.recordsUpdated()).isEqualTo(1);
    assertThat(counts.recordsDeleted()).isEqualTo(1);
    assertThat(counts.recordsInserted()).isEqualTo(1);
    assertThat(counts.accountingErrors()).isEmpty();
    assertThat(day3.report().watermarkBefore()).isEqualTo("2024-03-02T09:10:00Z");
    assertThat(curated(s)).isEqualTo(TestMultiDayScenario.expectedState(delivered));

    // Maintained again: the sweep still knows every file a batch read, so it reads none again.
    maintain(s);
    IngestOutcome sweep = new IngestJob(spark, s.withMode(IngestMode.SWEEP)).run();
    assertThat(sweep.report().status())
        .as(sweep.report().error())
        .isEqualTo(IngestStatus.NOTHING_TO_DO);
    assertThat(new IngestJob(spark, s).run().report().status())
        .isEqualTo(IngestStatus.NOTHING_TO_DO);
    // Expiry keeps the tagged checkpoint's snapshot only: the history stays short.
    assertThat(Spark3Util.loadIcebergTable(spark, s.curatedSparkName()).snapshots()).hasSize(2);
    assertThat(curated(s)).isEqualTo(TestMultiDayScenario.expectedState(delivered));
  }

  @Test
  void incrementalRunFailsWhenTheCheckpointAndItsTagAreGoneAndFullRefreshRebuilds()
      throws Exception {
    IngestSettings s = settings(dir);
    Path raw = Path.of(s.dataset().raw().location());
    List<Rec> delivered = new ArrayList<>();
    deliver(
        raw,
        "2024-03-01",
        delivered,
        u("C1", "Ada", "2024-03-01T10:00:00Z"),
        u("C2", "Bo", "2024-03-01T10:05:00Z"));
    assertThat(new IngestJob(spark, s).run().report().status()).isEqualTo(IngestStatus.SUCCEEDED);

    // An operator drops the tag, then everything but the current snapshot expires.
    spark.sql("ALTER TABLE " + s.curatedSparkName() + " DROP TAG " + CheckpointLog.TAG);
    maintain(s);
    Table curated = Spark3Util.loadIcebergTable(spark, s.curatedSparkName());
    assertThat(CheckpointLog.latest(curated)).isEmpty();
    long snapshot = curated.currentSnapshot().snapshotId();
    Map<String, List<Object>> before = curated(s);

    deliver(
        raw,
        "2024-03-02",
        delivered,
        u("C1", "Ada2", "2024-03-02T09:00:00Z"),
        u("C3", "Cy", "2024-03-02T09:10:00Z"));
    IngestOutcome incremental = new IngestJob(spark, s).run();
    assertThat(incremental.exitCode()).isEqualTo(2);
    assertThat(incremental.report().status()).isEqualTo(IngestStatus.FAILED);
    assertThat(incremental.report().errorCode()).isEqualTo(IngestErrorCode.CHECKPOINT_NOT_FOUND);
    assertThat(incremental.report().error())
        .isEqualTo(
            "Cannot find Tidemark's checkpoint in the retained history of "
                + s.curatedSparkName()
                + ": the table has data but neither a snapshot written by Tidemark nor its tag "
                + CheckpointLog.TAG
                + " (were its snapshots expired after the tag was dropped?)."
                + " Run with --mode full-refresh to rebuild from raw.");
    assertThat(
            Spark3Util.loadIcebergTable(spark, s.curatedSparkName()).currentSnapshot().snapshotId())
        .isEqualTo(snapshot);
    assertThat(curated(s)).isEqualTo(before);

    IngestOutcome full = new IngestJob(spark, s.withMode(IngestMode.FULL_REFRESH)).run();
    assertThat(full.report().status()).as(full.report().error()).isEqualTo(IngestStatus.SUCCEEDED);
    assertThat(full.exitCode()).isZero();
    assertThat(full.report().counts().accountingErrors()).isEmpty();
    assertThat(curated(s)).isEqualTo(TestMultiDayScenario.expectedState(delivered));

    // The full refresh wrote a checkpoint and tagged it: incremental runs go on from it.
    assertThat(
            Spark3Util.loadIcebergTable(spark, s.curatedSparkName()).refs().get(CheckpointLog.TAG))
        .isNotNull();
    IngestOutcome after = new IngestJob(spark, s).run();
    assertThat(after.report().status()).isEqualTo(IngestStatus.NOTHING_TO_DO);
  }

  @Test
  void maintainModeCompactsExpiresAndRemovesOrphansKeepingTheCheckpoint() throws Exception {
    // Snapshots carry the real time of their commit: the run's clock must be the real one.
    IngestSettings s = settings(dir).withClock(Clock.systemUTC());
    Path raw = Path.of(s.dataset().raw().location());
    List<Rec> delivered = new ArrayList<>();
    twoDays(s, raw, delivered);
    Table curated = Spark3Util.loadIcebergTable(spark, s.curatedSparkName());
    long snapshotsBefore = TableMaintainer.snapshots(curated);
    // A file a crashed writer left under the table's data folder, long ago.
    String location = curated.location();
    Path orphan =
        (location.startsWith("file:") ? Path.of(java.net.URI.create(location)) : Path.of(location))
            .resolve("data/orphan.parquet");
    Files.createDirectories(orphan.getParent());
    Files.writeString(orphan, "left by a writer that died");
    Files.setLastModifiedTime(orphan, FileTime.from(Instant.now().minus(Duration.ofDays(10))));

    IngestSettings maintain =
        s.withOperator(IngestMode.MAINTAIN, OperatorOptions.maintain(Duration.ZERO, null));
    IngestOutcome run = new IngestJob(spark, maintain).run();
    IngestRunReport r = run.report();
    assertThat(r.status()).as(r.error()).isEqualTo(IngestStatus.SUCCEEDED);
    assertThat(run.exitCode()).isZero();
    assertThat(r.mode()).isEqualTo(IngestMode.MAINTAIN);
    assertThat(r.batchId()).isNull();
    assertThat(r.maintenance())
        .extracting(TableMaintenance::table)
        .containsExactly(s.curatedSparkName(), s.quarantineSparkName(), s.tombstoneSparkName());
    TableMaintenance c = r.maintenance().get(0);
    // The small files of the three commits compacted into fewer.
    assertThat(c.dataFilesRewritten()).isGreaterThan(c.dataFilesAdded());
    // Every snapshot before it expired, but the tagged one; the compaction added one.
    assertThat(c.snapshotsExpired()).isEqualTo(snapshotsBefore + 1 - c.snapshots());
    // What is left: the current snapshot and, if a compaction committed after it, the tagged one.
    assertThat(c.snapshots()).isBetween(1L, 2L);
    assertThat(c.orphanFilesRemoved()).isEqualTo(1);
    assertThat(orphan).doesNotExist();
    assertThat(curated(s)).isEqualTo(TestMultiDayScenario.expectedState(delivered));

    // Nothing left to do.
    IngestOutcome again = new IngestJob(spark, maintain).run();
    assertThat(again.report().status())
        .as(again.report().maintenance().toString())
        .isEqualTo(IngestStatus.NOTHING_TO_DO);

    // The next day goes on from the checkpoint.
    IngestOutcome day3 = thirdDay(s, raw, delivered);
    assertThat(day3.report().counts().recordsRead()).isEqualTo(3);
    assertThat(day3.report().counts().accountingErrors()).isEmpty();
    assertThat(curated(s)).isEqualTo(TestMultiDayScenario.expectedState(delivered));
  }

  /**
   * The remembered deletes stay as many as the keys deleted now, not every delete ever made:
   * maintain mode keeps each key's newest delete and drops those of keys live again with a newer
   * version, and the version guard still keeps late versions out.
   */
  @Test
  void maintainModeKeepsOneRememberedDeletePerKeyStillDeleted() throws Exception {
    IngestSettings s = settings(dir);
    Path raw = Path.of(s.dataset().raw().location());
    List<Rec> delivered = new ArrayList<>();
    List<List<Rec>> days =
        List.of(
            List.of(
                u("C1", "Ada", "2024-03-01T10:00:00Z"),
                u("C2", "Bo", "2024-03-01T10:05:00Z"),
                u("C3", "Cy", "2024-03-01T10:10:00Z")),
            // C1 and C2 deleted,
            List.of(d("C1", "2024-03-02T09:00:00Z"), d("C2", "2024-03-02T09:00:00Z")),
            // then C1 back, and C2 deleted again.
            List.of(u("C1", "Ada again", "2024-03-03T09:00:00Z"), d("C2", "2024-03-03T09:00:00Z")));
    for (int day = 0; day < days.size(); day++) {
      deliver(raw, "2024-03-0" + (day + 1), delivered, days.get(day).toArray(Rec[]::new));
      assertThat(new IngestJob(spark, s).run().report().status()).isEqualTo(IngestStatus.SUCCEEDED);
    }
    assertThat(tombstones(s))
        .containsExactlyInAnyOrder(
            "C1 2024-03-02T09:00:00Z", "C2 2024-03-02T09:00:00Z", "C2 2024-03-03T09:00:00Z");
    // A delete newer than the key's live row, as a batch held on its branch leaves it while main
    // still has the row: it is the one that will keep a late version out once the batch is
    // published, so it stays.
    spark.sql(
        "INSERT INTO "
            + s.tombstoneSparkName()
            + " VALUES ('C3', TIMESTAMP '2024-03-05 00:00:00', 'held-batch')");

    IngestOutcome run =
        new IngestJob(
                spark,
                s.withOperator(IngestMode.MAINTAIN, OperatorOptions.maintain(Duration.ZERO, null)))
            .run();
    assertThat(run.report().status()).as(run.report().error()).isEqualTo(IngestStatus.SUCCEEDED);
    TableMaintenance t = run.report().maintenance().get(2);
    assertThat(t.table()).isEqualTo(s.tombstoneSparkName());
    assertThat(t.rowsRemoved()).as(t.describe()).isEqualTo(2);
    assertThat(t.describe()).contains("2 remembered row(s) no longer needed removed");
    assertThat(run.report().maintenance().get(0).rowsRemoved()).isZero();
    assertThat(tombstones(s))
        .containsExactlyInAnyOrder("C2 2024-03-03T09:00:00Z", "C3 2024-03-05T00:00:00Z");
    // The fold's overwrite, like every commit of the job, names the run that made it.
    List<String> folds =
        spark
            .sql(
                "SELECT summary['"
                    + io.tidemark.ingest.checkpoint.CheckpointCodec.RUN_ID
                    + "'] FROM "
                    + s.tombstoneSparkName()
                    + ".snapshots WHERE operation = 'overwrite'")
            .as(org.apache.spark.sql.Encoders.STRING())
            .collectAsList();
    assertThat(folds).containsExactly(run.report().runId());

    // Late versions: C2's between its two deletes, C1's older than its live row. Both stay out.
    deliver(
        raw,
        "2024-03-04",
        delivered,
        u("C2", "Bo late", "2024-03-02T12:00:00Z"),
        u("C1", "Ada old", "2024-03-02T08:00:00Z"));
    IngestOutcome late = new IngestJob(spark, s).run();
    assertThat(late.report().status()).isEqualTo(IngestStatus.SUCCEEDED);
    assertThat(late.report().counts().recordsUnchanged()).isEqualTo(2);
    assertThat(curated(s)).isEqualTo(TestMultiDayScenario.expectedState(delivered));
  }

  /** The remembered deletes as {@code key marker}. */
  private static List<String> tombstones(IngestSettings s) {
    return spark.table(s.tombstoneSparkName()).collectAsList().stream()
        .map(r -> r.getString(0) + " " + r.getTimestamp(1).toInstant())
        .toList();
  }

  @Test
  void maintenanceOptionsBelongToTheMaintainModeAndTheOrphanAgeIsAtLeastADay() {
    IngestSettings s = settings(dir);
    assertThatThrownBy(
            () ->
                s.withOperator(
                    IngestMode.INCREMENTAL, OperatorOptions.maintain(Duration.ofDays(1), null)))
        .hasMessageContaining("only --mode maintain takes it, not --mode incremental");
    assertThatThrownBy(() -> OperatorOptions.maintain(null, Duration.ofHours(2)))
        .hasMessageContaining("must be at least PT24H");
  }

  /** Two daily batches, each run incrementally: inserts, then an update, a delete and an insert. */
  private void twoDays(IngestSettings s, Path raw, List<Rec> delivered) throws Exception {
    deliver(
        raw,
        "2024-03-01",
        delivered,
        u("C1", "Ada", "2024-03-01T10:00:00Z"),
        u("C2", "Bo", "2024-03-01T10:05:00Z"),
        u("C3", "Cy", "2024-03-01T10:10:00Z"));
    assertThat(new IngestJob(spark, s).run().report().status()).isEqualTo(IngestStatus.SUCCEEDED);
    deliver(
        raw,
        "2024-03-02",
        delivered,
        u("C1", "Ada2", "2024-03-02T09:00:00Z"),
        d("C2", "2024-03-02T09:05:00Z"),
        u("C4", "Di", "2024-03-02T09:10:00Z"));
    assertThat(new IngestJob(spark, s).run().report().status()).isEqualTo(IngestStatus.SUCCEEDED);
  }

  /** A third daily batch, an update, a delete and an insert, which must succeed. */
  private IngestOutcome thirdDay(IngestSettings s, Path raw, List<Rec> delivered) throws Exception {
    deliver(
        raw,
        "2024-03-03",
        delivered,
        u("C1", "Ada3", "2024-03-03T08:00:00Z"),
        d("C3", "2024-03-03T08:05:00Z"),
        u("C5", "Ed", "2024-03-03T08:10:00Z"));
    IngestOutcome day3 = new IngestJob(spark, s).run();
    assertThat(day3.report().status()).as(day3.report().error()).isEqualTo(IngestStatus.SUCCEEDED);
    return day3;
  }

  private static void deliver(Path raw, String day, List<Rec> delivered, Rec... recs)
      throws Exception {
    List<Rec> batch = List.of(recs);
    RawFixtures.write(raw, day, "part-0001.parquet", batch);
    delivered.addAll(batch);
  }

  /**
   * What AWS Glue's optimizers do, with Iceberg's Spark procedures: every data file and position
   * delete file rewritten, every snapshot but the current one expired, unreferenced files removed
   * (at once, where the optimizers wait days).
   */
  private static void maintain(IngestSettings s) throws Exception {
    String call = "CALL " + s.catalog().name() + ".system.";
    String table = "table => '" + s.curatedSparkName().substring(s.catalog().name().length() + 1);
    spark.sql(call + "rewrite_data_files(" + table + "', options => map('rewrite-all', 'true'))");
    spark.sql(
        call
            + "rewrite_position_delete_files("
            + table
            + "', options => map('rewrite-all', 'true'))");
    String now =
        "TIMESTAMP '"
            + DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSS")
                .withZone(ZoneOffset.UTC)
                .format(Instant.now())
            + "'";
    spark.sql(
        call + "expire_snapshots(" + table + "', older_than => " + now + ", retain_last => 1)");
    // The procedure refuses an age under a day; the action it runs takes any.
    SparkActions.get(spark)
        .deleteOrphanFiles(Spark3Util.loadIcebergTable(spark, s.curatedSparkName()))
        .olderThan(System.currentTimeMillis())
        .execute();
  }

  private static long checkpointsOnMain(Table t) {
    long n = 0;
    for (Snapshot snap : SnapshotUtil.ancestorsOf(t.currentSnapshot().snapshotId(), t::snapshot)) {
      if (CheckpointCodec.decode(snap.snapshotId(), snap.summary()).isPresent()) {
        n++;
      }
    }
    return n;
  }
}
