package io.tidemark.ingest.discovery;

import io.tidemark.ingest.kernel.RawFile;
import java.time.LocalDate;
import java.util.List;

/**
 * How a dataset's raw files are laid out: a layout lists them, each with the partition it belongs
 * to, in the order a batch takes them, and counts what listing cost. Discovery knows the raw layer
 * only through this; {@link PartitionLister} reads Hive-style date folders ({@code
 * <column>=YYYY-MM-DD}), {@link ContractLayout} every layout a contract declares.
 */
public interface Layout {
  /**
   * Lists the partitions from {@code from} to {@code to} (both inclusive; null: unbounded) and
   * returns their files in order.
   */
  List<RawFile> filesBetween(LocalDate from, LocalDate to);

  /** The partitions listed so far, in listing order. */
  List<LocalDate> listedPartitions();

  /** The listing requests made so far. */
  int listCalls();

  /** Folders under the root that are not partitions of this layout, by name, in listing order. */
  List<String> ignoredFolders();

  /**
   * Entries of the raw location the layout cannot place (a folder that is no date, a file outside
   * the date folders, a file that is not Parquet, a file a DMS layout does not name), each as
   * {@code path (why)}, in listing order: read by no run, and reported.
   */
  List<String> strayEntries();

  /** Where the dataset's raw files are, qualified. */
  String root();

  /** What a partition folder of this layout looks like, for messages: {@code col=YYYY-MM-DD}. */
  String partitionFolders();
}
