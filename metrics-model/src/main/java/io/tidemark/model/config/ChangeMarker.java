package io.tidemark.model.config;

import io.tidemark.model.json.Checks;

/**
 * The column that orders versions of a record, and its type.
 *
 * @param column the column name, default {@code updated_at}
 * @param type TIMESTAMP (default) or LONG
 */
public record ChangeMarker(String column, ChangeMarkerType type) {
  public static final String COLUMN_DEFAULT = "updated_at";

  public ChangeMarker {
    column = Checks.identifier("column", column == null ? COLUMN_DEFAULT : column);
    type = type == null ? ChangeMarkerType.TIMESTAMP : type;
  }

  public static ChangeMarker timestamp(String column) {
    return new ChangeMarker(column, ChangeMarkerType.TIMESTAMP);
  }
}
