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
import org.apache.iceberg.StructLike;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.TableUtil;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.deletes.DeleteGranularity;
import org.apache.iceberg.deletes.PositionDelete;
import org.apache.iceberg.deletes.PositionDeleteWriter;
import org.apache.iceberg.exceptions.CommitStateUnknownException;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.types.Comparators;

/**
 * Deletes rows of a curated snapshot by their data file and position, in one commit of Iceberg's
 * row delta: what a MERGE's delete and update do to the rows they match, without the MERGE's second
 * read of the table (the batch's plan already found each matched row's file and position). One
 * position-delete file per data file (per partition when the table's {@code
 * write.delete.granularity} says so), written on the driver, so the rows are few (see {@link
 * io.tidemark.ingest.config.IngestSpark#POSITION_DELETES_MAX_ROWS}).
 */
final class PositionDeletes {
  /** A row of a data file. */
  record Position(String file, long pos) {}

  private PositionDeletes() {}

  /**
   * Whether {@code table} takes position-delete files for a batch's changes: format v2 (v3 wants
   * deletion vectors; v1 has no deletes) and merge-on-read for MERGE (a table set to copy-on-write
   * is rewritten by the MERGE, as its owner asked).
   */
  static boolean apply(Table table) {
    return TableUtil.formatVersion(table) == 2
        && "merge-on-read"
            .equalsIgnoreCase(
                table
                    .properties()
                    .getOrDefault(TableProperties.MERGE_MODE, TableProperties.MERGE_MODE_DEFAULT));
  }

  /**
   * Writes the delete files and commits them to {@code branch} as one row delta carrying {@code
   * properties}. The branch starts at {@code base} and only this run writes it; what keeps a delete
   * from landing on a data file another engine rewrote meanwhile (a compaction of main) is the
   * publish, which fast-forwards main only if main is still at {@code base}. The row delta's own
   * checks (the named files still exist on the branch since {@code base}) hold the same for the
   * branch.
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
    // One delete file per data file (Iceberg's default granularity), or per partition when the
    // table asks for that; a partition is told by its spec and values, never by its path text.
    boolean perPartition =
        DeleteGranularity.PARTITION
            .toString()
            .equalsIgnoreCase(table.properties().get(TableProperties.DELETE_GRANULARITY));
    Map<List<Object>, List<Position>> groups = new LinkedHashMap<>();
    Map<List<Object>, DataFile> groupFile = new HashMap<>();
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
      List<Object> group = perPartition ? partitionKey(f) : List.of(f.location());
      groups.computeIfAbsent(group, g -> new ArrayList<>()).add(p);
      groupFile.putIfAbsent(group, f);
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
      for (Map.Entry<List<Object>, List<Position>> e : groups.entrySet()) {
        DataFile f = groupFile.get(e.getKey());
        PartitionSpec spec = table.specs().get(f.specId());
        // Sorted by file and position, as the table spec asks of a position-delete file.
        List<Position> rows = new ArrayList<>(e.getValue());
        rows.sort(
            Comparator.comparing(Position::file, Comparators.charSequences())
                .thenComparingLong(Position::pos));
        PositionDeleteWriter<Record> writer =
            writers.newPositionDeleteWriter(
                spec.isUnpartitioned()
                    ? outputs.newOutputFile()
                    : outputs.newOutputFile(spec, f.partition()),
                spec,
                f.partition());
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

  /** A data file's spec and partition values (a null value and the text "null" stay apart). */
  private static List<Object> partitionKey(DataFile f) {
    List<Object> key = new ArrayList<>();
    key.add(f.specId());
    StructLike partition = f.partition();
    for (int i = 0; i < partition.size(); i++) {
      Object v = partition.get(i, Object.class);
      key.add(v instanceof CharSequence c ? c.toString() : v);
    }
    return key;
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
