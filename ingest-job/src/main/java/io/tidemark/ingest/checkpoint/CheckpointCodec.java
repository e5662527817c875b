package io.tidemark.ingest.checkpoint;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.tidemark.model.contract.IngestCommit;
import io.tidemark.model.json.Json;
import io.tidemark.model.report.IngestMode;
import java.time.LocalDate;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Writes a {@link Checkpoint} into Iceberg snapshot-summary properties and reads it back. Keys
 * start with {@value #PREFIX}; values are plain text or compact JSON.
 */
public final class CheckpointCodec {
  public static final String PREFIX = "tidemark.";
  public static final String VERSION = PREFIX + "checkpoint-version";
  public static final String BATCH_ID = IngestCommit.BATCH_ID_PROPERTY;
  public static final String PREVIOUS_BATCH_ID = PREFIX + "previous-batch-id";
  public static final String WATERMARK = PREFIX + "watermark";
  public static final String PARTITION = PREFIX + "checkpoint-partition";
  public static final String PROCESSED_FILES = PREFIX + "processed-files";
  public static final String FOLDED = PREFIX + "folded-partitions";
  public static final String FOLDED_THROUGH = PREFIX + "folded-through";

  /** Not part of the checkpoint: who committed it, so the run report can be rebuilt. */
  public static final String RUN_ID = IngestCommit.RUN_ID_PROPERTY;

  /** When the committing run started: where its report is filed ({@code _runs/dt=<day>/}). */
  public static final String RUN_STARTED_AT = PREFIX + "run-started-at";

  public static final String MODE = PREFIX + "mode";
  public static final String COUNTS = PREFIX + "counts";

  /**
   * A sweep's files in partitions its own checkpoint no longer lists by name ({@code {"YYYY-MM-DD":
   * {"name": "size:mtime"}}}): how a later sweep knows a batch read them (see {@link #sweptFiles}).
   */
  public static final String SWEPT_FILES = PREFIX + "swept-files";

  /** A backfill's partition range, {@code FROM..TO}: not part of any checkpoint. */
  public static final String BACKFILL_RANGE = PREFIX + "backfill-range";

  public static final String CURRENT_VERSION = "1";

  private static final TypeReference<Map<String, Map<String, String>>> PROCESSED_TYPE =
      new TypeReference<>() {};
  private static final TypeReference<Map<String, String>> FOLDED_TYPE = new TypeReference<>() {};

  private CheckpointCodec() {}

  /** The summary properties carrying the checkpoint. */
  public static Map<String, String> encode(Checkpoint c) {
    Map<String, String> p = new LinkedHashMap<>();
    p.put(VERSION, CURRENT_VERSION);
    p.put(BATCH_ID, c.batchId());
    if (c.previousBatchId() != null) {
      p.put(PREVIOUS_BATCH_ID, c.previousBatchId());
    }
    if (c.watermark() != null) {
      p.put(WATERMARK, c.watermark());
    }
    if (c.partition() != null) {
      p.put(PARTITION, c.partition().toString());
    }
    Map<String, Map<String, String>> processed = new TreeMap<>();
    c.processed().forEach((d, files) -> processed.put(d.toString(), files));
    p.put(PROCESSED_FILES, compactJson(processed));
    Map<String, String> folded = new TreeMap<>();
    c.folded().forEach((d, m) -> folded.put(d.toString(), m));
    p.put(FOLDED, compactJson(folded));
    if (c.foldedThrough() != null) {
      p.put(FOLDED_THROUGH, c.foldedThrough().toString());
    }
    return p;
  }

  /** The checkpoint in a snapshot summary, if the snapshot carries one. */
  public static Optional<Checkpoint> decode(long snapshotId, Map<String, String> summary) {
    if (summary == null || !summary.containsKey(BATCH_ID)) {
      return Optional.empty();
    }
    if (!movesCheckpoint(summary.get(MODE))) {
      // A backfill or quarantine replay: data and a batch id, but the checkpoint stays put.
      return Optional.empty();
    }
    String version = summary.get(VERSION);
    if (!CURRENT_VERSION.equals(version)) {
      throw new IllegalStateException(
          "Cannot read checkpoint in snapshot "
              + snapshotId
              + ": version '"
              + version
              + "' is not "
              + CURRENT_VERSION);
    }
    try {
      SortedMap<LocalDate, SortedMap<String, String>> processed = new TreeMap<>();
      String pf = summary.get(PROCESSED_FILES);
      if (pf != null) {
        Json.mapper()
            .readValue(pf, PROCESSED_TYPE)
            .forEach((d, files) -> processed.put(LocalDate.parse(d), new TreeMap<>(files)));
      }
      SortedMap<LocalDate, String> folded = new TreeMap<>();
      String fp = summary.get(FOLDED);
      if (fp != null) {
        Json.mapper()
            .readValue(fp, FOLDED_TYPE)
            .forEach((d, m) -> folded.put(LocalDate.parse(d), m));
      }
      return Optional.of(
          new Checkpoint(
              snapshotId,
              summary.get(BATCH_ID),
              summary.get(PREVIOUS_BATCH_ID),
              summary.get(WATERMARK),
              date(summary.get(PARTITION)),
              processed,
              folded,
              date(summary.get(FOLDED_THROUGH))));
    } catch (JsonProcessingException | RuntimeException e) {
      throw new IllegalStateException(
          "Cannot read checkpoint in snapshot " + snapshotId + ": " + e.getMessage(), e);
    }
  }

  /**
   * The files a sweep's commit names in {@link #SWEPT_FILES}: partition -> file name -> stamp;
   * empty when it names none.
   */
  public static SortedMap<LocalDate, SortedMap<String, String>> sweptFiles(
      long snapshotId, Map<String, String> summary) {
    SortedMap<LocalDate, SortedMap<String, String>> out = new TreeMap<>();
    String text = summary == null ? null : summary.get(SWEPT_FILES);
    if (text == null) {
      return out;
    }
    try {
      Json.mapper()
          .readValue(text, PROCESSED_TYPE)
          .forEach((d, files) -> out.put(LocalDate.parse(d), new TreeMap<>(files)));
      return out;
    } catch (JsonProcessingException | RuntimeException e) {
      throw new IllegalStateException(
          "Cannot read the swept files of snapshot " + snapshotId + ": " + e.getMessage(), e);
    }
  }

  /** Whether a commit of the given mode (the {@link #MODE} property) carries a checkpoint. */
  static boolean movesCheckpoint(String mode) {
    if (mode == null) {
      return true;
    }
    try {
      return IngestMode.valueOf(mode).movesCheckpoint();
    } catch (IllegalArgumentException e) {
      // A mode this version does not know: read the checkpoint, which fails loudly if malformed.
      return true;
    }
  }

  private static LocalDate date(String s) {
    return s == null ? null : LocalDate.parse(s);
  }

  /** One-line JSON, as summary property values should be. */
  public static String compactJson(Object o) {
    try {
      return Json.mapper()
          .writer()
          .without(SerializationFeature.INDENT_OUTPUT)
          .writeValueAsString(o);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("Cannot encode checkpoint: " + e.getMessage(), e);
    }
  }
}
