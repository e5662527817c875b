package io.tidemark.ingest;

import static io.tidemark.ingest.RawFixtures.u;
import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.ingest.checkpoint.Checkpoint;
import io.tidemark.ingest.checkpoint.CheckpointCodec;
import io.tidemark.ingest.checkpoint.CheckpointLog;
import io.tidemark.ingest.config.IngestSettings;
import io.tidemark.ingest.discovery.PartitionLister;
import io.tidemark.ingest.kernel.RawFile;
import io.tidemark.ingest.run.IngestJob;
import io.tidemark.ingest.run.IngestOutcome;
import io.tidemark.model.metrics.IngestRunMetrics;
import io.tidemark.model.metrics.Metric;
import io.tidemark.model.report.DiscoveryMode;
import io.tidemark.model.report.IngestCounts;
import io.tidemark.model.report.IngestMode;
import io.tidemark.model.report.IngestRunReport;
import io.tidemark.model.report.IngestStatus;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What discovery lists and reads, in files and watermark mode. */
@Tag("spark")
class TestDiscovery extends SparkTestSupport {
  @TempDir Path dir;

  static LocalDate day(int d) {
    return LocalDate.of(2024, 3, d);
  }

  @Test
  void filesModeListsOnlyPartitionsFromTheCheckpointMinusTheLookback() {
    IngestSettings s = settings(dir).withLookback(Duration.ofDays(2));
    Path raw = Path.of(s.dataset().raw().location());
    for (int d = 1; d <= 12; d++) {
      RawFixtures.write(
          raw, day(d).toString(), "a.parquet", List.of(u("K" + d, "N" + d, day(d) + "T10:00:00Z")));
    }
    IngestOutcome bootstrap = new IngestJob(spark, s).run();
    assertThat(bootstrap.report().status()).isEqualTo(IngestStatus.SUCCEEDED);
    assertThat(bootstrap.partitionsListed()).hasSize(12);
    assertThat(bootstrap.report().counts().filesNew()).isEqualTo(12);

    // Next day: one more file in the latest partition, a new partition, and a file landing far
    // behind the lookback.
    RawFixtures.write(
        raw, day(12).toString(), "b.parquet", List.of(u("K12b", "x", "2024-03-12T11:00:00Z")));
    RawFixtures.write(
        raw, day(13).toString(), "a.parquet", List.of(u("K13", "x", "2024-03-13T10:00:00Z")));
    RawFixtures.write(
        raw, day(5).toString(), "too-late.parquet", List.of(u("OLD", "x", "2024-03-05T11:00:00Z")));
    IngestOutcome next = new IngestJob(spark, s).run();
    assertThat(next.report().status()).isEqualTo(IngestStatus.SUCCEEDED);
    // Checkpoint partition 2024-03-12 minus 2 days: four partitions listed, not thirteen.
    assertThat(next.partitionsListed()).containsExactly(day(10), day(11), day(12), day(13));
    // The root, then each of the four partitions: one listing each on a local file system.
    assertThat(next.report().discoveryListCalls()).isEqualTo(5);
    IngestCounts c = next.report().counts();
    assertThat(c.filesDiscovered()).isEqualTo(5);
    assertThat(c.filesNew()).isEqualTo(2);
    assertThat(c.filesSkipped()).isEqualTo(3);
    assertThat(curated(s)).containsKeys("K12b", "K13").doesNotContainKey("OLD");

    // A full refresh, the recovery path, reads everything and picks the straggler up.
    IngestOutcome full = new IngestJob(spark, s.withMode(IngestMode.FULL_REFRESH)).run();
    assertThat(full.report().status()).isEqualTo(IngestStatus.SUCCEEDED);
    assertThat(full.partitionsListed()).hasSize(13);
    assertThat(curated(s).keySet())
        .containsAll(IntStream.rangeClosed(1, 13).mapToObj(d -> "K" + d).toList())
        .contains("K12b", "OLD")
        .hasSize(15);
    // After it, incremental runs go on from the full refresh's checkpoint.
    IngestOutcome after = new IngestJob(spark, s).run();
    assertThat(after.report().status()).isEqualTo(IngestStatus.NOTHING_TO_DO);
    assertThat(after.partitionsListed()).containsExactly(day(11), day(12), day(13));
  }

