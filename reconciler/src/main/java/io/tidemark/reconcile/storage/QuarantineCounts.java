package io.tidemark.reconcile.storage;

import io.tidemark.reconcile.kernel.EngineException;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;

/**
 * The rows of a dataset's quarantine table by reason code, read through Iceberg (only the {@value
 * #REASON} column).
 *
 * @param table the quarantine table
 * @param exists false before the ingest job quarantined anything (the table is created then)
 * @param byReason rows still quarantined per reason code, in code order
 * @param total every row still quarantined
 * @param replayed rows a quarantine replay merged (kept in the table for audit, not counted above)
 */
public record QuarantineCounts(
    String table, boolean exists, Map<String, Long> byReason, long total, long replayed) {
  /** The quarantine table's reason-code column, as the ingest job writes it. */
  public static final String REASON = "reason";

  /**
   * Set on a row that {@code --mode replay-quarantine} merged; absent in tables written before
   * replays existed.
   */
  public static final String REPLAYED_AT = "replayed_at";

  public QuarantineCounts {
    Objects.requireNonNull(table, "table is null");
    byReason = java.util.Collections.unmodifiableMap(new TreeMap<>(byReason));
  }

  /** Counts the table's rows by reason; an absent table counts nothing. */
  public static QuarantineCounts read(Catalog catalog, String table) {
    TableIdentifier id = TableIdentifier.parse(table);
    if (!catalog.tableExists(id)) {
      return new QuarantineCounts(table, false, Map.of(), 0, 0);
    }
    Table t = catalog.loadTable(id);
    if (t.schema().findField(REASON) == null) {
      throw new EngineException(
          "Cannot count quarantined rows of " + table + ": it has no column '" + REASON + "'");
    }
    boolean replays = t.schema().findField(REPLAYED_AT) != null;
    Map<String, Long> counts = new TreeMap<>();
    long total = 0;
    long replayed = 0;
    try (CloseableIterable<Record> rows =
        IcebergGenerics.read(t)
            .select(replays ? java.util.List.of(REASON, REPLAYED_AT) : java.util.List.of(REASON))
            .build()) {
      for (Record r : rows) {
        if (replays && r.getField(REPLAYED_AT) != null) {
          replayed++;
          continue;
        }
        Object reason = r.getField(REASON);
        counts.merge(reason == null ? "UNKNOWN" : reason.toString(), 1L, Long::sum);
        total++;
      }
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(
          "Cannot count quarantined rows of " + table + ": " + e.getMessage(), e);
    }
    return new QuarantineCounts(table, true, counts, total, replayed);
  }
}
