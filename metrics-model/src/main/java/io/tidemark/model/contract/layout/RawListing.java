package io.tidemark.model.contract.layout;

import io.tidemark.model.contract.RawLayout;
import io.tidemark.model.contract.RawLayout.StrayEntry;
import java.io.IOException;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.TreeSet;

/**
 * Lists a dataset's raw location under its {@link Layout}: the data files with their day, and every
 * stray entry with why it is not read. The listing itself is the caller's ({@link Lister}: Hadoop's
 * file system in the job, the local file system or S3 in the reconciler), so both halves place the
 * same files on the same days by the same rules.
 *
 * <p>Date folders outside the requested days are not listed: a year folder before the first day is
 * passed over whole. Files that lie directly in the raw location (DMS, arrival) are always listed,
 * and those whose day is outside the requested days are left out.
 */
public final class RawListing {
  private RawListing() {}

  /** Lists one folder of the raw location. */
  @FunctionalInterface
  public interface Lister {
    /**
     * The entries of a folder.
     *
     * @param folder the folder, relative to the raw location with {@code /} separators; empty for
     *     the raw location itself
     * @throws java.io.FileNotFoundException when the folder does not exist
     */
    List<Entry> list(String folder) throws IOException;
  }

  /** One entry of a listed folder. A lister may look its attributes up only when asked. */
  public interface Entry {
    String name();

    boolean isFolder();

    /** The size in bytes (files). */
    long size();

    /** The modification time, epoch milliseconds (files). */
    long modifiedMillis();

    /** The store's fingerprint of the content (an S3 ETag); null when the listing gives none. */
    String fingerprint();
  }

  /**
   * A data file and its place.
   *
   * @param relativePath its path below the raw location, {@code /} separated
   * @param partition its day
   * @param name its name within the day: the path below the day's folder (below the raw location
   *     for files lying there)
   * @param size its size in bytes
   * @param modifiedMillis its modification time
   * @param fingerprint the store's fingerprint, or null
   */
  public record PlacedFile(
      String relativePath,
      LocalDate partition,
      String name,
      long size,
      long modifiedMillis,
      String fingerprint) {
    public PlacedFile {
      Objects.requireNonNull(relativePath, "relativePath is null");
      Objects.requireNonNull(partition, "partition is null");
      Objects.requireNonNull(name, "name is null");
    }
  }

  /**
   * What a listing found.
   *
   * @param files the data files, by day then name
   * @param strays the stray entries, in listing order
   * @param partitionsListed the days whose folders were listed, in date order (none for files lying
   *     directly in the raw location)
   */
  public record Result(
      List<PlacedFile> files, List<StrayEntry> strays, List<LocalDate> partitionsListed) {
    public Result {
      files = List.copyOf(files);
      strays = List.copyOf(strays);
      partitionsListed = List.copyOf(partitionsListed);
    }
  }

  /**
   * Lists the data files of the days from {@code from} to {@code to}, both inclusive (null: open),
   * and every stray entry met on the way.
   */
  public static Result list(Layout layout, Lister lister, LocalDate from, LocalDate to)
      throws IOException {
    Walk w = new Walk(layout, lister, from, to);
    w.folder("", 0, DateFolders.Fields.NONE);
    w.files.sort(Comparator.comparing(PlacedFile::partition).thenComparing(PlacedFile::name));
    return new Result(w.files, w.strays, new ArrayList<>(w.partitions));
  }

  /** One listing's state. */
  private static final class Walk {
    private final Layout layout;
    private final Lister lister;
    private final LocalDate from;
    private final LocalDate to;
    private final List<DateFolders.Level> levels;
    private final int dayDepth;
    private final List<PlacedFile> files = new ArrayList<>();
    private final List<StrayEntry> strays = new ArrayList<>();
    private final TreeSet<LocalDate> partitions = new TreeSet<>();

    Walk(Layout layout, Lister lister, LocalDate from, LocalDate to) {
      this.layout = Objects.requireNonNull(layout, "layout is null");
      this.lister = Objects.requireNonNull(lister, "lister is null");
      this.from = from;
      this.to = to;
      this.levels = layout.levels();
      this.dayDepth = dayDepth(levels);
    }

