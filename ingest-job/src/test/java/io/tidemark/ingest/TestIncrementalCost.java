package io.tidemark.ingest;

import static io.tidemark.ingest.RawFixtures.d;
import static io.tidemark.ingest.RawFixtures.u;
import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.ingest.RawFixtures.Rec;
import io.tidemark.ingest.checkpoint.CheckpointCodec;
import io.tidemark.ingest.config.IngestSettings;
import io.tidemark.ingest.config.IngestSpark;
import io.tidemark.ingest.run.IngestJob;
import io.tidemark.model.contract.DatasetContract;
import io.tidemark.model.report.IngestCounts;
import io.tidemark.model.report.IngestErrorCode;
import io.tidemark.model.report.IngestRunReport;
import io.tidemark.model.report.IngestStatus;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.spark.Spark3Util;
import org.apache.iceberg.util.SnapshotUtil;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerTaskEnd;
import org.apache.spark.sql.execution.QueryExecution;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.adaptive.AdaptiveSparkPlanExec;
import org.apache.spark.sql.execution.adaptive.QueryStageExec;
import org.apache.spark.sql.execution.datasources.v2.BatchScanExec;
import org.apache.spark.sql.util.QueryExecutionListener;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What an incremental batch costs, in rows as Spark's task metrics count them: the point of the job
 * is that this grows with the change, not with the table. The curated table is read once, to plan
 * the batch against it (which finds the file and position of each row an update or delete
 * replaces), however many writes the batch makes, and it is never shuffled; above the position
 * deletes' cap, a MERGE reads it a second time.
 */
@Tag("spark")
class TestIncrementalCost extends SparkTestSupport {
  static final int KEYS = 20_000;

  /** Rows read from any source, and rows written to shuffles, by the tasks that ended. */
  static final class RowCounter extends SparkListener {
    final AtomicLong read = new AtomicLong();
    final AtomicLong shuffled = new AtomicLong();

    @Override
    public void onTaskEnd(SparkListenerTaskEnd end) {
      if (end.taskMetrics() != null) {
        read.addAndGet(end.taskMetrics().inputMetrics().recordsRead());
        shuffled.addAndGet(end.taskMetrics().shuffleWriteMetrics().recordsWritten());
      }
    }
  }

  @Test
  void anIncrementalBatchReadsTheTableOnceAndNeverShufflesIt(@TempDir Path dir) throws Exception {
    IngestSettings s = settings(dir);
    Path raw = Path.of(s.dataset().raw().location());
    List<Rec> day1 = new ArrayList<>();
    for (int i = 0; i < KEYS; i++) {
      day1.add(u(key(i), "N" + i, "2024-03-01T10:00:00Z"));
    }
    RawFixtures.write(raw, "2024-03-01", "a.parquet", day1);
    assertThat(new IngestJob(spark, s).run().report().status()).isEqualTo(IngestStatus.SUCCEEDED);

    // Day 2's changes are spread over the whole table: 90 updates, 30 deletes, 120 new keys.
    List<Rec> day2 = new ArrayList<>();
    for (int i = 0; i < KEYS; i += 100) {
      day2.add(
          i % 400 == 0
              ? d(key(i), "2024-03-02T09:00:00Z")
              : u(key(i), "M" + i, "2024-03-02T09:00:00Z"));
      day2.add(u(key(KEYS + i), "New" + i, "2024-03-02T09:00:00Z"));
    }
    day2 = day2.subList(0, 240);
    RawFixtures.write(raw, "2024-03-02", "a.parquet", day2);
    Table table = Spark3Util.loadIcebergTable(spark, s.curatedSparkName());
    long before = table.currentSnapshot().snapshotId();
    String threshold = spark.conf().get("spark.sql.autoBroadcastJoinThreshold");

    RowCounter rows = new RowCounter();
    spark.sparkContext().addSparkListener(rows);
    IngestRunReport report;
    try {
      report = new IngestJob(spark, s).run().report();
      spark.sparkContext().listenerBus().waitUntilEmpty();
    } finally {
      spark.sparkContext().removeSparkListener(rows);
    }

    assertThat(report.status()).as(report.error()).isEqualTo(IngestStatus.SUCCEEDED);
    IngestCounts c = report.counts();
    assertThat(c.recordsInserted()).isEqualTo(120);
    assertThat(c.recordsUpdated()).isEqualTo(90);
    assertThat(c.recordsDeleted()).isEqualTo(30);
    assertThat(curated(s)).hasSize(KEYS + 120 - 30);
    assertThat(curated(s).get(key(100)).get(0)).isEqualTo("M100");
    assertThat(curated(s)).doesNotContainKey(key(400));

    // The table once, plus the day's file and the small quarantine and tombstone tables. A MERGE
    // of the updates and deletes reads it a second time; a batch planned again after one of its
    // writes (a cache Spark drops once a table it read is written), a third.
    assertThat(rows.read.get())
        .as("rows read by the incremental run of a %d-row table", KEYS)
        .isBetween((long) KEYS, KEYS + 2_000L);
    // The plan streams the table against the broadcast keys; a shuffled join would write every
    // row of it to a shuffle.
    assertThat(rows.shuffled.get()).as("rows shuffled").isLessThan(KEYS / 4);
    assertThat(spark.conf().get("spark.sql.autoBroadcastJoinThreshold"))
        .as("the session's broadcast setting, put back")
        .isEqualTo(threshold);

    // Main moved by two commits: the new and updated keys' rows appended, then the deletes of
    // the rows the updates and deletes replace, by position, carrying the checkpoint.
    table.refresh();
    List<Snapshot> added = new ArrayList<>();
    for (Snapshot snap :
        SnapshotUtil.ancestorsOf(table.currentSnapshot().snapshotId(), table::snapshot)) {
      if (snap.snapshotId() == before) {
        break;
      }
      added.add(0, snap);
    }
    assertThat(added).hasSize(2);
    assertThat(added.get(0).operation()).isEqualTo("append");
    assertThat(added.get(0).summary()).doesNotContainKey(CheckpointCodec.BATCH_ID);
    assertThat(added.get(0).summary()).containsEntry("added-records", "210");
    assertThat(added.get(1).operation()).isEqualTo("delete");
    assertThat(added.get(1).summary())
        .containsEntry(CheckpointCodec.BATCH_ID, report.batchId())
        .containsEntry("added-position-deletes", "120")
        .doesNotContainKey("added-records");
  }

