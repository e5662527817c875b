package io.tidemark.ingest.checkpoint;

import io.tidemark.ingest.kernel.FileStamp;
import io.tidemark.ingest.kernel.RawFile;
import java.time.LocalDate;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.function.UnaryOperator;

/**
 * The job's progress, stored in the summary of the curated table's snapshot that committed the
 * batch (see {@link CheckpointCodec}), so data and checkpoint can never disagree.
 *
 * @param snapshotId the snapshot carrying this checkpoint (-1 before it is committed)
 * @param batchId the deterministic id of the batch it committed
 * @param previousBatchId the batch id of the checkpoint before it; null for the bootstrap batch
 * @param watermark the highest change marker committed, as text (ISO instant or number); null when
 *     no valid record was ever committed
 * @param partition the latest raw partition holding processed files; discovery lists from this
 *     partition minus the lookback on
 * @param processed the files processed in partitions within the lookback: partition -> file name ->
 *     stamp ({@link FileStamp}: size:mtime:fingerprint, or size:mtime when written before
 *     fingerprints)
 * @param folded marks of the most recently folded partitions: partition -> "files=N;bytes=B"
 * @param foldedThrough every partition on or before this date has been folded; null when none
 */
public record Checkpoint(
    long snapshotId,
    String batchId,
    String previousBatchId,
    String watermark,
    LocalDate partition,
    SortedMap<LocalDate, SortedMap<String, String>> processed,
    SortedMap<LocalDate, String> folded,
    LocalDate foldedThrough) {

  /** How many folded-partition marks a checkpoint keeps; older ones live on in foldedThrough. */
  public static final int FOLDED_MARKS_KEPT = 32;

  public Checkpoint {
    Objects.requireNonNull(batchId, "batchId is null");
    processed = deepCopy(processed);
    folded = Collections.unmodifiableSortedMap(new TreeMap<>(folded == null ? Map.of() : folded));
  }

  /**
   * Whether this exact version of the file was processed already: the processed set holds its name
   * with the same size and modification time and, when that stamp has a content fingerprint, the
   * same fingerprint ({@code fingerprints} gives the listed file's, computed only then). A stamp
   * written before fingerprints existed ({@code size:mtime}) is matched by size and time.
   */
  public boolean isProcessed(RawFile f, UnaryOperator<RawFile> fingerprints) {
    SortedMap<String, String> files = processed.get(f.partition());
    String recorded = files == null ? null : files.get(f.name());
    return recorded != null && sameVersion(FileStamp.parse(recorded), f, fingerprints);
  }

  /**
   * Whether the listed file is the version the stamp names: same size and modification time, and
   * the same fingerprint when the stamp has one.
   */
  public static boolean sameVersion(
      FileStamp recorded, RawFile listed, UnaryOperator<RawFile> fingerprints) {
    if (!recorded.sameSizeAndTime(listed.fileStamp())) {
      return false;
    }
    if (recorded.fingerprint() == null) {
      return true;
    }
    // The store's fingerprint comes with the listing; a checksum is computed only now.
    RawFile known = listed.fingerprint() != null ? listed : fingerprints.apply(listed);
    return recorded.fingerprint().equals(known.fingerprint());
  }

  /** How many files the processed set tracks. */
  public int processedFileCount() {
    return processed.values().stream().mapToInt(Map::size).sum();
  }

  /**
   * The checkpoint after committing a batch: the new files join the processed set, the partition
   * moves forward, and partitions older than the partition minus the lookback are folded into a
   * mark so the set stays bounded.
   *
   * @param previous the checkpoint before the batch; null on bootstrap or full refresh
   */
  public static Checkpoint advance(
      Checkpoint previous,
      String batchId,
      String watermark,
      List<RawFile> newFiles,
      long lookbackDays) {
    SortedMap<LocalDate, SortedMap<String, String>> processed = new TreeMap<>();
    SortedMap<LocalDate, String> folded = new TreeMap<>();
    LocalDate partition = null;
    LocalDate foldedThrough = null;
    if (previous != null) {
      previous.processed.forEach((p, files) -> processed.put(p, new TreeMap<>(files)));
      folded.putAll(previous.folded);
      partition = previous.partition;
      foldedThrough = previous.foldedThrough;
    }
    for (RawFile f : newFiles) {
      processed.computeIfAbsent(f.partition(), p -> new TreeMap<>()).put(f.name(), f.stamp());
      if (partition == null || f.partition().isAfter(partition)) {
        partition = f.partition();
      }
    }
    if (partition != null) {
      LocalDate foldBefore = partition.minusDays(lookbackDays);
      for (LocalDate p : List.copyOf(processed.keySet())) {
        if (!p.isBefore(foldBefore)) {
          break;
        }
        SortedMap<String, String> files = processed.remove(p);
        long bytes = files.values().stream().mapToLong(s -> Long.parseLong(s.split(":")[0])).sum();
        folded.merge(p, mark(files.size(), bytes), Checkpoint::addMarks);
        if (foldedThrough == null || p.isAfter(foldedThrough)) {
          foldedThrough = p;
        }
      }
    }
    while (folded.size() > FOLDED_MARKS_KEPT) {
      folded.remove(folded.firstKey());
    }
    String previousBatchId = previous == null ? null : previous.batchId;
    return new Checkpoint(
        -1, batchId, previousBatchId, watermark, partition, processed, folded, foldedThrough);
  }

  /** The same checkpoint, as committed in the given snapshot. */
  public Checkpoint committedAs(long id) {
    return new Checkpoint(
        id, batchId, previousBatchId, watermark, partition, processed, folded, foldedThrough);
  }

  static String mark(long files, long bytes) {
    return "files=" + files + ";bytes=" + bytes;
  }

  private static String addMarks(String a, String b) {
    long[] x = parseMark(a);
    long[] y = parseMark(b);
    return mark(x[0] + y[0], x[1] + y[1]);
  }

  private static long[] parseMark(String m) {
    String[] parts = m.split(";");
    return new long[] {
      Long.parseLong(parts[0].substring("files=".length())),
      Long.parseLong(parts[1].substring("bytes=".length()))
    };
  }

  private static SortedMap<LocalDate, SortedMap<String, String>> deepCopy(
      Map<LocalDate, ? extends Map<String, String>> in) {
    SortedMap<LocalDate, SortedMap<String, String>> out = new TreeMap<>();
    if (in != null) {
      in.forEach((p, files) -> out.put(p, Collections.unmodifiableSortedMap(new TreeMap<>(files))));
    }
    return Collections.unmodifiableSortedMap(out);
  }
}
