package io.tidemark.reconcile.storage;

import io.tidemark.model.config.CatalogSpec;
import io.tidemark.model.contract.IngestCommit;
import io.tidemark.reconcile.kernel.EngineException;
import java.io.Closeable;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotRef;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableOperations;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.util.SnapshotUtil;

/**
 * Reaches the curated table through the Iceberg Java API, the way the ingest job's catalog sees it,
 * and lists what a reader must read: the live data files of the current snapshot and the
 * position-delete files that apply to them.
 */
public final class IcebergTables {
  private IcebergTables() {}

  /**
   * The live files of the current snapshot.
   *
   * @param dataFiles data file locations as the table records them
   * @param positionDeletes position-delete file locations that apply to them
   * @param bytes the size of all of them
   * @param snapshotId the snapshot read; null for a table without one
   */
  public record LiveFiles(
      List<String> dataFiles, List<String> positionDeletes, long bytes, Long snapshotId) {
    public LiveFiles {
      dataFiles = List.copyOf(dataFiles);
      positionDeletes = List.copyOf(positionDeletes);
    }
  }

  /** Builds the catalog a spec describes; close it after use. */
  public static Catalog catalog(CatalogSpec spec) {
    String uri = spec.properties().getOrDefault("uri", "");
    if (uri.startsWith("jdbc:sqlite:")) {
      // DriverManager only hands out drivers registered from the caller's class loader; under
      // Quarkus (dev mode, tests) that is not the loader that first registered the driver.
      loadDriver("org.sqlite.JDBC");
    }
    return CatalogUtil.buildIcebergCatalog(spec.name(), spec.properties(), new Configuration());
  }

  /** Registers a JDBC driver from this class's loader (see {@link #catalog}). */
  public static void loadDriver(String className) {
    try {
      Class.forName(className, true, IcebergTables.class.getClassLoader());
    } catch (ClassNotFoundException e) {
      throw new EngineException(
          "Cannot load JDBC driver " + className + ": not on the class path", e);
    }
  }

  public static Table load(Catalog catalog, String qualifiedName) {
    try {
      return catalog.loadTable(TableIdentifier.parse(qualifiedName));
    } catch (NoSuchTableException e) {
      throw new EngineException(
          "Cannot load curated table "
              + qualifiedName
              + ": it does not exist in catalog "
              + catalog.name(),
          e);
    }
  }

  /**
   * Lists the live files of the table's current snapshot.
   *
   * @throws EngineException when a task carries equality deletes or deletion vectors, which the
   *     embedded engine does not apply
   */
  public static LiveFiles liveFiles(Table table) {
    return liveFiles(table, null);
  }

  /**
   * Lists the live files of one snapshot of the table.
   *
   * @param snapshotId the snapshot to read; null for the current one
   * @throws EngineException when the snapshot is gone, or a task carries equality deletes or
   *     deletion vectors, which the embedded engine does not apply
   */
  public static LiveFiles liveFiles(Table table, Long snapshotId) {
    Snapshot snapshot = snapshot(table, snapshotId);
    if (snapshot == null) {
      return new LiveFiles(List.of(), List.of(), 0, null);
    }
    List<String> data = new ArrayList<>();
    Map<String, Long> deletes = new LinkedHashMap<>();
    long bytes = 0;
    try (CloseableIterable<FileScanTask> tasks =
        table.newScan().useSnapshot(snapshot.snapshotId()).planFiles()) {
      for (FileScanTask task : tasks) {
        if (task.file().format() != FileFormat.PARQUET) {
          throw new EngineException(
              "Cannot read data file "
                  + task.file().location()
                  + ": format "
                  + task.file().format()
                  + " (the embedded engine reads Parquet)");
        }
        data.add(task.file().location());
        bytes += task.file().fileSizeInBytes();
        for (DeleteFile d : task.deletes()) {
          if (d.content() != FileContent.POSITION_DELETES || d.format() != FileFormat.PARQUET) {
            throw new EngineException(
                "Cannot apply delete file "
                    + d.location()
                    + " ("
                    + d.content()
                    + ", "
                    + d.format()
                    + "): the embedded engine applies Parquet position deletes only");
          }
          deletes.putIfAbsent(d.location(), d.fileSizeInBytes());
        }
      }
    } catch (IOException e) {
      throw new EngineException("Cannot plan a scan of " + table.name() + ": " + e.getMessage(), e);
    }
    bytes += deletes.values().stream().mapToLong(Long::longValue).sum();
    return new LiveFiles(data, new ArrayList<>(deletes.keySet()), bytes, snapshot.snapshotId());
  }

