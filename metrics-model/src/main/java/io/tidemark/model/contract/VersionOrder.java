package io.tidemark.model.contract;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;

/**
 * Which version of a key wins: the highest change marker; on equal markers (a source defect) a
 * delete, then the lowest source file path, then the lowest row position in that file, i.e. the
 * first delivered row. File paths share the dataset's root, so their order is the order of {@code
 * <partitionColumn>=YYYY-MM-DD/<file name>}: an earlier partition first, then an earlier name,
 * compared as UTF-8 bytes, as SQL engines compare text.
 *
 * <p>Across batches the ingest job also never lets an equal marker overwrite what its table holds,
 * so a later delivery that sorts first (a late file in an earlier partition) does not replace the
 * row: the reconciler reports that case as a value mismatch at equal markers.
 */
public final class VersionOrder {
  private VersionOrder() {}

  /**
   * One version of a key, as much as ordering needs.
   *
   * @param marker the change marker (epoch microseconds, or the sequence)
   * @param delete whether it is a delete
   * @param file the source file's path
   * @param position the row's position in the file
   */
  public record Version(long marker, boolean delete, String file, long position) {
    public Version {
      Objects.requireNonNull(file, "file is null");
    }
  }

  /** Winner first. */
  public static final Comparator<Version> WINNER_FIRST =
      Comparator.comparingLong(Version::marker)
          .reversed()
          .thenComparing(Version::delete, Comparator.reverseOrder())
          .thenComparing(Version::file, VersionOrder::compareUtf8)
          .thenComparingLong(Version::position);

  /** What a term of the order compares. */
  public enum Role {
    MARKER,
    DELETE,
    FILE,
    POSITION
  }

  /**
   * One term of the order.
   *
   * @param role what it compares
   * @param descending whether larger values come first ({@code true} before {@code false} for
   *     {@link Role#DELETE})
   */
  public record Term(Role role, boolean descending) {}

  /** The order's terms, first to last: every engine builds its ordering from these. */
  public static final List<Term> TERMS =
      List.of(
          new Term(Role.MARKER, true),
          new Term(Role.DELETE, true),
          new Term(Role.FILE, false),
          new Term(Role.POSITION, false));

  /**
   * The same order as an SQL {@code ORDER BY} list, for Spark SQL, DuckDB and Trino alike.
   *
   * @param marker an expression of the change marker
   * @param isDelete a boolean expression, true for a delete
   * @param file an expression of the source file's path
   * @param position an expression of the row position
   */
  public static String sqlOrderBy(String marker, String isDelete, String file, String position) {
    List<String> out = new ArrayList<>();
    for (Term t : TERMS) {
      String expr =
          switch (t.role()) {
            case MARKER -> marker;
            case DELETE -> isDelete;
            case FILE -> file;
            case POSITION -> position;
          };
      out.add(expr + (t.descending() ? " DESC" : " ASC"));
    }
    return String.join(", ", out);
  }

  /**
   * The order without its last term, for engines that cannot see a row's position in its file
   * (Athena and Trino over a Hive table): rows of one file tied on the marker and the delete flag
   * stay tied, and such an engine must accept any of them as the winner.
   */
  public static String sqlOrderByWithoutPosition(String marker, String isDelete, String file) {
    String full = sqlOrderBy(marker, isDelete, file, POSITION_PLACEHOLDER);
    String last = ", " + POSITION_PLACEHOLDER + " ASC";
    if (!full.endsWith(last)) {
      throw new IllegalStateException("The row position is no longer the order's last term");
    }
    return full.substring(0, full.length() - last.length());
  }

  private static final String POSITION_PLACEHOLDER = "<position>";

  /** Compares two strings by their UTF-8 bytes (code point order). */
  static int compareUtf8(String a, String b) {
    int i = 0;
    int j = 0;
    while (i < a.length() && j < b.length()) {
      int ca = a.codePointAt(i);
      int cb = b.codePointAt(j);
      if (ca != cb) {
        return Integer.compare(ca, cb);
      }
      i += Character.charCount(ca);
      j += Character.charCount(cb);
    }
    return Integer.compare(a.length() - i, b.length() - j);
  }
}
