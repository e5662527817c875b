package io.tidemark.model.contract;

import io.tidemark.model.json.Checks;
import io.tidemark.model.json.InvalidDocumentException;
import java.util.ArrayList;
import java.util.List;

/**
 * Which values of a dataset's operation column mean what: e.g. AWS DMS's {@code I} and {@code U}
 * upsert, {@code D} deletes. Values are compared exactly (case matters). A row whose operation is
 * null, and every row of a file without the column (a DMS full load without {@code
 * IncludeOpForFullLoad}), is an upsert; any other value is {@link ReasonCode#UNKNOWN_OPERATION}.
 *
 * @param column the operation column
 * @param upsert the values that insert or update the key
 * @param delete the values that delete it
 */
public record OperationMapping(String column, List<String> upsert, List<String> delete) {
  public OperationMapping {
    Checks.identifier("column", column);
    upsert = values("upsert", upsert);
    delete = values("delete", delete);
    for (int i = 0; i < delete.size(); i++) {
      if (upsert.contains(delete.get(i))) {
        throw new InvalidDocumentException(
            "delete[" + i + "]", delete.get(i), "is also an upsert value");
      }
    }
  }

  private static List<String> values(String field, List<String> values) {
    if (values == null || values.isEmpty()) {
      throw new InvalidDocumentException(field, values, "must list at least one value");
    }
    List<String> out = new ArrayList<>();
    for (int i = 0; i < values.size(); i++) {
      String v = values.get(i);
      if (v == null || v.isEmpty() || v.length() > 64) {
        throw new InvalidDocumentException(
            field + "[" + i + "]", v, "must be 1 to 64 characters of text");
      }
      if (out.contains(v)) {
        throw new InvalidDocumentException(field + "[" + i + "]", v, "is listed twice");
      }
      out.add(v);
    }
    return List.copyOf(out);
  }

  /** What a row's value means, by the mapping. */
  public enum Meaning {
    UPSERT,
    DELETE,
    /** A value the mapping does not name: the row is quarantined. */
    UNKNOWN
  }

  /** What {@code value} means; null (and an absent column) upserts. */
  public Meaning meaning(String value) {
    if (value == null || upsert.contains(value)) {
      return Meaning.UPSERT;
    }
    return delete.contains(value) ? Meaning.DELETE : Meaning.UNKNOWN;
  }
}