  @Test
  void wideningTheLookbackNeverCountsAProcessedFileNewAgain() {
    IngestSettings s = settings(dir).withLookback(Duration.ofDays(2));
    Path raw = Path.of(s.dataset().raw().location());
    for (int d = 1; d <= 8; d++) {
      RawFixtures.write(
          raw, day(d).toString(), "a.parquet", List.of(u("K" + d, "N" + d, day(d) + "T10:00:00Z")));
    }
    assertThat(new IngestJob(spark, s).run().report().counts().filesNew()).isEqualTo(8);
    // The checkpoint now keeps the file lists of days 6 to 8 and has folded days 1 to 5.
    RawFixtures.write(
        raw, day(7).toString(), "late.parquet", List.of(u("L7", "x", "2024-03-07T11:00:00Z")));

    IngestOutcome wide = new IngestJob(spark, s.withLookback(Duration.ofDays(10))).run();

    IngestCounts c = wide.report().counts();
    assertThat(wide.report().status()).as(wide.report().error()).isEqualTo(IngestStatus.SUCCEEDED);
    assertThat(c.filesNew()).isEqualTo(1);
    assertThat(wide.report().inputFiles())
        .singleElement()
        .satisfies(f -> assertThat(f).endsWith("ingest_date=2024-03-07/late.parquet"));
    assertThat(c.recordsRead()).isEqualTo(1);
    // The folded partitions are not listed again: their file lists are gone, so a file there
    // could not be told new from processed. The report says so.
    assertThat(wide.partitionsListed()).containsExactly(day(6), day(7), day(8));
    assertThat(wide.report().warnings())
        .contains(
            "A lookback of 10 day(s) reaches back to 2024-02-27, but partitions through 2024-03-05 are"
                + " folded into the checkpoint and not listed again; run --mode sweep to pick up"
                + " files that landed there late");
    assertThat(new IngestJob(spark, s.withLookback(Duration.ofDays(10))).run().report().status())
        .isEqualTo(IngestStatus.NOTHING_TO_DO);
  }

  @Test
  void foldersThatAreNotDatePartitionsAreNamedAndCountedInTheReportAndItsMetrics()
      throws Exception {
    IngestSettings s = settings(dir);
    Path raw = Path.of(s.dataset().raw().location());
    RawFixtures.write(
        raw, "2024-03-01", "a.parquet", List.of(u("A", "Ada", "2024-03-01T10:00:00Z")));
    for (String folder :
        List.of("ingest_date=garbage", "ingest_date=2026-13-45", "INGEST_DATE=2024-03-02")) {
      RawFixtures.write(
          raw.resolve(folder).resolve("a.parquet"),
          RawFixtures.CUSTOMERS,
          List.of(u("X", "Lost", "2024-03-02T10:00:00Z").row()));
    }
    Files.createDirectories(raw.resolve("_temporary"));

    IngestRunReport r = new IngestJob(spark, s).run().report();

    assertThat(r.status()).as(r.error()).isEqualTo(IngestStatus.SUCCEEDED);
    assertThat(r.ignoredPartitionFolders())
        .containsExactly("INGEST_DATE=2024-03-02", "ingest_date=2026-13-45", "ingest_date=garbage");
    assertThat(r.warnings())
        .contains(
            "3 folder(s) under file:"
                + raw
                + " are not ingest_date=YYYY-MM-DD partitions and were not read:"
                + " [INGEST_DATE=2024-03-02, ingest_date=2026-13-45, ingest_date=garbage]");
    assertThat(IngestRunMetrics.datums(r))
        .filteredOn(d -> d.metric() == Metric.PARTITION_FOLDERS_IGNORED)
        .singleElement()
        .satisfies(d -> assertThat(d.value()).isEqualTo(3.0));
    assertThat(curated(s).keySet()).containsExactly("A");
  }

