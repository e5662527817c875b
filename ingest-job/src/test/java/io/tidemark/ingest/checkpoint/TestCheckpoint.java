package io.tidemark.ingest.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.ingest.kernel.RawFile;
import io.tidemark.model.report.DiscoveryMode;
import io.tidemark.model.report.IngestMode;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TestCheckpoint {
  static RawFile file(String date, String name, long size, long mtime) {
    return new RawFile(
        "file:/raw/customers/ingest_date=" + date + "/" + name,
        LocalDate.parse(date),
        name,
        size,
        mtime);
  }

  @Test
  void processedSetStaysBoundedByFoldingOldPartitions() {
    Checkpoint cp = null;
    LocalDate day = LocalDate.parse("2024-01-01");
    for (int i = 0; i < 400; i++) {
      LocalDate d = day.plusDays(i);
      cp =
          Checkpoint.advance(
              cp,
              "b" + i,
              d + "T12:00:00Z",
              List.of(
                  file(d.toString(), "a.parquet", 100, i), file(d.toString(), "b.parquet", 50, i)),
              2);
    }
    // Only the partitions within the lookback keep their files; older ones are folded.
    assertThat(cp.processed().keySet())
        .containsExactly(day.plusDays(397), day.plusDays(398), day.plusDays(399));
    assertThat(cp.processedFileCount()).isEqualTo(6);
    assertThat(cp.foldedThrough()).isEqualTo(day.plusDays(396));
    assertThat(cp.folded()).hasSize(Checkpoint.FOLDED_MARKS_KEPT);
    assertThat(cp.folded().get(day.plusDays(396))).isEqualTo("files=2;bytes=150");
    // And the encoded summary stays small.
    int size = CheckpointCodec.encode(cp).values().stream().mapToInt(String::length).sum();
    assertThat(size).isLessThan(4000);
  }

  @Test
  void aFileWithTheSameSizeAndTimeButOtherContentIsNotProcessed() {
    RawFile a = file("2024-01-01", "a.parquet", 10, 1).withFingerprint("sha256=aa");
    Checkpoint cp = Checkpoint.advance(null, "b1", null, List.of(a), 2);
    assertThat(cp.processed().get(LocalDate.parse("2024-01-01")))
        .containsEntry("a.parquet", "10:1:sha256=aa");
    List<RawFile> checksummed = new ArrayList<>();
    RawFile listed = file("2024-01-01", "a.parquet", 10, 1);
    assertThat(
            cp.isProcessed(
                listed,
                f -> {
                  checksummed.add(f);
                  return f.withFingerprint("sha256=bb");
                }))
        .isFalse();
    assertThat(cp.isProcessed(listed, f -> f.withFingerprint("sha256=aa"))).isTrue();
    // Another size or time: no checksum needed to tell.
    checksummed.clear();
    assertThat(
            cp.isProcessed(
                file("2024-01-01", "a.parquet", 11, 1),
                f -> {
                  checksummed.add(f);
                  return f;
                }))
        .isFalse();
    assertThat(checksummed).isEmpty();
  }

  @Test
  void aStampWrittenBeforeFingerprintsIsMatchedBySizeAndTimeWithoutAChecksum() {
    Map<String, String> summary = new java.util.HashMap<>();
    summary.put(CheckpointCodec.VERSION, CheckpointCodec.CURRENT_VERSION);
    summary.put(CheckpointCodec.BATCH_ID, "old");
    summary.put(CheckpointCodec.PARTITION, "2024-01-01");
    summary.put(CheckpointCodec.PROCESSED_FILES, "{\"2024-01-01\":{\"a.parquet\":\"10:1\"}}");
    Checkpoint cp = CheckpointCodec.decode(7, summary).orElseThrow();
    assertThat(
            cp.isProcessed(
                file("2024-01-01", "a.parquet", 10, 1),
                f -> {
                  throw new AssertionError("checksummed " + f.path());
                }))
        .isTrue();
    assertThat(cp.isProcessed(file("2024-01-01", "a.parquet", 10, 2), f -> f)).isFalse();
  }

  @Test
  void aStampThatIsNotSizeAndTimeIsRefusedNamingIt() {
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> io.tidemark.ingest.kernel.FileStamp.parse("10"))
        .hasMessage("Cannot read file stamp '10': expected size:mtime or size:mtime:fingerprint");
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> io.tidemark.ingest.kernel.FileStamp.parse("x:1"))
        .hasMessage("Cannot read file stamp 'x:1': size and mtime must be whole numbers");
    assertThat(io.tidemark.ingest.kernel.FileStamp.parse("10:1:etag=abc-2"))
        .isEqualTo(new io.tidemark.ingest.kernel.FileStamp(10, 1, "etag=abc-2"));
  }

  @Test
  void aRewrittenFileIsNotProcessedButTheSameOneIs() {
    Checkpoint cp =
        Checkpoint.advance(null, "b1", null, List.of(file("2024-01-01", "a.parquet", 10, 1)), 2);
    assertThat(cp.isProcessed(file("2024-01-01", "a.parquet", 10, 1), f -> f)).isTrue();
    assertThat(cp.isProcessed(file("2024-01-01", "a.parquet", 11, 2), f -> f)).isFalse();
    assertThat(cp.isProcessed(file("2024-01-02", "a.parquet", 10, 1), f -> f)).isFalse();
    assertThat(cp.previousBatchId()).isNull();
    Checkpoint next = Checkpoint.advance(cp, "b2", null, List.of(), 2);
    assertThat(next.previousBatchId()).isEqualTo("b1");
  }

  @Test
  void codecRoundTrips() {
    Checkpoint cp = null;
    for (int i = 1; i <= 5; i++) {
      cp =
          Checkpoint.advance(
              cp,
              "batch-" + i,
              "2024-01-0" + i + "T00:00:00Z",
              List.of(file("2024-01-0" + i, "part-" + i + ".parquet", i * 10, i)),
              1);
    }
    Map<String, String> summary = new java.util.HashMap<>(CheckpointCodec.encode(cp));
    summary.put("spark.app.id", "local-1");
    Checkpoint back = CheckpointCodec.decode(42, summary).orElseThrow();
    assertThat(back).isEqualTo(cp.committedAs(42));
    assertThat(CheckpointCodec.decode(1, Map.of("spark.app.id", "x"))).isEmpty();
  }

  @Test
  void batchIdDependsOnFilesAndPreviousBatchOnly() {
    List<RawFile> files =
        new ArrayList<>(
            List.of(
                file("2024-01-01", "a.parquet", 10, 1), file("2024-01-02", "b.parquet", 20, 2)));
    String id = BatchIds.of(files, "prev", IngestMode.INCREMENTAL, DiscoveryMode.FILES);
    List<RawFile> reversed = new ArrayList<>(files);
    java.util.Collections.reverse(reversed);
    assertThat(BatchIds.of(reversed, "prev", IngestMode.INCREMENTAL, DiscoveryMode.FILES))
        .isEqualTo(id);
    assertThat(BatchIds.of(files, "other", IngestMode.INCREMENTAL, DiscoveryMode.FILES))
        .isNotEqualTo(id);
    assertThat(BatchIds.of(files, null, IngestMode.INCREMENTAL, DiscoveryMode.FILES))
        .isNotEqualTo(id);
    files.set(1, file("2024-01-02", "b.parquet", 21, 2));
    assertThat(BatchIds.of(files, "prev", IngestMode.INCREMENTAL, DiscoveryMode.FILES))
        .isNotEqualTo(id);
    assertThat(id).hasSize(32);
  }
}