  /**
   * A small batch's fixed cost is the statements it runs, each a Spark job or several: counted
   * here, so that one added by a change shows. An incremental day with an invalid row, an update, a
   * delete and new keys runs six: the one pass that counts the batch (its invalid rows by reason
   * included), the pass that plans and pins it against the table, the quarantine's append (a MERGE
   * when a quarantine row already names one of the batch's raw files, as a retried batch's do), the
   * tombstones' append (which reads nothing), the collection of the replaced rows' positions (from
   * the pinned plan) and the new rows' append. The position deletes are written and committed
   * without a Spark statement.
   */
  @Test
  void anIncrementalBatchRunsOneStatementPerStep(@TempDir Path dir) throws Exception {
    IngestSettings s = settings(dir);
    Path raw = Path.of(s.dataset().raw().location());
    List<Rec> day1 = new ArrayList<>();
    for (int i = 0; i < 50; i++) {
      day1.add(u(key(i), "N" + i, "2024-03-01T10:00:00Z"));
    }
    RawFixtures.write(raw, "2024-03-01", "a.parquet", day1);
    assertThat(new IngestJob(spark, s).run().report().status()).isEqualTo(IngestStatus.SUCCEEDED);
    List<Rec> day2 = new ArrayList<>();
    day2.add(u(key(1), "M1", "2024-03-02T09:00:00Z"));
    day2.add(d(key(2), "2024-03-02T09:00:00Z"));
    day2.add(u(key(100), "New", "2024-03-02T09:00:00Z"));
    day2.add(u(key(101), "New", "2024-03-02T09:00:00Z"));
    day2.add(new Rec(null, "NoKey", null, java.time.Instant.parse("2024-03-02T10:00:00Z"), "U"));
    for (int i = 0; i < 15; i++) {
      day2.add(u(key(200 + i), "New", "2024-03-02T09:00:00Z"));
    }
    RawFixtures.write(raw, "2024-03-02", "a.parquet", day2);

    List<String> statements = new CopyOnWriteArrayList<>();
    QueryExecutionListener listener =
        new QueryExecutionListener() {
          @Override
          public void onSuccess(String action, QueryExecution qe, long nanos) {
            String node = qe.analyzed().nodeName();
            if (node.startsWith("Create") || node.startsWith("Drop")) {
              return; // views and namespaces: catalog calls, no Spark job
            }
            // The tables a statement names besides the curated one (the plan reads the tombstones).
            String plan = qe.analyzed().toString();
            String table =
                plan.contains(s.quarantineSparkName())
                    ? " quarantine"
                    : plan.contains(s.tombstoneSparkName()) ? " tombstones" : "";
            statements.add(action + " " + node + table);
          }

          @Override
          public void onFailure(String action, QueryExecution qe, Exception e) {
            statements.add(action + " failed: " + e);
          }
        };
    IngestRunReport report = runListening(s, listener);

    assertThat(report.status()).as(report.error()).isEqualTo(IngestStatus.SUCCEEDED);
    assertThat(report.counts().recordsInvalid()).isEqualTo(1);
    assertThat(report.counts().recordsDeleted()).isEqualTo(1);
    assertThat(report.counts().recordsUpdated()).isEqualTo(1);
    assertThat(report.counts().recordsInserted()).isEqualTo(17);
    assertThat(statements)
        .containsExactly(
            "head GlobalLimit",
            "rdd DeserializeToObject tombstones",
            "overwrite OverwriteByExpression quarantine",
            "append AppendData tombstones",
            "collectAsList Project",
            "append AppendData");
  }

