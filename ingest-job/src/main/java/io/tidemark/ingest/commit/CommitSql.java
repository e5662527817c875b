package io.tidemark.ingest.commit;

import static io.tidemark.ingest.kernel.SqlNames.quote;

import io.tidemark.ingest.config.IngestSettings;
import io.tidemark.ingest.kernel.Cols;
import io.tidemark.ingest.kernel.Operations;
import io.tidemark.ingest.kernel.SqlNames;
import io.tidemark.ingest.tables.OutputTables;
import io.tidemark.ingest.tables.TableSql;
import io.tidemark.model.contract.DatasetContract;
import java.util.Objects;
import java.util.stream.Collectors;

/**
 * The statements that write a batch: the curated MERGE and append, the remembered deletes, the
 * quarantine rows and their replay marks. Identifiers are quoted ({@link
 * io.tidemark.ingest.kernel.SqlNames}); table names are the configured Spark identifiers ({@code
 * catalog.namespace.table}).
 */
final class CommitSql {
  private final DatasetContract spec;
  private final IngestSettings settings;

  CommitSql(IngestSettings settings) {
    this.settings = Objects.requireNonNull(settings, "settings is null");
    this.spec = settings.dataset();
  }

  /**
   * The curated MERGE of a batch's updates and deletes, with the version guard: update only when
   * the incoming marker is newer, delete on D when not older. New keys are not merged but appended
   * ({@link #curatedInsert}): a MERGE that also inserts must outer-join its source to the whole
   * table, and so shuffle every row of it, where one that only matches can stream the table against
   * its source, broadcast.
   *
   * @param view a temp view with key and payload columns, {@link Cols#MARKER} and {@link Cols#OP}
   * @param target the Spark identifier written: the curated table or one of its branches
   */
  String curatedMerge(String view, String target) {
    String m = quote(spec.changeMarker().column());
    String sm = "s." + Cols.MARKER;
    String set =
        spec.payloadColumns().stream()
            .map(c -> "t." + quote(c) + " = s." + quote(c))
            .collect(Collectors.joining(", "));
    set = (set.isEmpty() ? "" : set + ", ") + "t." + m + " = " + sm;
    return "MERGE INTO "
        + target
        + " t USING "
        + view
        + " s ON "
        + keyCondition()
        + " WHEN MATCHED AND s."
        + Cols.OP
        + " = '"
        + Operations.DELETE
        + "' AND "
        + sm
        + " >= t."
        + m
        + " THEN DELETE"
        + " WHEN MATCHED AND s."
        + Cols.OP
        + " = '"
        + Operations.UPSERT
        + "' AND "
        + sm
        + " > t."
        + m
        + " THEN UPDATE SET "
        + set;
  }

  /**
   * Appends new keys' rows.
   *
   * @param view a temp view with the curated table's columns
   * @param target the Spark identifier written: the curated table or one of its branches
   */
  String curatedInsert(String view, String target) {
    String cols =
        TableSql.curatedColumns(spec).stream().map(c -> quote(c)).collect(Collectors.joining(", "));
    return "INSERT INTO " + target + " (" + cols + ") SELECT " + cols + " FROM " + view;
  }

  /**
   * Remembers deletes by appending them. The table may hold a key more than once (every remembered
   * delete of it, and a retried batch's again); its readers take the newest marker per key (see
   * {@link io.tidemark.ingest.merge.MergePlanner#plan}). An append reads nothing, where a MERGE
   * keeping one row per key read the whole table on every batch with a delete.
   *
   * @param view a temp view with the key columns, {@link Cols#MARKER} and {@code batch_id}
   */
  String tombstoneAppend(String view) {
    String m = quote(spec.changeMarker().column());
    String keys = spec.keyColumns().stream().map(k -> quote(k)).collect(Collectors.joining(", "));
    return "INSERT INTO "
        + settings.tombstoneSparkName()
        + " ("
        + keys
        + ", "
        + m
        + ", batch_id) SELECT "
        + keys
        + ", "
        + Cols.MARKER
        + ", batch_id FROM "
        + view;
  }

  /**
   * Quarantine rows keyed by (source file, row number): a retried batch replaces its own rows
   * instead of adding them twice, and a backfill or sweep that rejects a row again updates it.
   * Given the range of the batch's source files, the table's side is limited to it: Iceberg then
   * skips every quarantine file whose {@code source_file} bounds lie outside it, so a batch reads
   * the quarantine files of its own raw files (a retry's) and not the whole audit log. The range's
   * paths go in as literals ({@link SqlNames#stringLiteral}): Iceberg's MERGE does not bind
   * parameters.
   *
   * @param sourceFiles the batch's source files; null to read every quarantine file
   */
  String quarantineMerge(String view, CommitRequest.FileRange sourceFiles) {
    return "MERGE INTO "
        + settings.quarantineSparkName()
        + " t USING "
        + view
        + " s ON t.source_file = s.source_file AND t.row_number = s.row_number"
        + (sourceFiles == null
            ? ""
            : " AND t.source_file BETWEEN "
                + SqlNames.stringLiteral(sourceFiles.first())
                + " AND "
                + SqlNames.stringLiteral(sourceFiles.last()))
        + " WHEN MATCHED AND t."
        + OutputTables.REPLAYED_AT
        + " IS NULL THEN UPDATE SET *"
        + " WHEN NOT MATCHED THEN INSERT *";
  }

  /**
   * Marks quarantine rows as replayed, once: a row already marked keeps its first replay.
   *
   * @param view a temp view with {@code source_file}, {@code row_number}, {@code replayed_at} and
   *     {@code replay_batch_id}
   */
  String quarantineMarkReplayed(String view) {
    return "MERGE INTO "
        + settings.quarantineSparkName()
        + " t USING "
        + view
        + " s ON t.source_file = s.source_file AND t.row_number = s.row_number"
        + " WHEN MATCHED AND t.replayed_at IS NULL THEN UPDATE SET"
        + " t.replayed_at = s.replayed_at, t.replay_batch_id = s.replay_batch_id";
  }

  private String keyCondition() {
    return spec.keyColumns().stream()
        .map(k -> "t." + quote(k) + " = s." + quote(k))
        .collect(Collectors.joining(" AND "));
  }
}