  /**
   * The snapshot a reader pins: the given one, else the current one.
   *
   * @param snapshotId the snapshot; null for the current one
   * @return null when the table has no snapshot (and none was asked for)
   * @throws EngineException when the snapshot asked for is no longer in the table's metadata
   */
  public static Snapshot snapshot(Table table, Long snapshotId) {
    if (snapshotId == null) {
      return table.currentSnapshot();
    }
    Snapshot s = table.snapshot(snapshotId);
    if (s == null) {
      throw new EngineException(
          "Cannot read snapshot "
              + snapshotId
              + " of "
              + table.name()
              + ": it is no longer in the table's metadata (expired while it was being read)");
    }
    return s;
  }

  /**
   * Points a tag at a snapshot, creating it or moving it forward; expiry keeps a tagged snapshot,
   * so a reader who pins the tag always finds its files. A tag is never moved back to an ancestor
   * of the snapshot it is on while that one is still on main's history: two reconcilers (or a run
   * that pinned early and finished late) would otherwise hand readers older proven data than they
   * had. After a rollback past the tagged snapshot, it moves.
   *
   * @return whether the tag now points at {@code snapshotId}
   * @throws EngineException when the name is a branch, not a tag; when the snapshot is not in the
   *     table; when the table changed under each of a few attempts to commit the move
   */
  public static boolean tag(Table table, String name, long snapshotId) {
    // The check and the move are made on the same metadata and committed only if no one changed
    // the table in between (the catalog's compare-and-swap); else both are made again. A check on
    // the metadata this table was loaded with would let a reconciler with a stale view move the
    // tag back past another's newer one.
    TableOperations ops = ((HasTableOperations) table).operations();
    for (int attempt = 1; ; attempt++) {
      TableMetadata base = ops.refresh();
      SnapshotRef ref = base.ref(name);
      if (ref != null && !ref.isTag()) {
        throw new EngineException(
            "Cannot move tag " + name + " of " + table.name() + ": it is a branch");
      }
      if (ref != null && ref.snapshotId() == snapshotId) {
        return true;
      }
      if (ref != null && newerOnMain(base, ref.snapshotId(), snapshotId)) {
        return false;
      }
      if (base.snapshot(snapshotId) == null) {
        throw new EngineException(
            "Cannot tag snapshot "
                + snapshotId
                + " of "
                + table.name()
                + ": it is not in the table");
      }
      SnapshotRef moved =
          ref == null
              ? SnapshotRef.tagBuilder(snapshotId).build()
              : SnapshotRef.builderFrom(ref, snapshotId).build();
      try {
        ops.commit(base, TableMetadata.buildFrom(base).setRef(name, moved).build());
        table.refresh();
        return true;
      } catch (CommitFailedException e) {
        if (attempt >= TAG_ATTEMPTS) {
          throw new EngineException(
              "Cannot move tag "
                  + name
                  + " of "
                  + table.name()
                  + ": the table changed under each of "
                  + TAG_ATTEMPTS
                  + " attempts",
              e);
        }
      }
    }
  }

  private static final int TAG_ATTEMPTS = 5;

  /** Whether {@code tagged} is on main's history and {@code candidate} is one of its ancestors. */
  private static boolean newerOnMain(TableMetadata m, long tagged, long candidate) {
    Snapshot main = m.currentSnapshot();
    return main != null
        && SnapshotUtil.isAncestorOf(main.snapshotId(), tagged, m::snapshot)
        && SnapshotUtil.isAncestorOf(tagged, candidate, m::snapshot);
  }

  /** The snapshot a tag points at; empty when the table has no such tag. */
  public static java.util.Optional<Long> tagged(Table table, String name) {
    SnapshotRef ref = table.refs().get(name);
    return ref == null || !ref.isTag()
        ? java.util.Optional.empty()
        : java.util.Optional.of(ref.snapshotId());
  }

  /**
   * The commits on a table's main history, oldest first: the ingest job's, and those no Tidemark
   * run made.
   *
   * @param commits the snapshots whose summary carries the job's run and batch ids
   * @param retainedSince when older snapshots were expired, the time of the oldest one still in the
   *     history (nothing before it can be checked); null when the history is complete
   * @param foreign the snapshots that changed files without the job's run id, compactions aside
   */
  public record CommitHistory(
      List<IngestCommit> commits, Instant retainedSince, List<ForeignCommit> foreign) {
    public CommitHistory {
      commits = List.copyOf(commits);
      foreign = List.copyOf(foreign);
    }

    /** A table without a snapshot: no commit at all. */
    public static CommitHistory empty() {
      return new CommitHistory(List.of(), null, List.of());
    }
  }

