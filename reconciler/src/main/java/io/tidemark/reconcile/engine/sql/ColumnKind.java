package io.tidemark.reconcile.engine.sql;

import java.util.Locale;
import java.util.Map;

/** How a column's type counts for the reconciliation: each dialect maps its type names to these. */
public enum ColumnKind {
  TEXT,
  INTEGER,
  DECIMAL,
  FLOATING,
  TIMESTAMP,
  DATE,
  BINARY,
  OTHER;

  /**
   * The kind of a type name: any {@code timestamp...} or {@code decimal...} type (whatever its
   * unit, zone or precision), else the kind {@code names} gives it (lower-case names), else {@link
   * #OTHER}.
   */
  public static ColumnKind of(String typeName, Map<String, ColumnKind> names) {
    String t = typeName.toLowerCase(Locale.ROOT);
    if (t.startsWith("timestamp")) {
      return TIMESTAMP;
    }
    if (t.startsWith("decimal")) {
      return DECIMAL;
    }
    return names.getOrDefault(t, OTHER);
  }
}