  @Test
  void theRootListingKeepsPartitionsFromTheStartAndStraysWhateverTheRootIsCalled()
      throws Exception {
    // A local root whose path URI-escapes (space, '%', brackets), holding every kind of entry.
    Path raw = dir.resolve("raw root [1]%20").resolve("customers");
    for (String folder :
        List.of(
            "ingest_date=2024-02-28",
            "ingest_date=2024-03-01",
            "ingest_date=2024-03-03",
            "ingest_date=garbage",
            "_temporary",
            ".hidden")) {
      Files.createDirectories(raw.resolve(folder));
    }
    Files.writeString(raw.resolve("ingest_date=2024-03-02"), "a file, not a partition");
    Files.writeString(raw.resolve("stray.parquet"), "a file directly under the dataset");
    Files.writeString(raw.resolve("ingest_date=2024-03-01").resolve("a.parquet"), "x");

    PartitionLister lister =
        new PartitionLister(
            new org.apache.hadoop.conf.Configuration(), raw.toString(), "ingest_date");

    assertThat(lister.partitions(day(1))).containsExactly(day(1), day(3));
    assertThat(lister.ignoredFolders()).containsExactly("ingest_date=garbage");
    assertThat(lister.listCalls()).isEqualTo(1);
    assertThat(lister.files(day(1))).extracting(RawFile::name).containsExactly("a.parquet");
    assertThat(lister.partitions(null)).containsExactly(LocalDate.of(2024, 2, 28), day(1), day(3));
  }

  @Test
  void watermarkModeRereadsRewrittenFilesAndKeepsRecordsAfterWatermarkMinusLookback()
      throws Exception {
    IngestSettings s =
        settings(dir).withDiscovery(DiscoveryMode.WATERMARK).withLookback(Duration.ofDays(2));
    Path raw = Path.of(s.dataset().raw().location());
    Path file =
        RawFixtures.write(
            raw,
            "2024-03-01",
            "snapshot.parquet",
            List.of(u("A", "Ada", "2024-03-01T10:00:00Z"), u("B", "Bo", "2024-03-01T11:00:00Z")));
    assertThat(new IngestJob(spark, s).run().report().status()).isEqualTo(IngestStatus.SUCCEEDED);

    // The source rewrites the same file in place with its current state.
    Files.delete(file);
    RawFixtures.write(
        raw,
        "2024-03-01",
        "snapshot.parquet",
        List.of(
            u("A", "Ada", "2024-03-01T10:00:00Z"),
            u("B", "Bo2", "2024-03-02T09:00:00Z"),
            u("C", "Cy", "2024-03-02T09:30:00Z"),
            u("Z", "Zed", "2024-02-20T00:00:00Z")));
    Files.setLastModifiedTime(file, FileTime.from(Instant.parse("2024-03-02T12:00:00Z")));
    IngestOutcome out = new IngestJob(spark, s).run();
    assertThat(out.report().status()).isEqualTo(IngestStatus.SUCCEEDED);
    IngestCounts c = out.report().counts();
    assertThat(c.filesNew()).isEqualTo(1);
    assertThat(c.recordsRead()).isEqualTo(4);
    // Z is older than the watermark (03-01T11:00) minus two days: not a candidate.
    assertThat(c.recordsChanged()).isEqualTo(3);
    assertThat(c.recordsUnchanged()).isEqualTo(1);
    assertThat(c.recordsUpdated()).isEqualTo(1);
    assertThat(c.recordsInserted()).isEqualTo(1);
    assertThat(c.accountingErrors()).isEmpty();
    assertThat(curated(s).keySet()).containsExactlyInAnyOrder("A", "B", "C");
    assertThat(curated(s).get("B").get(0)).isEqualTo("Bo2");
    // Unchanged files: nothing to do.
    assertThat(new IngestJob(spark, s).run().report().status())
        .isEqualTo(IngestStatus.NOTHING_TO_DO);
  }

