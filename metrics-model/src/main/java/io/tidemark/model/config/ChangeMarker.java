package io.tidemark.model.config;

import io.tidemark.model.json.Checks;

/**
 * The column that orders versions of a record, and its type.
 *
 * @param column the column name; required, there is no default (a dataset declares its own)
 * @param type TIMESTAMP (default) or LONG
 */
public record ChangeMarker(String column, ChangeMarkerType type) {
  public ChangeMarker {
    column = Checks.identifier("column", column);
    type = type == null ? ChangeMarkerType.TIMESTAMP : type;
  }

  public static ChangeMarker timestamp(String column) {
    return new ChangeMarker(column, ChangeMarkerType.TIMESTAMP);
  }
}
