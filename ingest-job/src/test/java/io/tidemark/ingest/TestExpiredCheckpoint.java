package io.tidemark.ingest;

import static io.tidemark.ingest.RawFixtures.u;
import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.ingest.RawFixtures.Rec;
import io.tidemark.ingest.checkpoint.CheckpointLog;
import io.tidemark.ingest.config.IngestSettings;
import io.tidemark.ingest.run.IngestJob;
import io.tidemark.ingest.run.IngestOutcome;
import io.tidemark.model.report.IngestErrorCode;
import io.tidemark.model.report.IngestMode;
import io.tidemark.model.report.IngestStatus;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.Table;
import org.apache.iceberg.spark.Spark3Util;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A curated table whose Tidemark snapshots were expired must not be silently bootstrapped. */
@Tag("spark")
class TestExpiredCheckpoint extends SparkTestSupport {
  @TempDir Path dir;

  @Test
  void incrementalRunFailsWhenTheCheckpointWasExpiredAndFullRefreshRebuilds() throws Exception {
    IngestSettings s = settings(dir);
    Path raw = Path.of(s.dataset().raw().location());
    List<Rec> delivered = new ArrayList<>();
    List<Rec> day1 =
        List.of(u("C1", "Ada", "2024-03-01T10:00:00Z"), u("C2", "Bo", "2024-03-01T10:05:00Z"));
    RawFixtures.write(raw, "2024-03-01", "part-0001.parquet", day1);
    delivered.addAll(day1);
    assertThat(new IngestJob(spark, s).run().report().status()).isEqualTo(IngestStatus.SUCCEEDED);

    // Maintenance: a compaction, then expiring every snapshot but the current one.
    String catalog = s.catalog().name();
    String table = s.curatedSparkName();
    spark.sql(
        "CALL "
            + catalog
            + ".system.rewrite_data_files(table => '"
            + table
            + "', options => map('rewrite-all', 'true'))");
    String later =
        DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss")
            .withZone(ZoneOffset.UTC)
            .format(Instant.now().plusSeconds(60));
    spark.sql(
        "CALL "
            + catalog
            + ".system.expire_snapshots(table => '"
            + table
            + "', older_than => TIMESTAMP '"
            + later
            + "', retain_last => 1)");
    Table curated = Spark3Util.loadIcebergTable(spark, s.curatedSparkName());
    assertThat(CheckpointLog.latest(curated)).isEmpty();
    long snapshot = curated.currentSnapshot().snapshotId();
    Map<String, List<Object>> before = curated(s);

    List<Rec> day2 =
        List.of(u("C1", "Ada2", "2024-03-02T09:00:00Z"), u("C3", "Cy", "2024-03-02T09:10:00Z"));
    RawFixtures.write(raw, "2024-03-02", "part-0001.parquet", day2);
    delivered.addAll(day2);

    IngestOutcome incremental = new IngestJob(spark, s).run();
    assertThat(incremental.exitCode()).isEqualTo(2);
    assertThat(incremental.report().status()).isEqualTo(IngestStatus.FAILED);
    assertThat(incremental.report().errorCode()).isEqualTo(IngestErrorCode.CHECKPOINT_NOT_FOUND);
    assertThat(incremental.report().error())
        .isEqualTo(
            "Cannot find Tidemark's checkpoint in the retained history of "
                + s.curatedSparkName()
                + ": the table has data but no snapshot written by Tidemark (were its snapshots"
                + " expired?). Run with --mode full-refresh to rebuild from raw.");
    assertThat(
            Spark3Util.loadIcebergTable(spark, s.curatedSparkName()).currentSnapshot().snapshotId())
        .isEqualTo(snapshot);
    assertThat(curated(s)).isEqualTo(before);

    IngestOutcome full = new IngestJob(spark, s.withMode(IngestMode.FULL_REFRESH)).run();
    assertThat(full.report().status()).as(full.report().error()).isEqualTo(IngestStatus.SUCCEEDED);
    assertThat(full.exitCode()).isZero();
    assertThat(full.report().counts().accountingErrors()).isEmpty();
    assertThat(curated(s)).isEqualTo(TestMultiDayScenario.expectedState(delivered));

    // The full refresh wrote a checkpoint: incremental runs go on from it.
    IngestOutcome after = new IngestJob(spark, s).run();
    assertThat(after.report().status()).isEqualTo(IngestStatus.NOTHING_TO_DO);
  }
}