  @Test
  void watermarkModeCountsAsLateOnlyRecordsOfNewFilesAsFilesModeDoes() throws Exception {
    for (DiscoveryMode mode : DiscoveryMode.values()) {
      Path sub = dir.resolve(mode.name());
      IngestSettings s = settings(sub).withDiscovery(mode).withLookback(Duration.ofDays(2));
      Path raw = Path.of(s.dataset().raw().location());
      RawFixtures.write(
          raw,
          "2024-03-01",
          "a.parquet",
          List.of(u("A", "Ada", "2024-03-01T10:00:00Z"), u("B", "Bo", "2024-03-01T11:00:00Z")));
      assertThat(new IngestJob(spark, s).run().report().status()).isEqualTo(IngestStatus.SUCCEEDED);

      // Next day: a new file with one record after the watermark (03-01T11:00) and one before it,
      // which the first run could not have seen. Watermark mode reads a.parquet again: A is within
      // the watermark minus the lookback and before the watermark, but it is no late arrival.
      RawFixtures.write(
          raw,
          "2024-03-02",
          "b.parquet",
          List.of(u("C", "Cy", "2024-03-02T09:00:00Z"), u("D", "Di", "2024-03-01T10:30:00Z")));
      IngestRunReport day2 = new IngestJob(spark, s).run().report();
      assertThat(day2.status()).as(day2.error()).isEqualTo(IngestStatus.SUCCEEDED);
      assertThat(day2.counts().recordsLate()).as("records late in %s mode", mode).isEqualTo(1);
      assertThat(day2.counts().recordsInserted()).isEqualTo(2);
      assertThat(day2.counts().accountingErrors()).isEmpty();
      assertThat(IngestRunMetrics.datums(day2))
          .filteredOn(d -> d.metric() == Metric.RECORDS_LATE)
          .singleElement()
          .satisfies(d -> assertThat(d.value()).isEqualTo(1.0));
    }
  }