  /**
   * A commit on main that no Tidemark run made: its snapshot's summary has no {@code
   * tidemark.run-id}, it added or removed files, and it is not a compaction ({@code replace}).
   *
   * @param operation Iceberg's operation: {@code append}, {@code overwrite}, {@code delete}
   * @param writer who made it, as far as the summary says: {@code spark 4.1.0 (app local-1733…)},
   *     {@code trino (query 2026…)}; {@code an unnamed writer} when it says nothing
   * @param addedRows rows added, from the summary ({@code added-records}); -1 when not recorded
   * @param removedRows rows removed: deleted records plus the position and equality deletes added,
   *     net of those dropped; -1 when not recorded
   */
  public record ForeignCommit(
      long snapshotId,
      Instant at,
      String operation,
      String writer,
      long addedRows,
      long removedRows) {
    /** {@code snapshot 123 at 2026-…Z: overwrite by spark 4.1.0 (…), 1 row(s) added, 1 removed}. */
    @Override
    public String toString() {
      return "snapshot "
          + snapshotId
          + " at "
          + at
          + ": "
          + operation
          + " by "
          + writer
          + (addedRows > 0 ? ", " + addedRows + " row(s) added" : "")
          + (removedRows > 0 ? ", " + removedRows + " removed" : "");
    }
  }

  /** The summary keys that count files a snapshot added or removed. */
  private static final List<String> FILE_CHANGES =
      List.of(
          "added-data-files", "deleted-data-files", "added-delete-files", "removed-delete-files");

  /**
   * Reads the commits from the table's main history (current snapshot's ancestry): the ingest
   * job's, and the foreign ones.
   */
  public static CommitHistory ingestCommits(Table table) {
    Snapshot current = table.currentSnapshot();
    if (current == null) {
      return CommitHistory.empty();
    }
    List<IngestCommit> commits = new ArrayList<>();
    List<ForeignCommit> foreign = new ArrayList<>();
    Instant oldest = null;
    for (Snapshot s : SnapshotUtil.ancestorsOf(current.snapshotId(), table::snapshot)) {
      Instant at = Instant.ofEpochMilli(s.timestampMillis());
      // The first snapshot has no parent; a parent that is gone was expired.
      oldest = s.parentId() == null ? null : at;
      Map<String, String> summary = s.summary() == null ? Map.of() : s.summary();
      String batch = summary.get(IngestCommit.BATCH_ID_PROPERTY);
      if (batch != null) {
        commits.add(
            new IngestCommit(s.snapshotId(), at, summary.get(IngestCommit.RUN_ID_PROPERTY), batch));
      }
      if (isForeign(s.operation(), summary)) {
        foreign.add(
            new ForeignCommit(
                s.snapshotId(),
                at,
                s.operation() == null ? "an unnamed operation" : s.operation(),
                writer(summary),
                count(summary, "added-records"),
                removed(summary)));
      }
    }
    java.util.Collections.reverse(commits);
    java.util.Collections.reverse(foreign);
    return new CommitHistory(commits, oldest, foreign);
  }

  /**
   * The commit that added a data file: the last change of every row the file holds (an update
   * writes the new row to a new file; a delete removes the row).
   *
   * @param snapshotId the snapshot that added the file
   * @param runId the Tidemark run that made it; null for a commit by anything else
   * @param operation the snapshot's operation
   * @param writer what made it, from its summary (engine, app), as {@link ForeignCommit} names it
   */
  public record FileCommit(long snapshotId, String runId, String operation, String writer) {}

  /**
   * The commits that added the given data files of a snapshot, by file location: each live file's
   * sequence number names the snapshot of the same sequence number in the snapshot's ancestry. A
   * file whose snapshot has expired, or of a table without sequence numbers (format 1), is left
   * out.
   *
   * @param snapshotId the snapshot whose files to look at; null for the current one
   */
  public static Map<String, FileCommit> addedBy(
      Table table, Long snapshotId, java.util.Set<String> locations) {
    Snapshot snapshot = snapshot(table, snapshotId);
    Map<String, FileCommit> out = new LinkedHashMap<>();
    if (snapshot == null || locations.isEmpty()) {
      return out;
    }
    Map<Long, Snapshot> bySequence = new java.util.HashMap<>();
    for (Snapshot s : SnapshotUtil.ancestorsOf(snapshot.snapshotId(), table::snapshot)) {
      bySequence.put(s.sequenceNumber(), s);
    }
    try (CloseableIterable<FileScanTask> tasks =
        table.newScan().useSnapshot(snapshot.snapshotId()).planFiles()) {
      for (FileScanTask task : tasks) {
        String location = task.file().location();
        Long sequence = task.file().fileSequenceNumber();
        Snapshot s = sequence == null || sequence == 0 ? null : bySequence.get(sequence);
        if (s != null && locations.contains(location)) {
          Map<String, String> summary = s.summary() == null ? Map.of() : s.summary();
          out.put(
              location,
              new FileCommit(
                  s.snapshotId(),
                  summary.get(IngestCommit.RUN_ID_PROPERTY),
                  s.operation(),
                  writer(summary)));
        }
      }
    } catch (IOException e) {
      throw new EngineException("Cannot list the data files of " + table.name(), e);
    }
    return out;
  }