  /**
   * Deleting the replaced rows by position and MERGEing the changes give the same table and the
   * same counts, day after day: a key updated twice (its second replaced row is in the first
   * update's appended file), deleted and brought back, inserted and deleted. With the cap at 0 the
   * job MERGEs, as it does above the cap; the position deletes read the table once less.
   */
  @Test
  void positionDeletesAndTheMergeLeaveTheSameTable(@TempDir Path dir) throws Exception {
    List<List<Rec>> days = new ArrayList<>();
    List<Rec> day1 = new ArrayList<>();
    for (int i = 0; i < 50; i++) {
      day1.add(u(key(i), "N" + i, "2024-03-01T10:00:00Z"));
    }
    days.add(day1);
    days.add(
        List.of(
            u(key(1), "M1", "2024-03-02T09:00:00Z"),
            d(key(2), "2024-03-02T09:00:00Z"),
            u(key(3), "M3", "2024-03-02T09:00:00Z"),
            u(key(100), "New", "2024-03-02T09:00:00Z")));
    days.add(
        List.of(
            u(key(1), "MM1", "2024-03-03T09:00:00Z"),
            u(key(2), "Back", "2024-03-03T09:00:00Z"),
            d(key(100), "2024-03-03T09:00:00Z"),
            d(key(3), "2024-03-03T09:00:00Z"),
            // Older than the table's row: the version guard leaves it.
            u(key(4), "Stale", "2024-02-01T09:00:00Z")));

    IngestSettings byPosition = settings(dir.resolve("position"));
    IngestSettings merged = settings(dir.resolve("merge"));
    ingestBothWays(days, byPosition, merged, () -> {});
    Map<String, List<Object>> table = curated(byPosition);
    assertThat(table).hasSize(49).doesNotContainKeys(key(3), key(100));
    assertThat(table.get(key(1)).get(0)).isEqualTo("MM1");
    assertThat(table.get(key(2)).get(0)).isEqualTo("Back");
    assertThat(table.get(key(4)).get(0)).isEqualTo("N4");
  }

  /**
   * Ingests each day's records into two tables, the second with the position deletes' cap at 0 (so
   * MERGEd), and holds the two to the same counts and the same rows every day. {@code
   * afterFirstDay} runs once both have their first day.
   */
  private void ingestBothWays(
      List<List<Rec>> days,
      IngestSettings byPosition,
      IngestSettings merged,
      Runnable afterFirstDay)
      throws Exception {
    List<String> statements = new CopyOnWriteArrayList<>();
    QueryExecutionListener listener =
        new QueryExecutionListener() {
          @Override
          public void onSuccess(String action, QueryExecution qe, long nanos) {
            statements.add(qe.analyzed().nodeName());
          }

          @Override
          public void onFailure(String action, QueryExecution qe, Exception e) {}
        };
    for (int day = 0; day < days.size(); day++) {
      String date = String.format("2024-03-%02d", day + 1);
      List<IngestCounts> counts = new ArrayList<>();
      for (IngestSettings s : List.of(byPosition, merged)) {
        RawFixtures.write(Path.of(s.dataset().raw().location()), date, "a.parquet", days.get(day));
        if (s == merged) {
          spark.conf().set(IngestSpark.POSITION_DELETES_MAX_ROWS, "0");
        }
        statements.clear();
        IngestRunReport report;
        try {
          report = runListening(s, listener);
        } finally {
          spark.conf().unset(IngestSpark.POSITION_DELETES_MAX_ROWS);
        }
        assertThat(report.status()).as(report.error()).isEqualTo(IngestStatus.SUCCEEDED);
        counts.add(report.counts());
        if (day > 0) {
          // A MERGE is a WriteDelta statement of Iceberg's; the position deletes are none.
          assertThat(statements.contains("WriteDelta"))
              .as("day %d, %s: a MERGE ran", day + 1, s == merged ? "cap 0" : "default cap")
              .isEqualTo(s == merged);
        }
      }
      assertThat(counts.get(0)).as("day %d's counts", day + 1).isEqualTo(counts.get(1));
      assertThat(curated(byPosition)).as("day %d's table", day + 1).isEqualTo(curated(merged));
      if (day == 0) {
        afterFirstDay.run();
      }
    }
  }

