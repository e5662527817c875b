package io.tidemark.ingest.cli;

import io.tidemark.model.config.ChangeMarkerType;
import io.tidemark.model.contract.ColumnType;
import io.tidemark.model.contract.DatasetContract;
import io.tidemark.model.contract.layout.Layout;
import io.tidemark.model.json.Checks;
import io.tidemark.model.json.InvalidDocumentException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A dataset from the command line: declared by its flags when there is no {@code --contract}, or a
 * contract's dataset with this run's overrides. Nothing defaults to a column name: without a
 * contract, {@code --dataset}, {@code --raw-root} (or {@code --raw-location}), {@code
 * --key-columns} and {@code --change-marker} must be given, and the error says so and points to
 * {@code --contract}.
 */
final class DatasetFlags {
  private static final String HINT =
      " (or declare the dataset in a contract file: --contract FILE)";

  private DatasetFlags() {}

  /** The dataset the flags declare. */
  static DatasetContract declared(IngestCommand o) {
    requireFlag("--dataset", o.dataset);
    if (o.rawLocation == null) {
      requireFlag("--raw-root", o.rawRoot);
    }
    requireFlag("--key-columns", o.keyColumns);
    requireFlag("--change-marker", o.changeMarker);
    String hive = o.partitionColumn == null ? "ingest_date" : o.partitionColumn;
    Layout layout =
        CommandSettings.option(
            "--partition-column", o.partitionColumn, () -> Layout.Dated.hive(hive, "yyyy-MM-dd"));
    List<String> keys =
        CommandSettings.option(
            "--key-columns",
            o.keyColumns,
            () -> Checks.identifiers("keyColumns", split(o.keyColumns), true));
    CommandSettings.option(
        "--change-marker", o.changeMarker, () -> Checks.identifier("column", o.changeMarker));
    if (o.operationColumn != null && !o.operationColumn.isBlank()) {
      CommandSettings.option(
          "--operation-column",
          o.operationColumn,
          () -> Checks.identifier("column", o.operationColumn));
    }
    Map<String, ColumnType> payload =
        CommandSettings.option(
            "--payload-columns",
            o.payloadColumns,
            () -> {
              Map<String, ColumnType> p = payload(o.payloadColumns);
              Checks.identifiers("payloadColumns", List.copyOf(p.keySet()), false);
              return p;
            });
    return CommandSettings.option(
        null,
        null,
        () -> {
          DatasetContract.Builder b = DatasetContract.builder(o.dataset);
          b.pipeline(o.pipeline);
          b.raw(rawLocation(o, o.dataset), layout);
          keys.forEach(k -> b.column(k, ColumnType.STRING));
          ChangeMarkerType type =
              o.changeMarkerType == null ? ChangeMarkerType.TIMESTAMP : o.changeMarkerType;
          b.column(
              o.changeMarker,
              type == ChangeMarkerType.TIMESTAMP ? ColumnType.TIMESTAMP : ColumnType.LONG);
          b.changeMarker(o.changeMarker, type);
          String op = o.operationColumn;
          if (op != null && !op.isBlank()) {
            b.column(op, ColumnType.STRING);
            b.operation(op, List.of("U"), List.of("D"));
          }
          payload.forEach(b::column);
          b.keyColumns(keys.toArray(String[]::new));
          b.comparedColumns(payload.keySet().toArray(String[]::new));
          b.curated(o.table == null ? "curated." + o.dataset : o.table);
          b.quarantineTable(o.quarantineTable);
          b.tombstoneTable(o.tombstoneTable);
          return b.build();
        });
  }

  /** A contract's dataset with the run's overrides of where it is and where it goes. */
  static DatasetContract overridden(IngestCommand o, DatasetContract d) {
    DatasetContract out = d;
    if (o.rawLocation != null || o.rawRoot != null) {
      out = out.withRawLocation(rawLocation(o, d.name()));
    }
    if (o.table != null) {
      out = out.withCuratedTable(o.table);
    }
    if (o.quarantineTable != null || o.tombstoneTable != null || o.pipeline != null) {
      DatasetContract.Builder b = out.toBuilder();
      if (o.quarantineTable != null) {
        b.quarantineTable(o.quarantineTable);
      }
      if (o.tombstoneTable != null) {
        b.tombstoneTable(o.tombstoneTable);
      }
      if (o.pipeline != null) {
        b.pipeline(o.pipeline);
      }
      out = b.build();
    }
    return out;
  }

  /** Refuses the flags that declare a dataset when a contract declares it. */
  static void refuseDeclarations(IngestCommand o) {
    Map<String, Object> given = new LinkedHashMap<>();
    given.put("--key-columns", o.keyColumns);
    given.put("--payload-columns", o.payloadColumns);
    given.put("--change-marker", o.changeMarker);
    given.put("--change-marker-type", o.changeMarkerType);
    given.put("--operation-column", o.operationColumn);
    given.put("--partition-column", o.partitionColumn);
    for (Map.Entry<String, Object> e : given.entrySet()) {
      if (e.getValue() != null) {
        throw new InvalidDocumentException(
            "Invalid value for option '"
                + e.getKey()
                + "': the contract "
                + o.contract
                + " declares the dataset's columns, key, change marker, operation and layout;"
                + " change them there, not for one run",
            e.getKey(),
            (Throwable) null);
      }
    }
  }

  private static String rawLocation(IngestCommand o, String dataset) {
    if (o.rawLocation != null) {
      return o.rawLocation;
    }
    String root =
        o.rawRoot.endsWith("/") ? o.rawRoot.substring(0, o.rawRoot.length() - 1) : o.rawRoot;
    return root + "/" + dataset;
  }

  private static void requireFlag(String option, String value) {
    if (value == null || value.isBlank()) {
      throw new InvalidDocumentException(
          "Missing required option '"
              + option
              + "' (or config key '"
              + option.substring(2)
              + "')"
              + HINT,
          option,
          (Throwable) null);
    }
  }

  /** {@code COL[:TYPE],…}, a column without a type being text; commas inside a type's (…) kept. */
  static Map<String, ColumnType> payload(String text) {
    Map<String, ColumnType> out = new LinkedHashMap<>();
    for (String item : split(text)) {
      int colon = item.indexOf(':');
      String name = colon < 0 ? item : item.substring(0, colon).trim();
      ColumnType type =
          colon < 0 ? ColumnType.STRING : ColumnType.parse(item.substring(colon + 1).trim());
      out.put(name, type);
    }
    return out;
  }

  /** Comma-separated items; a comma inside parentheses belongs to its item. */
  static List<String> split(String csv) {
    List<String> out = new ArrayList<>();
    if (csv == null || csv.isBlank()) {
      return out;
    }
    int depth = 0;
    StringBuilder cur = new StringBuilder();
    for (char c : csv.toCharArray()) {
      if (c == ',' && depth == 0) {
        out.add(cur.toString().trim());
        cur.setLength(0);
        continue;
      }
      depth += c == '(' ? 1 : c == ')' ? -1 : 0;
      cur.append(c);
    }
    out.add(cur.toString().trim());
    return out;
  }
}
