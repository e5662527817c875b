package io.tidemark.model.contract;

import io.tidemark.model.config.ChangeMarker;
import io.tidemark.model.config.ChangeMarkerType;
import io.tidemark.model.config.DatasetSpec;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * Which columns a raw file must have and which types they may take. Both halves check each file's
 * footer with {@link #check} before reading a row, so a file is either read by both or left out by
 * both, for the same reason.
 *
 * <ul>
 *   <li>Required: the key columns, the change marker and the compared columns. The operation column
 *       is optional: a file without it holds upserts only.
 *   <li>Names match exactly (case matters). Two columns whose names differ only in case make the
 *       file {@link ReasonCode#DUPLICATE_COLUMN}: engines that resolve names without case could
 *       read either.
 *   <li>Keys: text or integer (see {@link RawKeys}). Timestamp change marker: a timestamp, or text
 *       in ISO-8601. Sequence change marker: an integer, or text of one. Operation: text.
 *   <li>Compared columns keep the curated table's type ({@link #checkCompared}): a file whose
 *       {@code email} is {@code bigint} while the table's is {@code string} is {@link
 *       ReasonCode#INCOMPATIBLE_TYPE}. Types are named as Spark SQL's {@code simpleString} names
 *       them ({@code string}, {@code int}, {@code bigint}, {@code double}, {@code decimal(10,2)},
 *       {@code timestamp}, {@code timestamp_ntz}, {@code date}, {@code boolean}…); each engine maps
 *       its own type names to these. Before the table exists the job takes the types the batch's
 *       files agree on most.
 *   <li>Extra columns are allowed and ignored (schema drift, reported by the job).
 * </ul>
 */
public final class RawSchema {
  private RawSchema() {}

  /** How a column's physical type counts for the contract; engines map their own types to it. */
  public enum Kind {
    TEXT,
    INTEGER,
    TIMESTAMP,
    OTHER
  }

  /**
   * One column of a raw file as an engine sees it.
   *
   * @param name the name, as written in the file
   * @param kind its kind
   * @param typeName the engine's own type name, for messages
   */
  public record Column(String name, Kind kind, String typeName) {
    public Column {
      Objects.requireNonNull(name, "name is null");
      Objects.requireNonNull(kind, "kind is null");
      Objects.requireNonNull(typeName, "typeName is null");
    }
  }

  /**
   * Why a file cannot be read under the contract.
   *
   * @param reason a whole-file reason code
   * @param detail what is wrong, naming the columns and types
   */
  public record Problem(ReasonCode reason, String detail) {
    public Problem {
      Objects.requireNonNull(reason, "reason is null");
      Objects.requireNonNull(detail, "detail is null");
      if (!reason.wholeFile()) {
        throw new IllegalArgumentException(
            "Cannot report a file problem with record-level reason " + reason);
      }
    }
  }

  /** The columns every file must have: keys, change marker, compared columns. */
  public static List<String> requiredColumns(DatasetSpec spec) {
    List<String> out = new ArrayList<>(spec.keyColumns());
    out.add(spec.changeMarker().column());
    out.addAll(spec.comparedColumns());
    return List.copyOf(out);
  }

  /** Whether a file with these columns holds an operation column. */
  public static boolean hasOperation(DatasetSpec spec, List<Column> columns) {
    return spec.operationColumn() != null
        && columns.stream().anyMatch(c -> c.name().equals(spec.operationColumn()));
  }

  /** Why a file with these columns cannot be read, or null when it conforms. */
  public static Problem check(DatasetSpec spec, List<Column> columns) {
    Problem names = checkNames(requiredColumns(spec), columns);
    if (names != null) {
      return names;
    }
    Map<String, Column> byName = byName(columns);
    List<String> wrong = new ArrayList<>();
    expectKinds(spec.keyColumns(), spec.changeMarker(), spec.operationColumn(), byName, wrong);
    return wrong.isEmpty()
        ? null
        : new Problem(ReasonCode.INCOMPATIBLE_TYPE, String.join("; ", wrong));
  }

  /**
   * Why a file's compared columns cannot go into the curated table, or null when they can.
   *
   * @param fileTypes the file's column types, by name, as contract type names (see the class
   *     comment)
   * @param tableTypes the curated table's column types, by name, as contract type names; a column
   *     it lacks is not checked
   */
  public static Problem checkCompared(
      DatasetSpec spec, Map<String, String> fileTypes, Map<String, String> tableTypes) {
    List<String> wrong = new ArrayList<>();
    for (String c : spec.comparedColumns()) {
      String expected = tableTypes.get(c);
      String actual = fileTypes.get(c);
      if (expected != null && actual != null && !expected.equals(actual)) {
        wrong.add(c + " is " + actual + ", expected " + expected);
      }
    }
    return wrong.isEmpty()
        ? null
        : new Problem(ReasonCode.INCOMPATIBLE_TYPE, String.join("; ", wrong));
  }

  /**
   * Why a file with these columns cannot be read under a dataset contract, or null when it
   * conforms: a column missing or doubled by case, a key that is neither text nor an integer, a
   * change marker or operation of the wrong kind, or a declared column whose type does not fit the
   * declaration ({@link ColumnType#accepts}: {@code int} into {@code long}, a narrower decimal into
   * a wider one).
   *
   * @param columns the file's columns; {@link Column#typeName()} is the type's Spark SQL name
   */
  public static Problem check(DatasetContract contract, List<Column> columns) {
    Problem names = checkNames(contract.requiredColumns(), columns);
    if (names != null) {
      return names;
    }
    Map<String, Column> byName = byName(columns);
    List<String> wrong = new ArrayList<>();
    expectKinds(
        contract.keyColumns(), contract.changeMarker(), contract.operationColumn(), byName, wrong);
    for (String c : contract.payloadColumns()) {
      ColumnType declared = contract.columns().get(c);
      ColumnType actual = ColumnType.fromSqlName(byName.get(c).typeName());
      if (!declared.accepts(actual)) {
        wrong.add(c + " is " + byName.get(c).typeName() + ", declared " + declared);
      }
    }
    return wrong.isEmpty()
        ? null
        : new Problem(ReasonCode.INCOMPATIBLE_TYPE, String.join("; ", wrong));
  }

  /** The file's columns the contract does not declare, in file order: schema drift. */
  public static List<String> undeclaredColumns(DatasetContract contract, List<Column> columns) {
    return columns.stream()
        .map(Column::name)
        .filter(n -> !contract.columns().containsKey(n))
        .toList();
  }

  /** A column doubled by case, or a required column missing (with a hint at case slips). */
  private static Problem checkNames(List<String> required, List<Column> columns) {
    Map<String, String> byFoldedName = new HashMap<>();
    Map<String, Column> byName = new LinkedHashMap<>();
    for (Column c : columns) {
      String other = byFoldedName.putIfAbsent(c.name().toLowerCase(Locale.ROOT), c.name());
      if (other != null) {
        return new Problem(
            ReasonCode.DUPLICATE_COLUMN,
            "columns '" + other + "' and '" + c.name() + "' differ only in case");
      }
      byName.put(c.name(), c);
    }
    List<String> missing = new ArrayList<>();
    List<String> hints = new ArrayList<>();
    for (String r : required) {
      if (!byName.containsKey(r)) {
        missing.add(r);
        String near = byFoldedName.get(r.toLowerCase(Locale.ROOT));
        if (near != null) {
          hints.add("'" + near + "' is not '" + r + "'");
        }
      }
    }
    if (missing.isEmpty()) {
      return null;
    }
    return new Problem(
        ReasonCode.MISSING_COLUMN,
        "missing column(s) "
            + missing
            + (hints.isEmpty()
                ? ""
                : " (names are case-sensitive: " + String.join(", ", hints) + ")"));
  }

  private static Map<String, Column> byName(List<Column> columns) {
    Map<String, Column> byName = new LinkedHashMap<>();
    columns.forEach(c -> byName.put(c.name(), c));
    return byName;
  }

  /**
   * Adds to {@code wrong} the key columns that are neither text nor an integer, a change marker of
   * the wrong kind for its type, and an operation column (when the file has one) that is not text.
   */
  private static void expectKinds(
      List<String> keyColumns,
      ChangeMarker changeMarker,
      String operationColumn,
      Map<String, Column> byName,
      List<String> wrong) {
    for (String k : keyColumns) {
      expect(byName.get(k), wrong, "text or integer", Kind.TEXT, Kind.INTEGER);
    }
    Column marker = byName.get(changeMarker.column());
    if (changeMarker.type() == ChangeMarkerType.TIMESTAMP) {
      expect(marker, wrong, "timestamp or ISO-8601 text", Kind.TIMESTAMP, Kind.TEXT);
    } else {
      expect(marker, wrong, "integer or integer text", Kind.INTEGER, Kind.TEXT);
    }
    if (operationColumn != null && byName.containsKey(operationColumn)) {
      expect(byName.get(operationColumn), wrong, "text", Kind.TEXT);
    }
  }

  private static void expect(Column c, List<String> wrong, String expected, Kind... accepted) {
    for (Kind k : accepted) {
      if (c.kind() == k) {
        return;
      }
    }
    wrong.add(c.name() + " is " + c.typeName() + ", expected " + expected);
  }
}
