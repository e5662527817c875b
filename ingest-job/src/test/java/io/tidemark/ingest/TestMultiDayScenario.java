package io.tidemark.ingest;

import static io.tidemark.ingest.RawFixtures.d;
import static io.tidemark.ingest.RawFixtures.u;
import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.ingest.RawFixtures.Rec;
import io.tidemark.ingest.config.IngestSettings;
import io.tidemark.ingest.run.IngestJob;
import io.tidemark.ingest.run.IngestOutcome;
import io.tidemark.model.contract.DatasetContract;
import io.tidemark.model.json.Json;
import io.tidemark.model.report.IngestCounts;
import io.tidemark.model.report.IngestErrorCode;
import io.tidemark.model.report.IngestMode;
import io.tidemark.model.report.IngestRunReport;
import io.tidemark.model.report.IngestStatus;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Five days of raw files with every kind of change; after each day the curated table must equal the
 * state computed here, in plain Java, from the raw records delivered so far.
 */
@Tag("spark")
class TestMultiDayScenario extends SparkTestSupport {
  @TempDir Path dir;

  /** One delivered file. */
  record Delivery(String partition, String file, List<Rec> recs) {}

  static final List<List<Delivery>> DAYS =
      List.of(
          List.of(
              new Delivery(
                  "2024-03-01",
                  "part-0001.parquet",
                  List.of(
                      u("C1", "Ada", "2024-03-01T10:01:00Z"),
                      u("C2", "Bo", "2024-03-01T10:02:00Z"),
                      u("C3", "Cy", "2024-03-01T10:03:00Z"),
                      u("C4", "Di", "2024-03-01T10:04:00Z"),
                      u("C5", "Ed", "2024-03-01T10:05:00Z"),
                      u("C6", "Flo", "2024-03-01T10:06:00Z")))),
          List.of(
              // Several versions of C3 in one batch, across two files and out of order.
              new Delivery(
                  "2024-03-02",
                  "part-0001.parquet",
                  List.of(
                      u("C1", "Ada2", "2024-03-02T09:00:00Z"),
                      d("C2", "2024-03-02T09:05:00Z"),
                      u("C7", "Gus", "2024-03-02T09:10:00Z"),
                      u("C3", "Cy-a", "2024-03-02T08:00:00Z"),
                      u("C3", "Cy-c", "2024-03-02T08:30:00Z"),
                      d("C99", "2024-03-02T09:30:00Z"))),
              new Delivery(
                  "2024-03-02",
                  "part-0002.parquet",
                  List.of(u("C3", "Cy-b", "2024-03-02T08:15:00Z")))),
          List.of(
              new Delivery(
                  "2024-03-03",
                  "part-0001.parquet",
                  List.of(
                      u("C4", "Di3", "2024-03-03T10:00:00Z"),
                      u("C5", "Ed3", "2024-03-03T11:00:00Z")))),
          List.of(
              // C4 arrives out of order: older than what the table holds.
              new Delivery(
                  "2024-03-04",
                  "part-0001.parquet",
                  List.of(
                      u("C4", "Di-old", "2024-03-02T12:00:00Z"),
                      u("C1", "Ada4", "2024-03-04T09:00:00Z"))),
              // A late file landing in an old partition, within the lookback.
              new Delivery(
                  "2024-03-02",
                  "late-0003.parquet",
                  List.of(
                      u("C8", "Hal", "2024-03-02T20:00:00Z"),
                      u("C6", "Flo2", "2024-03-02T21:00:00Z")))),
          List.of(
              // Day 1's file delivered again under a new name: C2 was deleted since and must
              // not come back.
              new Delivery("2024-03-05", "redelivered-0001.parquet", null),
              new Delivery(
                  "2024-03-05",
                  "part-0002.parquet",
                  List.of(u("C9", "Ivy", "2024-03-05T08:00:00Z")))));

