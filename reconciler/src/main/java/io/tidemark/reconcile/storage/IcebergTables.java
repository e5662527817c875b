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
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
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
    if (table.currentSnapshot() == null) {
      return new LiveFiles(List.of(), List.of(), 0, null);
    }
    List<String> data = new ArrayList<>();
    Map<String, Long> deletes = new LinkedHashMap<>();
    long bytes = 0;
    try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
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
    return new LiveFiles(
        data, new ArrayList<>(deletes.keySet()), bytes, table.currentSnapshot().snapshotId());
  }

  /**
   * The ingest job's commits on a table's main history, oldest first.
   *
   * @param commits the snapshots whose summary carries the job's run and batch ids
   * @param retainedSince when older snapshots were expired, the time of the oldest one still in the
   *     history (nothing before it can be checked); null when the history is complete
   */
  public record CommitHistory(List<IngestCommit> commits, Instant retainedSince) {
    public CommitHistory {
      commits = List.copyOf(commits);
    }
  }

  /** Reads the ingest job's commits from the table's main history (current snapshot's ancestry). */
  public static CommitHistory ingestCommits(Table table) {
    Snapshot current = table.currentSnapshot();
    if (current == null) {
      return new CommitHistory(List.of(), null);
    }
    List<IngestCommit> commits = new ArrayList<>();
    Instant oldest = null;
    for (Snapshot s : SnapshotUtil.ancestorsOf(current.snapshotId(), table::snapshot)) {
      Instant at = Instant.ofEpochMilli(s.timestampMillis());
      // The first snapshot has no parent; a parent that is gone was expired.
      oldest = s.parentId() == null ? null : at;
      Map<String, String> summary = s.summary();
      String batch = summary == null ? null : summary.get(IngestCommit.BATCH_ID_PROPERTY);
      if (batch != null) {
        commits.add(
            new IngestCommit(s.snapshotId(), at, summary.get(IngestCommit.RUN_ID_PROPERTY), batch));
      }
    }
    java.util.Collections.reverse(commits);
    return new CommitHistory(commits, oldest);
  }

  /** A table's column types as the contract names them (Spark SQL's simpleString names). */
  public static Map<String, String> contractTypes(Table table) {
    Map<String, String> out = new LinkedHashMap<>();
    for (org.apache.iceberg.types.Types.NestedField f : table.schema().columns()) {
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
