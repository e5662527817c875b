package io.tidemark.reconcile.storage;

import io.tidemark.model.config.DatasetSpec;
import io.tidemark.reconcile.kernel.EngineException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.SeekableInputStream;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.io.DelegatingSeekableInputStream;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType;
import org.apache.parquet.schema.Type;

/**
 * The physical type of each key column in the raw files, as a SQL table over them must declare it.
 * The contract lets a key be text or an integer (both compared as text), but the ingest job stores
 * keys as text in the curated table, so the curated table cannot tell a raw table's DDL that {@code
 * line_no} is an {@code int}: a Hive table declaring it {@code string} fails on every file (Athena
 * reads one type per column, by name). The types come from the footers of the newest raw files
 * instead (at most {@value #FILES_READ}: one small read each), which must agree.
 */
public final class RawKeyTypes {
  /** How many of the newest raw files' footers are read. */
  public static final int FILES_READ = 20;

  private RawKeyTypes() {}

  /**
   * The key columns' types (contract type names, lower-case column names) in the newest of {@code
   * files}; {@code string} for every key when there is no file yet.
   */
  public static Map<String, String> read(
      DatasetSpec spec, FileIO io, List<RawFiles.RawFile> files) {
    List<String> newest =
        files.stream()
            .sorted(
                Comparator.comparing(RawFiles.RawFile::arrived)
                    .thenComparing(RawFiles.RawFile::path)
                    .reversed())
            .limit(FILES_READ)
            .map(RawFiles.RawFile::path)
            .toList();
    Map<String, Map<String, String>> byFile = new TreeMap<>();
    for (String f : newest) {
      byFile.put(f, footerTypes(io, f));
    }
    return of(spec, byFile);
  }

  /**
   * The key columns' types given each file's column types; {@code string} for a key no file holds.
   *
   * @param byFile per file, its columns' contract type names by name as written
   */
  public static Map<String, String> of(DatasetSpec spec, Map<String, Map<String, String>> byFile) {
    Map<String, String> out = new LinkedHashMap<>();
    for (String k : spec.keyColumns()) {
      Map<String, List<String>> filesByType = new TreeMap<>();
      byFile.forEach(
          (file, types) -> {
            String t = types.get(k);
            if (t != null) {
              filesByType.computeIfAbsent(t, x -> new ArrayList<>()).add(file);
            }
          });
      if (filesByType.size() > 1) {
        throw new EngineException(
            "Cannot define the raw table of dataset "
                + spec.name()
                + ": key column '"
                + k
                + "' has more than one type in the newest raw files, and a table reads one type"
                + " per column ("
                + filesByType
                + ")");
      }
      out.put(
          k.toLowerCase(java.util.Locale.ROOT),
          filesByType.isEmpty() ? "string" : filesByType.keySet().iterator().next());
    }
    return out;
  }

  /** A Parquet file's top-level columns as contract type names, from its footer. */
  static Map<String, String> footerTypes(FileIO io, String location) {
    org.apache.iceberg.io.InputFile in = io.newInputFile(location);
    MessageType schema;
    try (ParquetFileReader r = ParquetFileReader.open(new ParquetInput(in))) {
      schema = r.getFooter().getFileMetaData().getSchema();
    } catch (IOException | RuntimeException e) {
      throw new EngineException(
          "Cannot read the footer of raw file " + location + ": " + e.getMessage(), e);
    }
    Map<String, String> out = new LinkedHashMap<>();
    for (Type t : schema.getFields()) {
      out.put(t.getName(), t.isPrimitive() ? contractType(t.asPrimitiveType()) : "struct");
    }
    return out;
  }

  /** A Parquet column's type as Spark's {@code simpleString} (the contract's names) calls it. */
  static String contractType(PrimitiveType p) {
    LogicalTypeAnnotation a = p.getLogicalTypeAnnotation();
    if (a instanceof LogicalTypeAnnotation.DecimalLogicalTypeAnnotation d) {
      return "decimal(" + d.getPrecision() + "," + d.getScale() + ")";
    }
    return switch (p.getPrimitiveTypeName()) {
      case BINARY, FIXED_LEN_BYTE_ARRAY ->
          a instanceof LogicalTypeAnnotation.StringLogicalTypeAnnotation
                  || a instanceof LogicalTypeAnnotation.EnumLogicalTypeAnnotation
                  || a instanceof LogicalTypeAnnotation.JsonLogicalTypeAnnotation
              ? "string"
              : "binary";
      case INT32 -> {
        if (a instanceof LogicalTypeAnnotation.DateLogicalTypeAnnotation) {
          yield "date";
        }
        if (a instanceof LogicalTypeAnnotation.IntLogicalTypeAnnotation i) {
          yield switch (i.getBitWidth()) {
            case 8 -> "tinyint";
            case 16 -> "smallint";
            default -> "int";
          };
        }
        yield "int";
      }
      case INT64 ->
          a instanceof LogicalTypeAnnotation.TimestampLogicalTypeAnnotation t
              ? (t.isAdjustedToUTC() ? "timestamp" : "timestamp_ntz")
              : "bigint";
      case INT96 -> "timestamp";
      case BOOLEAN -> "boolean";
      case FLOAT -> "float";
      case DOUBLE -> "double";
    };
  }

  /** Parquet's view of an Iceberg input file: local, HDFS or S3 alike. */
  private record ParquetInput(org.apache.iceberg.io.InputFile file)
      implements org.apache.parquet.io.InputFile {
    @Override
    public long getLength() {
      return file.getLength();
    }

    @Override
    public org.apache.parquet.io.SeekableInputStream newStream() {
      SeekableInputStream in = file.newStream();
      return new DelegatingSeekableInputStream(in) {
        @Override
        public long getPos() throws IOException {
          return in.getPos();
        }

        @Override
        public void seek(long newPos) throws IOException {
          in.seek(newPos);
        }
      };
    }
  }
}