  /**
   * A table partitioned by a column whose values include both NULL and the text "null" (the same
   * folder name in a partition path), with one delete file per partition asked for: each
   * partition's deletes name their own partition, and both ways leave the same table.
   */
  @Test
  void positionDeletesPerPartitionKeepANullPartitionApartFromTheTextNull(@TempDir Path dir)
      throws Exception {
    List<Rec> day1 = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      day1.add(nullOrTextNullEmail(i, "N" + i, "2024-03-01T10:00:00Z"));
    }
    List<Rec> day2 = new ArrayList<>();
    for (int i = 0; i < 8; i++) {
      day2.add(nullOrTextNullEmail(i, "M" + i, "2024-03-02T09:00:00Z"));
    }
    day2.add(d(key(8), "2024-03-02T09:00:00Z"));
    day2.add(d(key(9), "2024-03-02T09:00:00Z"));
    IngestSettings byPosition = partitionedByEmail(dir.resolve("position"));
    IngestSettings merged = partitionedByEmail(dir.resolve("merge"));
    ingestBothWays(
        List.of(day1, day2),
        byPosition,
        merged,
        () -> {
          for (IngestSettings s : List.of(byPosition, merged)) {
            spark.sql(
                "ALTER TABLE "
                    + s.curatedSparkName()
                    + " SET TBLPROPERTIES ('write.delete.granularity'='partition')");
          }
        });
    Map<String, List<Object>> table = curated(byPosition);
    assertThat(table).hasSize(8);
    for (int i = 0; i < 8; i++) {
      assertThat(table.get(key(i)).get(0)).isEqualTo("M" + i);
    }
  }

  /** An upsert of key {@code i} whose email is the text "null" for even keys, NULL for odd. */
  private static Rec nullOrTextNullEmail(int i, String name, String at) {
    return new Rec(key(i), name, i % 2 == 0 ? "null" : null, java.time.Instant.parse(at), "U");
  }

  private static IngestSettings partitionedByEmail(Path dir) {
    DatasetContract spec =
        Contracts.customers(dir.resolve("raw/customers").toString(), "curated.customers");
    return settings(dir, spec.toBuilder().curated("curated.customers", "email").build());
  }

  /**
   * The quarantine table is an audit log that only grows; a batch reads only the quarantine files
   * that can hold rows of its own raw files, not every file of every earlier batch: none when no
   * quarantine row names them (it appends), and when some do, its MERGE, which keeps a retried or
   * re-delivered file's rows single, reads those.
   */
  @Test
  void aBatchReadsOnlyTheQuarantineFilesThatCanHoldItsRows(@TempDir Path dir) throws Exception {
    IngestSettings s = settings(dir);
    Path raw = Path.of(s.dataset().raw().location());
    Rec noKey = new Rec(null, "NoKey", null, java.time.Instant.parse("2024-03-01T10:00:00Z"), "U");
    for (int day = 1; day <= 3; day++) {
      // Twelve valid records and one without a key: within the invalid ratio's limit.
      List<Rec> recs = new ArrayList<>();
      for (int i = 0; i < 12; i++) {
        recs.add(u(key(day * 100 + i), "N", "2024-03-0" + day + "T09:00:00Z"));
      }
      recs.add(noKey);
      RawFixtures.write(raw, "2024-03-0" + day, "a.parquet", recs);
      if (day < 3) {
        assertThat(new IngestJob(spark, s).run().report().counts().recordsInvalid()).isEqualTo(1);
      }
    }

    List<SparkPlan> quarantineScans = new CopyOnWriteArrayList<>();
    List<String> statements = new CopyOnWriteArrayList<>();
    QueryExecutionListener listener =
        new QueryExecutionListener() {
          @Override
          public void onSuccess(String action, QueryExecution qe, long nanos) {
            if (qe.analyzed().toString().contains(s.quarantineSparkName())) {
              statements.add(action + " " + qe.analyzed().nodeName());
              scans(qe.executedPlan(), quarantineScans);
            }
          }

          @Override
          public void onFailure(String action, QueryExecution qe, Exception e) {}
        };
    IngestRunReport report = runListening(s, listener);
    assertThat(statements)
        .as("the third batch's quarantine statements")
        .containsExactly("overwrite OverwriteByExpression");
    assertThat(report.counts().recordsInvalid()).isEqualTo(1);
    assertThat(spark.table(s.quarantineSparkName()).count()).isEqualTo(3);
    assertThat(spark.table(s.quarantineSparkName() + ".files").count())
        .as("quarantine data files, the third batch's included")
        .isEqualTo(3);
    // Planned from the files' bounds: no quarantine row names the third batch's raw file, so it
    // appends its rows and reads no quarantine file at all.
    assertThat(filesRead(quarantineScans, s.quarantineSparkName()))
        .as("quarantine files the third batch reads")
        .isZero();

    // A batch that quarantines rows of a raw file already quarantined (the file delivered again,
    // its rows fixed but the one without a key) MERGEs them: that row is updated, not doubled, and
    // the MERGE reads only the quarantine file that holds the raw file's rows.
    List<Rec> again = new ArrayList<>();
    for (int i = 0; i < 12; i++) {
      again.add(u(key(300 + i), "Fixed", "2024-03-03T11:00:00Z"));
    }
    again.add(noKey); // the same row of the same file as before
    RawFixtures.write(raw, "2024-03-03", "a.parquet", again);
    statements.clear();
    quarantineScans.clear();
    IngestRunReport redelivered = runListening(s, listener);
    assertThat(redelivered.status()).as(redelivered.error()).isEqualTo(IngestStatus.SUCCEEDED);
    assertThat(redelivered.counts().recordsInvalid()).isEqualTo(1);
    assertThat(redelivered.counts().recordsUpdated()).isEqualTo(12);
    assertThat(statements)
        .as("the re-delivery's quarantine statements")
        .contains("command WriteDelta");
    assertThat(spark.table(s.quarantineSparkName()).count()).isEqualTo(3);
    assertThat(
            spark
                .sql(
                    "SELECT batch_id FROM "
                        + s.quarantineSparkName()
                        + " WHERE source_file LIKE '%2024-03-03%'")
                .collectAsList())
        .as("the re-delivered file's quarantine rows")
        .singleElement()
        .satisfies(r -> assertThat(r.getString(0)).isEqualTo(redelivered.batchId()));
    assertThat(filesRead(quarantineScans, s.quarantineSparkName()))
        .as("quarantine files the MERGE reads")
        .isEqualTo(1);
  }

  /** The input partitions (file groups) the scans of {@code table} among {@code scans} read. */
  private static int filesRead(List<SparkPlan> scans, String table) {
    return scans.stream()
        .filter(p -> p.toString().contains(table))
        .mapToInt(p -> ((BatchScanExec) p).inputPartitions().size())
        .sum();
  }

  /** Runs the job with {@code listener} told of every statement it executes. */
  private IngestRunReport runListening(IngestSettings s, QueryExecutionListener listener)
      throws Exception {
    spark.listenerManager().register(listener);
    try {
      IngestRunReport report = new IngestJob(spark, s).run().report();
      spark.sparkContext().listenerBus().waitUntilEmpty();
      return report;
    } finally {
      spark.listenerManager().unregister(listener);
    }
  }

  /** The scans of a physical plan, adaptive ones as first planned. */
  private static void scans(SparkPlan plan, List<SparkPlan> out) {
    if (plan instanceof BatchScanExec) {
      out.add(plan);
    }
    if (plan instanceof AdaptiveSparkPlanExec a) {
      // As planned: a scan that reads nothing is gone from the plan as executed.
      scans(a.initialPlan(), out);
    }
    if (plan instanceof QueryStageExec q) {
      scans(q.plan(), out);
    }
    scala.jdk.javaapi.CollectionConverters.asJava(plan.children()).forEach(c -> scans(c, out));
  }

  /**
   * The position deletes' cap is a Spark setting, so a typo in it is found when the run starts,
   * before anything is read or written, and named: not at the first commit with updates, after the
   * batch's quarantine and tombstones were written, nor never on a full load, which does not use
   * it.
   */
  @Test
  void aMalformedPositionDeletesCapIsRefusedBeforeTheRunReadsAnything(@TempDir Path dir) {
    IngestSettings s = settings(dir);
    RawFixtures.write(
        Path.of(s.dataset().raw().location()),
        "2024-03-01",
        "a.parquet",
        List.of(u("A", "Ada", "2024-03-01T10:00:00Z")));
    for (String bad : List.of("500k", "-1")) {
      spark.conf().set(IngestSpark.POSITION_DELETES_MAX_ROWS, bad);
      IngestRunReport report;
      try {
        report = new IngestJob(spark, s).run().report();
      } finally {
        spark.conf().unset(IngestSpark.POSITION_DELETES_MAX_ROWS);
      }
      assertThat(report.status()).as(bad).isEqualTo(IngestStatus.FAILED);
      assertThat(report.errorCode()).as(bad).isEqualTo(IngestErrorCode.INVALID_CONFIG);
      assertThat(report.error())
          .as(bad)
          .contains(IngestSpark.POSITION_DELETES_MAX_ROWS)
          .contains("'" + bad + "'");
      assertThat(report.inputFiles()).as(bad).isEmpty();
      assertThat(report.snapshotId()).as(bad).isNull();
    }
    // Nothing was committed: the next run, set right, is the dataset's first.
    IngestRunReport first = new IngestJob(spark, s).run().report();
    assertThat(first.status()).isEqualTo(IngestStatus.SUCCEEDED);
    assertThat(first.watermarkBefore()).isNull();
    assertThat(first.counts().recordsInserted()).isEqualTo(1);
  }

  static String key(int i) {
    return String.format("K%06d", i);
  }

  /**
   * Where a run's time went is in its report, stage by stage, so that an operator (and the
   * benchmarks) can see what a small batch's fixed cost is made of.
   */
  @Test
  void theReportSaysWhereTheRunsTimeWentStageByStage(@TempDir Path dir) throws Exception {
    IngestSettings s = settings(dir);
    Path raw = Path.of(s.dataset().raw().location());
    RawFixtures.write(
        raw,
        "2024-03-01",
        "a.parquet",
        List.of(u("A", "Ada", "2024-03-01T10:00:00Z"), u("B", "Bo", "2024-03-01T10:00:00Z")));
    assertThat(new IngestJob(spark, s).run().report().status()).isEqualTo(IngestStatus.SUCCEEDED);
    // A day with an update, a delete (a tombstone), new keys and one invalid row (quarantined;
    // one in fifteen stays under the default invalid ratio).
    List<Rec> day2 = new ArrayList<>();
    day2.add(u("A", "Ada2", "2024-03-02T10:00:00Z"));
    day2.add(d("B", "2024-03-02T10:00:00Z"));
    day2.add(new Rec(null, "NoKey", null, java.time.Instant.parse("2024-03-02T10:00:00Z"), "U"));
    for (int i = 0; i < 12; i++) {
      day2.add(u("N" + i, "New " + i, "2024-03-02T11:00:00Z"));
    }
    RawFixtures.write(raw, "2024-03-02", "a.parquet", day2);

    long started = System.nanoTime();
    io.tidemark.ingest.run.IngestOutcome out = new IngestJob(spark, s).run();
    long wallMillis = (System.nanoTime() - started) / 1_000_000;

    IngestRunReport r = out.report();
    assertThat(r.status()).isEqualTo(IngestStatus.SUCCEEDED);
    assertThat(r.counts().recordsInvalid()).isEqualTo(1);
    assertThat(r.phaseMillis().keySet())
        .containsExactly("lease", "select", "read", "plan", "quarantine", "tombstones", "commit");
    assertThat(r.phaseMillis().values()).allMatch(ms -> ms >= 0);
    assertThat(r.phaseMillis().values().stream().mapToLong(Long::longValue).sum())
        .isLessThanOrEqualTo(wallMillis);
    // The MERGE of a batch is real work, never a zero.
    assertThat(r.phaseMillis().get("commit")).isPositive();
    // The report on disk says the same, in the same order.
    IngestRunReport written =
        io.tidemark.model.json.Json.read(Path.of(out.reportLocation()), IngestRunReport.class);
    assertThat(written.phaseMillis()).containsExactlyEntriesOf(r.phaseMillis());

    // A run with nothing to do stops after selecting, and says so.
    IngestRunReport idle = new IngestJob(spark, s).run().report();
    assertThat(idle.status()).isEqualTo(IngestStatus.NOTHING_TO_DO);
    assertThat(idle.phaseMillis().keySet()).containsExactly("lease", "select");
  }
}