  @Test
  void everyDayMatchesTheStateComputedFromRawAndFullRefreshAgrees() throws Exception {
    IngestSettings settings = settings(dir).withLookback(Duration.ofDays(2));
    Path raw = Path.of(settings.dataset().raw().location());
    List<Rec> delivered = new ArrayList<>();
    List<IngestCounts> counts = new ArrayList<>();
    for (List<Delivery> day : DAYS) {
      List<Rec> batch = new ArrayList<>();
      for (Delivery del : day) {
        List<Rec> recs = del.recs() == null ? DAYS.get(0).get(0).recs() : del.recs();
        RawFixtures.write(raw, del.partition(), del.file(), recs);
        delivered.addAll(recs);
        batch.addAll(recs);
      }
      long[] before = metadataCommitsAndSnapshots(settings);
      IngestOutcome out = new IngestJob(spark, settings).run();
      IngestRunReport report = out.report();
      assertThat(report.status()).as(report.error()).isEqualTo(IngestStatus.SUCCEEDED);
      if (before != null) {
        // Besides its snapshots, a batch costs the curated table two metadata commits: its run
        // branch, then main moved to it with the branch dropped, in one.
        long[] after = metadataCommitsAndSnapshots(settings);
        assertThat(after[0] - before[0])
            .as("metadata commits of batch %s", report.batchId())
            .isEqualTo(after[1] - before[1] + 2);
      }
      assertThat(out.exitCode()).isZero();
      assertThat(report.counts().accountingErrors()).isEmpty();
      assertThat(report.counts().recordsSuperseded()).isEqualTo(collapsedVersions(batch));
      assertThat(curated(settings)).isEqualTo(expectedState(delivered));
      assertThat(Json.read(Path.of(out.reportLocation()), IngestRunReport.class)).isEqualTo(report);
      counts.add(report.counts());
    }

    // Day 2: three versions of C3 collapse to one; a delete of an unknown key is counted.
    assertThat(counts.get(1).recordsSuperseded()).isEqualTo(2);
    assertThat(counts.get(1).deletesOfUnknownKeys()).isEqualTo(1);
    assertThat(counts.get(1).recordsDeleted()).isEqualTo(1);
    assertThat(counts.get(1).recordsInserted()).isEqualTo(1);
    assertThat(counts.get(1).recordsUpdated()).isEqualTo(2);
    // Day 4: the late file was found in an old partition; three records were late, C4's old
    // version was ignored by the version guard.
    assertThat(counts.get(3).filesNew()).isEqualTo(2);
    assertThat(counts.get(3).recordsLate()).isEqualTo(3);
    assertThat(counts.get(3).recordsUnchanged()).isEqualTo(1);
    assertThat(counts.get(3).recordsInserted()).isEqualTo(1);
    assertThat(counts.get(3).recordsUpdated()).isEqualTo(2);
    // Day 5: the redelivered file changed nothing, and did not bring C2 back.
    assertThat(counts.get(4).recordsUnchanged()).isEqualTo(6);
    assertThat(counts.get(4).recordsInserted()).isEqualTo(1);
    assertThat(curated(settings)).doesNotContainKey("C2");

    // Nothing new: a rerun commits nothing.
    long snapshots = snapshotCount(settings);
    IngestOutcome again = new IngestJob(spark, settings).run();
    assertThat(again.report().status()).isEqualTo(IngestStatus.NOTHING_TO_DO);
    assertThat(again.report().snapshotId()).isNull();
    assertThat(snapshotCount(settings)).isEqualTo(snapshots);

    // One full refresh over the same raw data gives the same table.
    DatasetContract fullSpec = settings.dataset().withCuratedTable("curated.customers_full");
    IngestSettings full =
        new IngestSettings(
            fullSpec,
            settings.catalog(),
            null,
            IngestMode.FULL_REFRESH,
            null,
            settings.lookback(),
            settings.maxInvalidRatio(),
            null,
            settings.stateRoot(),
            null,
            null,
            null,
            null,
            null,
            settings.clock(),
            null,
            null);
    IngestOutcome rebuilt = new IngestJob(spark, full).run();
    assertThat(rebuilt.report().status())
        .as(rebuilt.report().error())
        .isEqualTo(IngestStatus.SUCCEEDED);
    assertThat(rebuilt.report().counts().accountingErrors()).isEmpty();
    assertThat(curated(full)).isEqualTo(curated(settings));
    assertThat(Files.list(Path.of(settings.stateRoot(), "_runs")).count()).isEqualTo(1);
  }

  @Test
  void countsThatDoNotAddUpStopTheCommit() throws Exception {
    IngestSettings settings = settings(dir);
    Path raw = adaKeptAndBoDeleted(settings);
    // A manual fix leaves C1 twice in the curated table: the planner's join fans C1's update out
    // to two rows, which the MERGE would write as two. Only superseded counted on its own catches
    // it.
    spark.sql(
        "INSERT INTO "
            + settings.curatedSparkName()
            + " SELECT * FROM "
            + settings.curatedSparkName()
            + " WHERE customer_id = 'C1'");
    long before = snapshotCount(settings);
    List<Rec> day2 =
        List.of(
            u("C1", "Ada2", "2024-03-02T09:00:00Z"),
            u("C3", "Cy-a", "2024-03-02T08:00:00Z"),
            u("C3", "Cy-c", "2024-03-02T08:30:00Z"),
            u("C3", "Cy-b", "2024-03-02T08:15:00Z"));
    RawFixtures.write(raw, "2024-03-02", "part-0001.parquet", day2);
    assertThat(collapsedVersions(day2)).isEqualTo(2);

    IngestOutcome out = new IngestJob(spark, settings).run();
    assertThat(out.exitCode()).isEqualTo(1);
    assertThat(out.report().status()).isEqualTo(IngestStatus.FAILED);
    assertThat(out.report().errorCode()).isEqualTo(IngestErrorCode.INTERNAL_ERROR);
    assertThat(out.report().error())
        .isEqualTo(
            "Cannot commit batch "
                + out.report().batchId()
                + ": its counts do not add up: [recordsChanged 4 != recordsWritten 3"
                + " + recordsInvalid 0 + recordsSuperseded 2]");
    assertThat(snapshotCount(settings)).isEqualTo(before);
    assertThat(
            spark
                .table(settings.curatedSparkName())
                .select("customer_id", "customer_name")
                .collectAsList())
        .extracting(Row::toString)
        .containsExactly("[C1,Ada]", "[C1,Ada]");
  }