    private static int dayDepth(List<DateFolders.Level> levels) {
      for (int i = 0; i < levels.size(); i++) {
        if (levels.get(i).names("DD")) {
          return i + 1;
        }
      }
      return 0;
    }

    void folder(String path, int depth, DateFolders.Fields fields) throws IOException {
      if (depth >= dayDepth && dayDepth > 0) {
        partitions.add(fields.date());
      }
      for (Entry e : lister.list(path)) {
        if (RawLayout.isHidden(e.name())) {
          continue;
        }
        String rel = path.isEmpty() ? e.name() : path + "/" + e.name();
        if (depth < levels.size()) {
          if (e.isFolder()) {
            dateFolder(e, rel, depth, fields);
          } else {
            rootOrUpperFile(e, rel, depth);
          }
        } else if (e.isFolder()) {
          strays.add(
              new StrayEntry(
                  rel,
                  depth == 0
                      ? "a folder: the " + layout.kind() + " layout reads files in the raw location"
                      : "a folder inside the date folders " + path));
        } else if (!RawLayout.isDataFile(e.name())) {
          strays.add(new StrayEntry(rel, notData()));
        } else if (depth == 0) {
          rootFile(e, rel);
        } else {
          place(e, rel, fields.date(), rel.substring(dayPrefixLength(rel)));
        }
      }
    }

    private void dateFolder(Entry e, String rel, int depth, DateFolders.Fields fields)
        throws IOException {
      DateFolders.Level level = levels.get(depth);
      DateFolders.Fields f = level.match(e.name(), fields);
      if (f == null) {
        strays.add(new StrayEntry(rel, folderProblem(level, e.name())));
      } else if (!f.before(from) && !f.after(to)) {
        folder(rel, depth + 1, f);
      }
    }

    /** A file where the layout expects date folders. */
    private void rootOrUpperFile(Entry e, String rel, int depth) {
      if (depth == 0 && RawLayout.isDataFile(e.name())) {
        rootFile(e, rel);
      } else if (depth == 0) {
        strays.add(
            new StrayEntry(
                rel, layout instanceof Layout.Dated ? layout.rootFileProblem() : notData()));
      } else {
        strays.add(
            new StrayEntry(rel, "a file where " + levels.get(depth).text() + " folders belong"));
      }
    }

    private void rootFile(Entry e, String rel) {
      LocalDate day = layout.rootFileDay(e.name(), e.modifiedMillis());
      if (day == null) {
        strays.add(new StrayEntry(rel, layout.rootFileProblem()));
      } else {
        place(e, rel, day, e.name());
      }
    }

    private void place(Entry e, String rel, LocalDate day, String name) {
      if ((from != null && day.isBefore(from)) || (to != null && day.isAfter(to))) {
        return;
      }
      files.add(new PlacedFile(rel, day, name, e.size(), e.modifiedMillis(), e.fingerprint()));
    }

    /** The length of {@code rel}'s first {@link #dayDepth} segments and the slash after them. */
    private int dayPrefixLength(String rel) {
      int at = -1;
      for (int i = 0; i < dayDepth; i++) {
        at = rel.indexOf('/', at + 1);
      }
      return at + 1;
    }

    private static String notData() {
      return "not a " + RawLayout.DATA_FILE_SUFFIX + " data file";
    }

    /** Why a folder is not a date folder; Hive-style names get the reasons users recognise. */
    private static String folderProblem(DateFolders.Level level, String name) {
      String text = level.text();
      int eq = text.indexOf('=');
      if (eq > 0 && !text.substring(0, eq).matches(".*(YYYY|MM|DD|HH).*")) {
        String column = text.substring(0, eq);
        if (name.startsWith(column + "=")) {
          return "'" + name.substring(eq + 1) + "' is not a date " + text.substring(eq + 1);
        }
        int nameEq = name.indexOf('=');
        if (nameEq > 0 && name.substring(0, nameEq).equalsIgnoreCase(column)) {
          return "the partition column is '" + column + "' (names are case-sensitive)";
        }
        return "not a " + text + " partition folder";
      }
      return "not a " + text + " date folder";
    }
  }
}
