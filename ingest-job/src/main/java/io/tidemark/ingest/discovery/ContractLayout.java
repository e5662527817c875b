package io.tidemark.ingest.discovery;

import io.tidemark.ingest.kernel.RawFile;
import io.tidemark.model.contract.RawLayout;
import io.tidemark.model.contract.layout.Layout;
import io.tidemark.model.contract.layout.RawListing;
import java.io.IOException;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.regex.Pattern;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * Lists a dataset's raw location under the layout its contract declares ({@link Layout}: date
 * folders of any pattern, AWS DMS's full-load and CDC files, a flat folder ordered by arrival),
 * through the contract module's {@link RawListing} over Hadoop's {@link FileSystem}, so the job
 * places files on days by the very rules the reconciler does. Within a day, DMS's full-load files
 * ({@code LOAD…}) come before its CDC files, and a flat folder's files come in arrival order.
 */
public final class ContractLayout extends RawFolderLister {
  private static final Pattern FULL_LOAD =
      Pattern.compile("(.*/)?LOAD[0-9A-Fa-f]+(_[0-9A-Fa-f]+)*\\.parquet", Pattern.CASE_INSENSITIVE);

  private final Layout layout;

  public ContractLayout(Configuration conf, String rawLocation, Layout layout) {
    super(conf, rawLocation);
    this.layout = layout;
  }

  @Override
  public List<RawFile> filesBetween(LocalDate from, LocalDate to) {
    RawListing.Result r;
    try {
      r = RawListing.list(layout, this::list, from, to);
    } catch (IOException e) {
      throw cannotList("raw location", e);
    }
    listedPartitions.addAll(r.partitionsListed());
    r.strays().forEach(s -> strays.add(s.toString()));
    List<RawFile> out = new ArrayList<>();
    for (RawListing.PlacedFile f : r.files()) {
      out.add(
          new RawFile(
              new Path(root, f.relativePath()).toString(),
              f.partition(),
              f.name(),
              f.size(),
              f.modifiedMillis(),
              f.fingerprint()));
    }
    out.sort(order());
    return out;
  }

  /** By day; within it, full loads first, then by arrival (flat folders) or by name. */
  private Comparator<RawFile> order() {
    Comparator<RawFile> byDay = Comparator.comparing(RawFile::partition);
    if (layout instanceof Layout.Arrival) {
      return byDay.thenComparingLong(RawFile::modificationTime).thenComparing(RawFile::name);
    }
    return byDay
        .thenComparing(f -> !FULL_LOAD.matcher(f.name()).matches())
        .thenComparing(RawFile::name);
  }

  private List<RawListing.Entry> list(String folder) throws IOException {
    Path dir = folder.isEmpty() ? root : new Path(root, folder);
    List<RawListing.Entry> out = new ArrayList<>();
    for (FileStatus s : list(dir)) {
      out.add(new HadoopEntry(s));
    }
    return out;
  }

  /** A listed file or folder. */
  private record HadoopEntry(FileStatus status) implements RawListing.Entry {
    @Override
    public String name() {
      return status.getPath().getName();
    }

    @Override
    public boolean isFolder() {
      return status.isDirectory();
    }

    @Override
    public long size() {
      return status.getLen();
    }

    @Override
    public long modifiedMillis() {
      return status.getModificationTime();
    }

    @Override
    public String fingerprint() {
      return PartitionLister.etag(status);
    }
  }

  /** Not counted apart: every entry the layout cannot place is a stray entry. */
  @Override
  public List<String> ignoredFolders() {
    return List.of();
  }

  @Override
  public String partitionFolders() {
    return layout.describe();
  }

  /**
   * Whether the layout is Hive folders {@code <column>=YYYY-MM-DD}, the {@link PartitionLister}'s.
   */
  public static String hiveDayColumn(Layout layout) {
    if (layout instanceof Layout.Dated d && Layout.HIVE.equals(d.kind())) {
      String p = d.folders().pattern();
      int eq = p.indexOf('=');
      if (eq > 0 && p.substring(eq + 1).equals("YYYY-MM-DD") && p.indexOf('/') < 0) {
        return p.substring(0, eq);
      }
    }
    return null;
  }

  /** Whether a name is a data file (for callers that list by themselves). */
  static boolean isDataFile(String name) {
    return RawLayout.isDataFile(name);
  }
}
