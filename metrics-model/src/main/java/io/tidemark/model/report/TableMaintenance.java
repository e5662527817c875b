package io.tidemark.model.report;

import com.fasterxml.jackson.annotation.JsonSetter;
import com.fasterxml.jackson.annotation.Nulls;
import io.tidemark.model.json.Checks;
import io.tidemark.model.json.InvalidDocumentException;

/**
 * What a maintenance run ({@code --mode maintain}) did to one of the job's tables, and the state it
 * left: the figures that show a long-lived merge-on-read table staying bounded.
 *
 * @param table the table, as Spark names it
 * @param dataFilesRewritten data files compacted away (small ones, and those mostly deleted)
 * @param dataFilesAdded data files the compaction wrote
 * @param deleteFilesRemoved delete files that no longer apply after the rewrite, or were merged
 * @param deleteFilesAdded delete files the merge of small delete files wrote
 * @param snapshotsExpired snapshots expired (older than the retention, not tagged or a branch head)
 * @param orphanFilesRemoved files under the table's location that no snapshot referenced
 * @param rowsRemoved rows the table no longer needed: of the remembered deletes, a key's older
 *     deletes and the deletes of keys live again with a newer version; 0 for the other tables (and
 *     in reports written before it was counted)
 * @param dataFiles live data files afterwards
 * @param deleteFiles live delete files afterwards
 * @param snapshots snapshots the table keeps afterwards
 */
public record TableMaintenance(
    String table,
    long dataFilesRewritten,
    long dataFilesAdded,
    long deleteFilesRemoved,
    long deleteFilesAdded,
    long snapshotsExpired,
    long orphanFilesRemoved,
    // Absent from reports written before it was counted.
    @JsonSetter(nulls = Nulls.AS_EMPTY) long rowsRemoved,
    long dataFiles,
    long deleteFiles,
    long snapshots) {
  public TableMaintenance {
    Checks.required("table", table);
    long[] counts = {
      dataFilesRewritten,
      dataFilesAdded,
      deleteFilesRemoved,
      deleteFilesAdded,
      snapshotsExpired,
      orphanFilesRemoved,
      rowsRemoved,
      dataFiles,
      deleteFiles,
      snapshots
    };
    for (long n : counts) {
      if (n < 0) {
        throw new InvalidDocumentException(
            "maintenance." + table, n, "counts must not be negative");
      }
    }
  }

  /**
   * Whether the run changed the table: a file rewritten, a snapshot expired, an orphan or a row no
   * longer needed removed.
   */
  public boolean changedSomething() {
    return dataFilesRewritten
            + deleteFilesRemoved
            + deleteFilesAdded
            + snapshotsExpired
            + orphanFilesRemoved
            + rowsRemoved
        > 0;
  }

  /** {@code curated.customers: 12 data files rewritten into 1, ...}, for the run's summary. */
  public String describe() {
    return table
        + ": "
        + dataFilesRewritten
        + " data file(s) rewritten into "
        + dataFilesAdded
        + ", "
        + deleteFilesRemoved
        + " delete file(s) removed and "
        + deleteFilesAdded
        + " written, "
        + snapshotsExpired
        + " snapshot(s) expired, "
        + orphanFilesRemoved
        + " orphan file(s) removed"
        + (rowsRemoved > 0
            ? ", " + rowsRemoved + " remembered row(s) no longer needed removed"
            : "")
        + "; now "
        + dataFiles
        + " data file(s), "
        + deleteFiles
        + " delete file(s), "
        + snapshots
        + " snapshot(s)";
  }
}