  @Test
  void aFileRewrittenWithTheSameSizeAndModificationTimeIsReadAgain() throws Exception {
    IngestSettings s = settings(dir);
    Path raw = Path.of(s.dataset().raw().location());
    Path file =
        RawFixtures.write(
            raw, "2024-03-01", "a.parquet", List.of(u("A", "Ada", "2024-03-01T10:00:00Z")));
    FileTime mtime = Files.getLastModifiedTime(file);
    assertThat(new IngestJob(spark, s).run().report().status()).isEqualTo(IngestStatus.SUCCEEDED);
    // Another version of the same size, copied over it keeping the modification time (rsync -t).
    Path other =
        RawFixtures.write(
            dir.resolve("elsewhere"),
            "2024-03-01",
            "a.parquet",
            List.of(u("A", "Adb", "2024-03-01T11:00:00Z")));
    assertThat(Files.size(other))
        .as("the fixture's two versions' sizes")
        .isEqualTo(Files.size(file));
    Files.copy(other, file, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    Files.setLastModifiedTime(file, mtime);

    IngestOutcome out = new IngestJob(spark, s).run();

    assertThat(out.report().status()).as(out.report().error()).isEqualTo(IngestStatus.SUCCEEDED);
    assertThat(out.report().counts().filesNew()).isEqualTo(1);
    assertThat(out.report().counts().recordsUpdated()).isEqualTo(1);
    assertThat(curated(s).get("A").get(0)).isEqualTo("Adb");
    // The same version again is not.
    assertThat(new IngestJob(spark, s).run().report().status())
        .isEqualTo(IngestStatus.NOTHING_TO_DO);
  }

  @Test
  void aCheckpointWrittenBeforeFingerprintsStillSkipsItsFilesAndTheNextOneHasThem()
      throws Exception {
    IngestSettings s = settings(dir);
    Path raw = Path.of(s.dataset().raw().location());
    RawFixtures.write(
        raw, "2024-03-01", "a.parquet", List.of(u("A", "Ada", "2024-03-01T10:00:00Z")));
    assertThat(new IngestJob(spark, s).run().report().status()).isEqualTo(IngestStatus.SUCCEEDED);
    // The checkpoint as the previous version wrote it: stamps of size and modification time.
    org.apache.iceberg.Table t =
        org.apache.iceberg.spark.Spark3Util.loadIcebergTable(spark, s.curatedSparkName());
    Map<String, String> summary = new java.util.HashMap<>(t.currentSnapshot().summary());
    String processed = summary.get(CheckpointCodec.PROCESSED_FILES);
    assertThat(processed).contains(":sha256=");
    String legacy = processed.replaceAll(":sha256=[0-9a-f]+", "");
    org.apache.iceberg.AppendFiles legacyCommit = t.newAppend();
    summary.forEach(
        (k, v) -> {
          if (k.startsWith(CheckpointCodec.PREFIX)) {
            legacyCommit.set(k, k.equals(CheckpointCodec.PROCESSED_FILES) ? legacy : v);
          }
        });
    legacyCommit.commit();

    IngestOutcome again = new IngestJob(spark, s).run();
    assertThat(again.report().status())
        .as(again.report().error())
        .isEqualTo(IngestStatus.NOTHING_TO_DO);
    assertThat(again.report().counts().filesSkipped()).isEqualTo(1);

    RawFixtures.write(
        raw, "2024-03-01", "b.parquet", List.of(u("B", "Bo", "2024-03-01T11:00:00Z")));
    IngestOutcome next = new IngestJob(spark, s).run();
    assertThat(next.report().status()).as(next.report().error()).isEqualTo(IngestStatus.SUCCEEDED);
    assertThat(next.report().counts().filesNew()).isEqualTo(1);
    Checkpoint cp =
        CheckpointLog.latest(
                org.apache.iceberg.spark.Spark3Util.loadIcebergTable(spark, s.curatedSparkName()))
            .orElseThrow();
    assertThat(cp.processed().get(day(1)).get("a.parquet")).doesNotContain("sha256=");
    assertThat(cp.processed().get(day(1)).get("b.parquet"))
        .matches("\\d+:\\d+:sha256=[0-9a-f]{32}");
  }

  @Test
  void onlyParquetFilesAreDiscoveredAndOtherFilesAreNeitherReadNorQuarantined() throws Exception {
    IngestSettings s = settings(dir);
    Path raw = Path.of(s.dataset().raw().location());
    RawFixtures.write(
        raw, "2024-03-01", "a.parquet", List.of(u("A", "Ada", "2024-03-01T10:00:00Z")));
    RawFixtures.write(
        raw, "2024-03-01", "B.PARQUET", List.of(u("B", "Bo", "2024-03-01T11:00:00Z")));
    Path partition = raw.resolve("ingest_date=2024-03-01");
    Files.writeString(partition.resolve("_SUCCESS"), "");
    Files.writeString(partition.resolve("notes.txt"), "not data");
    Files.writeString(partition.resolve("manifest.json"), "{\"files\": 2}");

    PartitionLister lister =
        new PartitionLister(
            spark.sparkContext().hadoopConfiguration(), raw.toString(), "ingest_date");
    assertThat(lister.files(day(1)))
        .extracting(RawFile::name)
        .containsExactly("B.PARQUET", "a.parquet");

    IngestOutcome out = new IngestJob(spark, s).run();
    assertThat(out.report().status()).as(out.report().error()).isEqualTo(IngestStatus.SUCCEEDED);
    IngestCounts c = out.report().counts();
    assertThat(c.filesDiscovered()).isEqualTo(2);
    assertThat(c.filesQuarantined()).isZero();
    assertThat(c.recordsInvalid()).isZero();
    assertThat(out.report().quarantinedFiles()).isEmpty();
    assertThat(out.report().inputFiles())
        .hasSize(2)
        .allSatisfy(f -> assertThat(f.toLowerCase(java.util.Locale.ROOT)).endsWith(".parquet"));
    assertThat(count(s.quarantineSparkName())).isZero();
    assertThat(curated(s).keySet()).containsExactlyInAnyOrder("A", "B");
  }
}
