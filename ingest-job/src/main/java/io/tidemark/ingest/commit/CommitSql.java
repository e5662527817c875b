package io.tidemark.ingest.commit;

import static io.tidemark.ingest.kernel.SqlNames.quote;

import io.tidemark.ingest.config.IngestSettings;
import io.tidemark.ingest.kernel.Cols;
import io.tidemark.ingest.kernel.Operations;
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
   * instead of adding them twice.
   */
  String quarantineMerge(String view) {
    return "MERGE INTO "
        + settings.quarantineSparkName()
        + " t USING "
        + view
        + " s ON t.source_file = s.source_file AND t.row_number = s.row_number"
        // A replayed row keeps its audit trail when a backfill or sweep rejects it again.
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