  /**
   * Whether a snapshot is a commit no Tidemark run made that may have changed rows. Iceberg leaves
   * a count of zero out of the summary, so a summary with Iceberg's totals and no added or removed
   * file changed no file; one without the totals cannot be shown harmless and is counted.
   */
  static boolean isForeign(String operation, Map<String, String> summary) {
    if (summary.containsKey(IngestCommit.RUN_ID_PROPERTY)
        || org.apache.iceberg.DataOperations.REPLACE.equals(operation)) {
      return false;
    }
    boolean said = summary.containsKey("total-data-files");
    for (String key : FILE_CHANGES) {
      long n = count(summary, key);
      if (n > 0) {
        return true;
      }
      said |= n == 0;
    }
    return !said;
  }

  /** Who wrote a snapshot, from what engines put in its summary. */
  static String writer(Map<String, String> summary) {
    String engine = summary.get("engine-name");
    if (engine != null) {
      String version = summary.get("engine-version");
      String name = summary.get("app-name");
      String app = summary.get("app-id");
      return engine
          + (version == null ? "" : " " + version)
          + (name == null ? "" : ", app " + name)
          + (app == null ? "" : " (" + app + ")");
    }
    String trinoQuery = summary.get("trino_query_id");
    if (trinoQuery != null) {
      String user = summary.get("trino_user");
      return "trino (query " + trinoQuery + (user == null ? "" : ", user " + user) + ")";
    }
    return "an unnamed writer";
  }

  /**
   * Rows a snapshot removed: records in data files it removed, plus the position and equality
   * deletes it added net of those it dropped (a merge-on-read writer rewrites the delete files it
   * touches, so a 3-row DELETE may add 14,086 position deletes and drop 14,083).
   */
  static long removed(Map<String, String> summary) {
    long deleted = count(summary, "deleted-records");
    long positions =
        count(summary, "added-position-deletes")
            - Math.max(0, count(summary, "removed-position-deletes"));
    long equality =
        count(summary, "added-equality-deletes")
            - Math.max(0, count(summary, "removed-equality-deletes"));
    if (deleted < 0
        && !summary.containsKey("added-position-deletes")
        && !summary.containsKey("added-equality-deletes")) {
      return summary.containsKey("total-records") ? 0 : -1;
    }
    return Math.max(deleted, 0) + Math.max(positions, 0) + Math.max(equality, 0);
  }

  /** A summary count; -1 when absent or not a number. */
  private static long count(Map<String, String> summary, String key) {
    String v = summary.get(key);
    if (v == null) {
      return -1;
    }
    try {
      return Long.parseLong(v.trim());
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  /** A table's column types as the contract names them (Spark SQL's simpleString names). */
  public static Map<String, String> contractTypes(Table table) {
    return contractTypes(table, null);
  }

  /**
   * A snapshot's column types as the contract names them: those of the schema it was written with.
   *
   * @param snapshotId the snapshot; null for the table's current schema
   */
  public static Map<String, String> contractTypes(Table table, Long snapshotId) {
    org.apache.iceberg.Schema schema = table.schema();
    if (snapshotId != null) {
      Integer schemaId = snapshot(table, snapshotId).schemaId();
      if (schemaId != null && table.schemas().containsKey(schemaId)) {
        schema = table.schemas().get(schemaId);
      }
    }
    Map<String, String> out = new LinkedHashMap<>();
    for (org.apache.iceberg.types.Types.NestedField f : schema.columns()) {
      out.put(f.name(), contractType(f.type()));
    }
    return out;
  }

  static String contractType(org.apache.iceberg.types.Type type) {
    return switch (type.typeId()) {
      case STRING -> "string";
      case INTEGER -> "int";
      case LONG -> "bigint";
      case FLOAT -> "float";
      case DOUBLE -> "double";
      case BOOLEAN -> "boolean";
      case DATE -> "date";
      case BINARY -> "binary";
      case DECIMAL -> {
        org.apache.iceberg.types.Types.DecimalType d =
            (org.apache.iceberg.types.Types.DecimalType) type;
        yield "decimal(" + d.precision() + "," + d.scale() + ")";
      }
      case TIMESTAMP ->
          ((org.apache.iceberg.types.Types.TimestampType) type).shouldAdjustToUTC()
              ? "timestamp"
              : "timestamp_ntz";
      default -> type.toString();
    };
  }

  /** Closes a catalog if it holds resources (the JDBC catalog holds a connection pool). */
  public static void close(Catalog catalog) {
    if (catalog instanceof Closeable c) {
      try {
        c.close();
      } catch (IOException e) {
        // Nothing was written through it: a failed close loses nothing.
      }
    }
  }
}
