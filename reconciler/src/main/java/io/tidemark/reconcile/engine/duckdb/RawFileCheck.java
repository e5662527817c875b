package io.tidemark.reconcile.engine.duckdb;

import io.tidemark.model.contract.DatasetContract;
import io.tidemark.model.contract.RawSchema;
import io.tidemark.model.contract.ReasonCode;
import io.tidemark.reconcile.engine.ExcludedFile;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Checks a raw file before the embedded engine reads it: its footer is read (no rows), its columns
 * checked against the contract's {@link RawSchema}, as the ingest job checks it.
 */
final class RawFileCheck {
  private RawFileCheck() {}

  /**
   * Why a raw file must be left out whole, or null when it can be read; {@code tableTypes} are the
   * curated table's types, which compared columns must keep.
   */
  static ExcludedFile check(
      Connection c, DatasetContract contract, String path, Map<String, String> tableTypes) {
    List<RawSchema.Column> columns = new ArrayList<>();
    try (PreparedStatement ps = DuckDbFiles.probeParquet(path).prepare(c);
        ResultSet rs = ps.executeQuery()) {
      ResultSetMetaData md = rs.getMetaData();
      for (int i = 1; i <= md.getColumnCount(); i++) {
        String type = md.getColumnTypeName(i).toUpperCase(Locale.ROOT);
        // Named as Spark SQL names types, as the job checks a file against the contract.
        columns.add(new RawSchema.Column(md.getColumnName(i), kind(type), contractType(type)));
      }
      // DuckDB renames a column whose name repeats another's in another case (EMAIL -> EMAIL_1):
      // the file's own names come from its Parquet schema.
      List<String> names = new ArrayList<>();
      try (PreparedStatement schema = DuckDbFiles.parquetColumnNames(path).prepare(c);
          ResultSet leaves = schema.executeQuery()) {
        while (leaves.next()) {
          names.add(leaves.getString(1));
        }
      }
      if (names.size() == columns.size()) {
        for (int i = 0; i < names.size(); i++) {
          RawSchema.Column col = columns.get(i);
          columns.set(i, new RawSchema.Column(names.get(i), col.kind(), col.typeName()));
        }
      }
    } catch (SQLException | RuntimeException e) {
      return new ExcludedFile(path, ReasonCode.UNREADABLE_FILE, firstLine(e));
    }
    // The job's own check: every declared column there, of a type its declaration accepts (an int
    // into a long, a narrower decimal into a wider one), so both halves read the same files.
    RawSchema.Problem problem = RawSchema.check(contract, columns);
    return problem == null ? null : new ExcludedFile(path, problem.reason(), problem.detail());
  }

  /** A DuckDB type's contract type name (Spark SQL's simpleString), see {@link RawSchema}. */
  static String contractType(String duckDbType) {
    String t = duckDbType.toUpperCase(Locale.ROOT);
    if (t.startsWith("DECIMAL")) {
      return t.toLowerCase(Locale.ROOT).replace(" ", "");
    }
    return switch (t) {
      case "VARCHAR" -> "string";
      case "INTEGER" -> "int";
      case "BIGINT" -> "bigint";
      case "SMALLINT" -> "smallint";
      case "TINYINT" -> "tinyint";
      case "FLOAT" -> "float";
      case "DOUBLE" -> "double";
      case "BOOLEAN" -> "boolean";
      case "DATE" -> "date";
      case "BLOB" -> "binary";
      case "TIMESTAMP WITH TIME ZONE" -> "timestamp";
      case "TIMESTAMP", "TIMESTAMP_NS", "TIMESTAMP_MS", "TIMESTAMP_S" -> "timestamp_ntz";
      default -> t.toLowerCase(Locale.ROOT);
    };
  }

  /** How a DuckDB type counts for the contract. */
  static RawSchema.Kind kind(String duckDbType) {
    if (duckDbType.equals("VARCHAR")) {
      return RawSchema.Kind.TEXT;
    }
    if (duckDbType.startsWith("TIMESTAMP")) {
      return RawSchema.Kind.TIMESTAMP;
    }
    return DuckDbDialect.isInteger(duckDbType) ? RawSchema.Kind.INTEGER : RawSchema.Kind.OTHER;
  }

  private static String firstLine(Throwable e) {
    String m = e.getMessage();
    if (m == null || m.isBlank()) {
      return e.getClass().getSimpleName();
    }
    return m.lines().filter(l -> !l.isBlank()).findFirst().orElse(m).trim();
  }
}
