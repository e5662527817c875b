package io.tidemark.ingest.discovery;

import io.tidemark.ingest.kernel.IngestException;
import io.tidemark.model.report.IngestErrorCode;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * What every lister of a dataset's raw folder shares: the folder, Hadoop's listing of it counted in
 * requests, and what the listing found so far (the partitions listed, the stray entries).
 */
abstract class RawFolderLister implements Layout {
  /** Hadoop's name for an object store's LIST request statistic (S3A keeps it). */
  static final String OBJECT_LIST_REQUEST = "object_list_request";

  final FileSystem fs;
  final Path root;
  final List<LocalDate> listedPartitions = new ArrayList<>();
  final List<String> strays = new ArrayList<>();
  int listCalls;

  RawFolderLister(Configuration conf, String rawLocation) {
    RawRoot raw = RawRoot.of(conf, rawLocation);
    this.fs = raw.fs();
    this.root = raw.path();
  }

  /**
   * Lists one folder and counts the requests it took: on S3 (S3A) the LIST calls the file system
   * made, one per page of 1,000 keys; elsewhere one per folder.
   */
  final FileStatus[] list(Path dir) throws IOException {
    Long before = storeListRequests();
    try {
      return fs.listStatus(dir);
    } finally {
      Long after = storeListRequests();
      listCalls += before != null && after != null ? (int) Math.max(0, after - before) : 1;
    }
  }

  /** The object store's own count of LIST requests, where the file system keeps one. */
  private Long storeListRequests() {
    return fs.getStorageStatistics().getLong(OBJECT_LIST_REQUEST);
  }

  /**
   * Why listing the raw folder failed: RAW_ROOT_NOT_FOUND when it does not exist, IO_FAILED
   * otherwise.
   *
   * @param what the folder as the message names it, e.g. {@code raw root}
   */
  final IngestException cannotList(String what, IOException e) {
    if (e instanceof FileNotFoundException) {
      return new IngestException(
          IngestErrorCode.RAW_ROOT_NOT_FOUND,
          "Cannot list " + what + " " + root + ": it does not exist",
          e);
    }
    return new IngestException(
        IngestErrorCode.IO_FAILED, "Cannot list " + what + " " + root + ": " + e.getMessage(), e);
  }

  /** The listing requests this lister made so far. */
  @Override
  public final int listCalls() {
    return listCalls;
  }

  /** The partitions whose folders were listed, in listing order. */
  @Override
  public final List<LocalDate> listedPartitions() {
    return List.copyOf(listedPartitions);
  }

  @Override
  public final List<String> strayEntries() {
    return List.copyOf(strays);
  }

  @Override
  public final String root() {
    return root.toString();
  }
}
