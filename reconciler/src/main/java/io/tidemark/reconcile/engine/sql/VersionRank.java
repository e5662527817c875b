package io.tidemark.reconcile.engine.sql;

import io.tidemark.model.contract.VersionOrder;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A raw version's place in the contract's {@link VersionOrder} packed into one wide integer, so
 * that the winner of a key is its {@code max}: each of {@link VersionOrder#TERMS} takes a field,
 * the first term the highest; a descending term stores its value, an ascending one its complement.
 * The file is its ordinal in path order ({@code src_ord}). Fits while a reconciliation reads fewer
 * than 2^23 files of fewer than 2^40 rows each.
 */
final class VersionRank {
  /** Each term's column in {@code raw_versions} and its width in bits. */
  private static final Map<VersionOrder.Role, Field> FIELDS =
      Map.of(
          VersionOrder.Role.MARKER, new Field("marker", 64),
          VersionOrder.Role.DELETE, new Field("is_delete", 1),
          VersionOrder.Role.FILE, new Field("src_ord", 23),
          VersionOrder.Role.POSITION, new Field("pos", 40));

  private record Field(String column, int bits) {}

  private VersionRank() {}

  /** The packed rank of a row of {@code raw_versions}, in the dialect's wide integer type. */
  static String expression(SqlDialect d) {
    List<String> parts = new ArrayList<>();
    int shift = 0;
    List<VersionOrder.Term> terms = VersionOrder.TERMS;
    for (int i = terms.size() - 1; i >= 0; i--) {
      VersionOrder.Term t = terms.get(i);
      Field f = FIELDS.get(t.role());
      if (t.role() == VersionOrder.Role.MARKER && (i != 0 || !t.descending())) {
        // The marker is signed: only the highest field, in descending order, keeps its sign.
        throw new IllegalStateException("Cannot pack the version order " + terms);
      }
      String value =
          t.descending() || t.role() == VersionOrder.Role.MARKER
              ? f.column()
              : max(f.bits()) + " - " + f.column();
      parts.add(
          0,
          shift == 0
              ? "(" + value + ")"
              : "CAST("
                  + value
                  + " AS "
                  + d.wideIntegerType()
                  + ") * CAST("
                  + BigInteger.ONE.shiftLeft(shift)
                  + " AS "
                  + d.wideIntegerType()
                  + ")");
      shift += f.bits();
    }
    return String.join(" + ", parts);
  }

  /** The winner's change marker, from the max of {@link #expression}. */
  static String markerOf(String rank) {
    return "CAST(" + rank + " >> " + shiftOf(VersionOrder.Role.MARKER) + " AS BIGINT)";
  }

  /** Whether the winner is a delete, from the max of {@link #expression}. */
  static String deleteOf(String rank) {
    boolean descending =
        VersionOrder.TERMS.stream()
            .filter(t -> t.role() == VersionOrder.Role.DELETE)
            .findFirst()
            .orElseThrow()
            .descending();
    return "(("
        + rank
        + " >> "
        + shiftOf(VersionOrder.Role.DELETE)
        + ") & 1) = "
        + (descending ? 1 : 0);
  }

  private static int shiftOf(VersionOrder.Role role) {
    int shift = 0;
    List<VersionOrder.Term> terms = VersionOrder.TERMS;
    for (int i = terms.size() - 1; i >= 0; i--) {
      if (terms.get(i).role() == role) {
        return shift;
      }
      shift += FIELDS.get(terms.get(i).role()).bits();
    }
    throw new IllegalStateException("The version order has no " + role + " term");
  }

  private static BigInteger max(int bits) {
    return BigInteger.ONE.shiftLeft(bits).subtract(BigInteger.ONE);
  }
}
