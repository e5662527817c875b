package io.tidemark.ingest.commit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.ManifestReader;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.RowDelta;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.TableUtil;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.deletes.PositionDelete;
import org.apache.iceberg.deletes.PositionDeleteWriter;
import org.apache.iceberg.exceptions.CommitStateUnknownException;
import org.apache.iceberg.io.OutputFileFactory;

/**
 * Deletes rows of a curated snapshot by their data file and position, in one commit of Iceberg's
 * row delta: what a MERGE's delete and update do to the rows they match, without the MERGE's second
 * read of the table (the batch's plan already found each matched row's file and position). One
 * position-delete file per partition, written on the driver, so the rows are few (see {@link
 * CuratedCommit#ROW_DELTA_MAX_ROWS}).
 */
final class PositionDeletes {
  /** A row of a data file. */
  record Position(String file, long pos) {}

  private PositionDeletes() {}

  /**
   * Whether {@code table} takes position-delete files: format v2 (v3 wants deletion vectors; v1 has
   * no deletes).
   */
  static boolean apply(Table table) {
    return TableUtil.formatVersion(table) == 2;
  }

  /**
   * Writes the delete files and commits them to {@code branch} as one row delta carrying {@code
   * properties}. The commit fails when a named data file was removed since {@code base} (a
   * compaction, say), so that no delete is lost on a rewritten file.
   *
   * @param base the snapshot the positions were read from
   */
  static void commit(
      Table table,
      String branch,
      long base,
      List<Position> positions,
      Map<String, String> properties) {
    Set<String> paths = new HashSet<>();
    positions.forEach(p -> paths.add(p.file()));
    Map<String, DataFile> files = dataFiles(table, base, paths);
    Map<String, List<Position>> byPartition = new LinkedHashMap<>();
    Map<String, DataFile> partitionOf = new HashMap<>();
    for (Position p : positions) {
      DataFile f = files.get(p.file());
      if (f == null) {
        throw new IllegalStateException(
            "Data file "
                + p.file()
                + " of row "
                + p.pos()
                + " is not in snapshot "
                + base
                + " of "
                + table.name());
      }
      PartitionSpec spec = table.specs().get(f.specId());
      String group = f.specId() + "/" + spec.partitionToPath(f.partition());
      byPartition.computeIfAbsent(group, g -> new ArrayList<>()).add(p);
      partitionOf.putIfAbsent(group, f);
    }
    FileFormat format =
        FileFormat.fromString(
            table
                .properties()
                .getOrDefault(
                    TableProperties.DELETE_DEFAULT_FILE_FORMAT,
                    table
                        .properties()
                        .getOrDefault(
                            TableProperties.DEFAULT_FILE_FORMAT,
                            TableProperties.DEFAULT_FILE_FORMAT_DEFAULT)));
    OutputFileFactory outputs =
        OutputFileFactory.builderFor(table, 0, 0)
            .format(format)
            // Never a name a crashed attempt of the same batch may have left behind.
            .operationId(UUID.randomUUID().toString())
            .suffix("deletes")
            .build();
    GenericFileWriterFactory writers =
        new GenericFileWriterFactory.Builder(table).deleteFileFormat(format).build();
    List<DeleteFile> written = new ArrayList<>();
    try {
      for (Map.Entry<String, List<Position>> e : byPartition.entrySet()) {
        DataFile f = partitionOf.get(e.getKey());
        PartitionSpec spec = table.specs().get(f.specId());
        // Sorted by file and position, as the table spec asks of a position-delete file.
        List<Position> rows = new ArrayList<>(e.getValue());
        rows.sort(Comparator.comparing(Position::file).thenComparingLong(Position::pos));
        PositionDeleteWriter<Record> writer =
            writers.newPositionDeleteWriter(
                outputs.newOutputFile(spec, f.partition()), spec, f.partition());
        try (writer) {
          PositionDelete<Record> delete = PositionDelete.create();
          for (Position p : rows) {
            writer.write(delete.set(p.file(), p.pos()));
          }
        }
        written.add(writer.toDeleteFile());
      }
      RowDelta delta =
          table
              .newRowDelta()
              .toBranch(branch)
              .validateFromSnapshot(base)
              .validateDataFilesExist(paths)
              .validateDeletedFiles();
      written.forEach(delta::addDeletes);
      properties.forEach(delta::set);
      delta.commit();
    } catch (IOException e) {
      removeQuietly(table, written);
      throw new UncheckedIOException(e);
    } catch (CommitStateUnknownException e) {
      throw e; // the files may be committed: never removed then
    } catch (RuntimeException e) {
      removeQuietly(table, written);
      throw e;
    }
  }

  /** The live data files of a snapshot that have one of {@code paths}. */
  private static Map<String, DataFile> dataFiles(Table table, long snapshotId, Set<String> paths) {
    Snapshot snapshot = table.snapshot(snapshotId);
    Map<String, DataFile> found = new HashMap<>();
    for (ManifestFile manifest : snapshot.dataManifests(table.io())) {
      try (ManifestReader<DataFile> reader =
          ManifestFiles.read(manifest, table.io(), table.specs())) {
        for (DataFile f : reader) {
          if (paths.contains(f.location())) {
            found.put(f.location(), f.copyWithoutStats());
          }
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      if (found.size() == paths.size()) {
        break;
      }
    }
    return found;
  }

  private static void removeQuietly(Table table, List<DeleteFile> written) {
    for (DeleteFile f : written) {
      try {
        table.io().deleteFile(f.location());
      } catch (RuntimeException ignored) {
        // An orphan file; maintain mode removes those.
      }
    }
  }
}
