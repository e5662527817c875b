package io.tidemark.ingest.checkpoint;

import io.tidemark.ingest.kernel.RawFile;
import io.tidemark.model.report.DiscoveryMode;
import io.tidemark.model.report.IngestMode;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;

/**
 * Deterministic batch ids: the same input files (path, size, modification time, content fingerprint
 * where known) on top of the same previous checkpoint always give the same id, so a retry
 * recognises its own committed batch.
 */
public final class BatchIds {
  private BatchIds() {}

  public static String of(
      List<RawFile> files, String previousBatchId, IngestMode mode, DiscoveryMode discovery) {
    return of(files, previousBatchId, mode, discovery, null);
  }

  /**
   * The same, also over {@code rules}: what decides how the files' records are validated and
   * merged, for a batch that no checkpoint moves past (a backfill), so that rerunning it after a
   * rule changed is a new batch rather than one already committed.
   */
  public static String of(
      List<RawFile> files,
      String previousBatchId,
      IngestMode mode,
      DiscoveryMode discovery,
      String rules) {
    MessageDigest sha;
    try {
      sha = MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
    line(sha, "tidemark-batch-v1");
    line(sha, "mode=" + mode + (mode == IngestMode.INCREMENTAL ? "/" + discovery : ""));
    line(sha, "previous=" + (previousBatchId == null ? "<bootstrap>" : previousBatchId));
    if (rules != null) {
      line(sha, "rules=" + rules);
    }
    files.stream()
        .sorted(Comparator.comparing(RawFile::path))
        .forEach(
            f ->
                line(
                    sha,
                    f.path()
                        + "|"
                        + f.size()
                        + "|"
                        + f.modificationTime()
                        + (f.fingerprint() == null ? "" : "|" + f.fingerprint())));
    return HexFormat.of().formatHex(sha.digest()).substring(0, 32);
  }

  private static void line(MessageDigest sha, String s) {
    sha.update(s.getBytes(StandardCharsets.UTF_8));
    sha.update((byte) '\n');
  }
}
