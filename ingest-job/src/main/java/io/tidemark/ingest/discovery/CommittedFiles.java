package io.tidemark.ingest.discovery;

import io.tidemark.ingest.checkpoint.Checkpoint;
import io.tidemark.ingest.checkpoint.CheckpointCodec;
import io.tidemark.ingest.checkpoint.CheckpointLog;
import io.tidemark.ingest.kernel.FileStamp;
import io.tidemark.ingest.kernel.RawFile;
import io.tidemark.model.contract.RawLayout;
import io.tidemark.model.contract.StateLayout;
import io.tidemark.model.json.Json;
import io.tidemark.model.report.IngestRunReport;
import io.tidemark.model.report.IngestStatus;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.UnaryOperator;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The raw files that committed batches read, for a sweep to tell a file no batch read from one a
 * batch read long ago (the checkpoint keeps file names only for the partitions within the lookback;
 * older ones are folded into counts).
 *
 * <p>Two sources, so that losing one does not make the sweep read everything again: the processed
 * files of every checkpoint in the curated table's retained history (its tagged one included) (with
 * the files earlier sweeps read in partitions already folded, which their commits name), and the
 * input files of every run report whose batch committed (SUCCEEDED or ALREADY_COMMITTED), which is
 * what the reconciler's {@code unprocessed_files} rule reads too. Files are matched by partition
 * and name.
 */
public final class CommittedFiles {
  private static final Logger LOG = LoggerFactory.getLogger(CommittedFiles.class);

  /** partition/name -> the stamps (size:mtime) of the versions batches read. */
  private final Map<String, Set<String>> stamps = new HashMap<>();

  /**
   * partition/name -> when the latest committed run that lists it started: a version modified after
   * that is a replacement no batch read.
   */
  private final Map<String, Long> listedBy = new HashMap<>();

  private int reportsRead;
  private int reportsUnreadable;

  private CommittedFiles() {}

  /**
   * Gathers the committed files of a dataset.
   *
   * @param curated the curated table; null when it does not exist yet
   * @param stateRoot where the run reports are ({@code <stateRoot>/_runs/dt=.../<run-id>.json})
   * @param dataset only reports of this dataset count
   * @param partitionColumn the raw partition folders' column, to read a report's paths; null when
   *     the layout has no such column (the reports are then not read: their paths do not say the
   *     day a file was placed in)
   * @throws IOException when the state root cannot be listed
   */
  public static CommittedFiles gather(
      Table curated, String stateRoot, String dataset, String partitionColumn, Configuration conf)
      throws IOException {
    CommittedFiles c = new CommittedFiles();
    if (curated != null && curated.currentSnapshot() != null) {
      for (Snapshot s : CheckpointLog.history(curated)) {
        Optional<Checkpoint> cp = CheckpointCodec.decode(s.snapshotId(), s.summary());
        cp.ifPresent(
            k ->
                k.processed()
                    .forEach((p, files) -> files.forEach((n, stamp) -> c.addStamp(p, n, stamp))));
        CheckpointCodec.sweptFiles(s.snapshotId(), s.summary())
            .forEach((p, files) -> files.forEach((n, stamp) -> c.addStamp(p, n, stamp)));
      }
    }
    if (partitionColumn != null) {
      c.readReports(stateRoot, dataset, partitionColumn, conf);
    }
    return c;
  }

  /**
   * Whether a committed batch read this version of the file: a checkpoint or a sweep's commit holds
   * its stamp (size and modification time, and content fingerprint where the stamp has one), or a
   * committed run's report lists the file and the run started after the file was last modified. A
   * file replaced since (a corrected re-delivery under the same name) is not read.
   */
  public boolean contains(RawFile f, UnaryOperator<RawFile> fingerprints) {
    String key = key(f.partition(), f.name());
    Set<String> read = stamps.get(key);
    boolean rewritten = false;
    for (String s : read == null ? Set.<String>of() : read) {
      FileStamp stamp = FileStamp.parse(s);
      if (Checkpoint.sameVersion(stamp, f, fingerprints)) {
        return true;
      }
      // Same size and time, other content: a rewrite, whatever the run reports say.
      rewritten |= stamp.sameSizeAndTime(f.fileStamp());
    }
    Long listed = listedBy.get(key);
    return !rewritten && listed != null && f.modificationTime() <= listed;
  }

  /** The run reports read. */
  public int reportsRead() {
    return reportsRead;
  }

  /** The run reports that could not be read (their files count as not committed). */
  public int reportsUnreadable() {
    return reportsUnreadable;
  }

  private void addStamp(LocalDate partition, String name, String stamp) {
    stamps.computeIfAbsent(key(partition, name), k -> new HashSet<>()).add(stamp);
  }

  private static String key(LocalDate partition, String name) {
    return partition + "/" + name;
  }

  private void readReports(
      String stateRoot, String dataset, String partitionColumn, Configuration conf)
      throws IOException {
    String root =
        stateRoot.endsWith("/") ? stateRoot.substring(0, stateRoot.length() - 1) : stateRoot;
    Path pattern = new Path(root + "/" + StateLayout.RUNS_FOLDER + "/dt=*/*.json");
    FileSystem fs = pattern.getFileSystem(conf);
    FileStatus[] found = fs.globStatus(pattern);
    if (found == null) {
      return;
    }
    for (FileStatus st : found) {
      IngestRunReport r;
      try (InputStream in = fs.open(st.getPath())) {
        r = Json.read(new String(in.readAllBytes(), StandardCharsets.UTF_8), IngestRunReport.class);
      } catch (IOException | RuntimeException e) {
        reportsUnreadable++;
        LOG.warn(
            "Cannot read run report {} (its input files count as not committed): {}",
            st.getPath(),
            e.toString());
        continue;
      }
      reportsRead++;
      if (!dataset.equals(r.dataset())
          || (r.status() != IngestStatus.SUCCEEDED
              && r.status() != IngestStatus.ALREADY_COMMITTED)) {
        continue;
      }
      for (String path : r.inputFiles()) {
        int last = path.lastIndexOf('/');
        int before = last <= 0 ? -1 : path.lastIndexOf('/', last - 1);
        if (last < 0) {
          continue;
        }
        RawLayout.Folder folder =
            RawLayout.classifyFolder(partitionColumn, path.substring(before + 1, last));
        if (folder.date() != null) {
          listedBy.merge(
              key(folder.date(), path.substring(last + 1)),
              r.startedAt().toEpochMilli(),
              Math::max);
        }
      }
    }
  }
}
