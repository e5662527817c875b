package io.tidemark.model.config;

import io.tidemark.model.json.Checks;
import io.tidemark.model.json.InvalidDocumentException;
import java.util.ArrayList;
import java.util.List;

/**
 * One dataset's data contract, shared by the ingest job and the reconciler.
 *
 * @param name the dataset name (a CloudWatch dimension value and path segment), e.g. {@code
 *     customers}
 * @param pipeline the pipeline name, default {@code default}
 * @param keyColumns the business key, one or more columns
 * @param changeMarker the column ordering versions of a key
 * @param operationColumn the column holding {@code U} (upsert) or {@code D} (delete); null when the
 *     source only upserts
 * @param comparedColumns payload columns whose values the reconciler compares
 * @param raw where the raw files are
 * @param curatedTable the curated Iceberg table, {@code namespace.table}
 * @param quarantineTable the quarantine Iceberg table, default {@code <curatedTable>_quarantine}
 */
public record DatasetSpec(
    String name,
    String pipeline,
    List<String> keyColumns,
    ChangeMarker changeMarker,
    String operationColumn,
    List<String> comparedColumns,
    RawSource raw,
    String curatedTable,
    String quarantineTable) {

  public static final String PIPELINE_DEFAULT = "default";
  public static final String OPERATION_UPSERT = "U";
  public static final String OPERATION_DELETE = "D";

  public DatasetSpec {
    Checks.name("name", name);
    pipeline = Checks.name("pipeline", pipeline == null ? PIPELINE_DEFAULT : pipeline);
    keyColumns = Checks.identifiers("keyColumns", keyColumns, true);
    Checks.required("changeMarker", changeMarker);
    if (operationColumn != null) {
      Checks.identifier("operationColumn", operationColumn);
    }
    comparedColumns = Checks.identifiers("comparedColumns", comparedColumns, false);
    Checks.required("raw", raw);
    Checks.qualifiedIdentifier("curatedTable", curatedTable);
    quarantineTable =
        Checks.qualifiedIdentifier(
            "quarantineTable",
            quarantineTable == null ? curatedTable + "_quarantine" : quarantineTable);

    List<String> system = new ArrayList<>(keyColumns);
    system.add(changeMarker.column());
    if (operationColumn != null) {
      system.add(operationColumn);
    }
    if (system.stream().distinct().count() != system.size()) {
      throw new InvalidDocumentException(
          "changeMarker.column",
          changeMarker.column(),
          "must differ from key and operation columns");
    }
    for (int i = 0; i < comparedColumns.size(); i++) {
      if (system.contains(comparedColumns.get(i))) {
        throw new InvalidDocumentException(
            "comparedColumns[" + i + "]",
            comparedColumns.get(i),
            "is a key, change-marker or operation column; compare payload columns only");
      }
    }
  }

  /** Key, change marker, optional operation, then compared columns: the contract's columns. */
  public List<String> contractColumns() {
    List<String> all = new ArrayList<>(keyColumns);
    all.add(changeMarker.column());
    if (operationColumn != null) {
      all.add(operationColumn);
    }
    all.addAll(comparedColumns);
    return List.copyOf(all);
  }

  /**
   * The same contract writing another curated table; its quarantine table follows the new name
   * ({@code <table>_quarantine}).
   */
  public DatasetSpec withCuratedTable(String table) {
    return new DatasetSpec(
        name,
        pipeline,
        keyColumns,
        changeMarker,
        operationColumn,
        comparedColumns,
        raw,
        table,
        null);
  }

  /** The same contract over raw files somewhere else. */
  public DatasetSpec withRaw(RawSource source) {
    return new DatasetSpec(
        name,
        pipeline,
        keyColumns,
        changeMarker,
        operationColumn,
        comparedColumns,
        source,
        curatedTable,
        quarantineTable);
  }
}