  /**
   * Deletes are remembered by appending them, so a key deleted twice is in the tombstones twice; a
   * late version of it is judged by the newer delete. A planner that took either row would let the
   * late version bring the key back, or count it twice.
   */
  @Test
  void aKeyDeletedTwiceIsJudgedByItsNewestDelete() throws Exception {
    IngestSettings settings = settings(dir);
    Path raw = adaKeptAndBoDeleted(settings);
    // C2 deleted again, later: a delete of a deleted key changes nothing but is remembered.
    RawFixtures.write(
        raw, "2024-03-02", "part-0001.parquet", List.of(d("C2", "2024-03-02T08:00:00Z")));
    IngestOutcome again = new IngestJob(spark, settings).run();
    assertThat(again.report().status()).isEqualTo(IngestStatus.SUCCEEDED);
    assertThat(again.report().counts().recordsUnchanged()).isEqualTo(1);
    assertThat(spark.table(settings.tombstoneSparkName()).select("customer_id").collectAsList())
        .extracting(Row::toString)
        .containsExactly("[C2]", "[C2]");

    // A late version of C2, newer than the first delete but older than the second, stays out; one
    // newer than both brings C2 back, once.
    RawFixtures.write(
        raw,
        "2024-03-03",
        "part-0001.parquet",
        List.of(u("C2", "Bo-late", "2024-03-01T12:00:00Z")));
    IngestOutcome late = new IngestJob(spark, settings).run();
    assertThat(late.report().status()).as(late.report().error()).isEqualTo(IngestStatus.SUCCEEDED);
    assertThat(late.report().counts().recordsUnchanged()).isEqualTo(1);
    assertThat(curated(settings).keySet()).containsExactly("C1");
    RawFixtures.write(
        raw, "2024-03-04", "part-0001.parquet", List.of(u("C2", "Bo", "2024-03-02T09:00:00Z")));
    IngestOutcome back = new IngestJob(spark, settings).run();
    assertThat(back.report().status()).as(back.report().error()).isEqualTo(IngestStatus.SUCCEEDED);
    assertThat(back.report().counts().recordsInserted()).isEqualTo(1);
    assertThat(curated(settings).get("C2").get(0)).isEqualTo("Bo");
  }

  /** A first day that keeps C1 and deletes C2, ingested; returns the raw folder. */
  private static Path adaKeptAndBoDeleted(IngestSettings settings) {
    Path raw = Path.of(settings.dataset().raw().location());
    RawFixtures.write(
        raw,
        "2024-03-01",
        "part-0001.parquet",
        List.of(u("C1", "Ada", "2024-03-01T10:00:00Z"), d("C2", "2024-03-01T10:05:00Z")));
    assertThat(new IngestJob(spark, settings).run().report().status())
        .isEqualTo(IngestStatus.SUCCEEDED);
    return raw;
  }

  /** Rows of one batch that lose to a newer version of their key in the same batch. */
  static long collapsedVersions(List<Rec> batch) {
    return batch.size() - batch.stream().map(Rec::id).distinct().count();
  }

  /** Latest version per key by change marker (a delete wins a tie), minus deletes. */
  static Map<String, List<Object>> expectedState(List<Rec> delivered) {
    Map<String, Rec> latest = new HashMap<>();
    for (Rec r : delivered) {
      Rec cur = latest.get(r.id());
      if (cur == null
          || r.at().isAfter(cur.at())
          || (r.at().equals(cur.at()) && r.op().equals("D") && !cur.op().equals("D"))) {
        latest.put(r.id(), r);
      }
    }
    Map<String, List<Object>> out = new HashMap<>();
    latest.forEach(
        (k, r) -> {
          if (!r.op().equals("D")) {
            out.put(k, Arrays.asList(r.name(), r.email(), r.at()));
          }
        });
    return out;
  }

  /**
   * The curated table's metadata files so far (its metadata log and the current one) and its
   * snapshots; null before the table exists.
   */
  static long[] metadataCommitsAndSnapshots(IngestSettings s) {
    org.apache.iceberg.Table t;
    try {
      t = org.apache.iceberg.spark.Spark3Util.loadIcebergTable(spark, s.curatedSparkName());
    } catch (Exception e) {
      return null;
    }
    org.apache.iceberg.TableMetadata m =
        ((org.apache.iceberg.HasTableOperations) t).operations().current();
    return new long[] {m.previousFiles().size() + 1, m.snapshots().size()};
  }

  static long snapshotCount(IngestSettings s) throws Exception {
    return org.apache.iceberg.spark.Spark3Util.loadIcebergTable(spark, s.curatedSparkName())
        .history()
        .size();
  }
}
