package io.tidemark.model.testing.raw;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.StringJoiner;

/**
 * The test kit's one writer of raw files, as a source system lands them: Parquet encoded by DuckDB
 * ({@code COPY ... TO}), one named file per call, rows in the order given (row positions are what
 * tie-breaking relies on), the file appearing whole as an S3 upload does. Every module's tests
 * write their raw layer through it; the consuming module needs DuckDB's JDBC driver on its test
 * classpath.
 *
 * <p>Values: {@code null} is SQL NULL and a blank string stays a blank string; an {@link Instant}
 * goes into a {@code TIMESTAMPTZ} column as that instant and into a {@code TIMESTAMP} column as its
 * UTC wall-clock time; anything else is written as its text and cast to the column's type, so a
 * string like {@code "yesterday"} in a {@code VARCHAR} change marker column stays text.
 */
public final class RawFileWriter implements AutoCloseable {
  private static final DateTimeFormatter TS =
      DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSSSSS").withZone(ZoneOffset.UTC);

  private final Connection duckdb;

  public RawFileWriter() {
    try {
      Class.forName("org.duckdb.DuckDBDriver");
      duckdb = DriverManager.getConnection("jdbc:duckdb:");
      try (Statement s = duckdb.createStatement()) {
        s.execute("SET TimeZone = 'UTC'");
      }
    } catch (ClassNotFoundException e) {
      throw new IllegalStateException(
          "The raw file writer needs DuckDB's JDBC driver (org.duckdb:duckdb_jdbc) on the test"
              + " classpath",
          e);
    } catch (SQLException e) {
      throw new IllegalStateException("Cannot start DuckDB: " + e.getMessage(), e);
    }
  }

  /** Writes one Parquet file at exactly {@code target} with one writer used once. */
  public static Path writeOnce(Path target, List<RawColumn> columns, List<? extends List<?>> rows) {
    try (RawFileWriter w = new RawFileWriter()) {
      return w.write(target, columns, rows);
    }
  }

  /** Writes the rows of one DuckDB query at exactly {@code target} with one writer used once. */
  public static Path writeQueryOnce(Path target, String query) {
    try (RawFileWriter w = new RawFileWriter()) {
      return w.writeQuery(target, query);
    }
  }

  /** Writes one Parquet file at exactly {@code target}; its folders are created. */
  public Path write(Path target, List<RawColumn> columns, List<? extends List<?>> rows) {
    int line = 0;
    for (List<?> row : rows) {
      line++;
      if (row.size() != columns.size()) {
        throw new IllegalArgumentException(
            "row "
                + line
                + " of "
                + target
                + " has "
                + row.size()
                + " values for "
                + columns.size()
                + " columns "
                + columns);
      }
    }
    try {
      Files.createDirectories(target.toAbsolutePath().getParent());
      Path csv = Files.createTempFile("tidemark-raw-", ".csv");
      try {
        try (BufferedWriter w = Files.newBufferedWriter(csv)) {
          for (List<?> row : rows) {
            for (int i = 0; i < row.size(); i++) {
              if (i > 0) {
                w.write(',');
              }
              w.write(field(row.get(i), columns.get(i)));
            }
            w.write('\n');
          }
        }
        StringJoiner read = new StringJoiner(", ", "{", "}");
        StringJoiner select = new StringJoiner(", ");
        for (RawColumn c : columns) {
          read.add("'" + c.name() + "': 'VARCHAR'");
          select.add("CAST(\"" + c.name() + "\" AS " + c.type() + ") AS \"" + c.name() + "\"");
        }
        copy(
            target,
            "SELECT "
                + select
                + " FROM read_csv("
                + literal(csv)
                + ", header = false, quote = '\"', escape = '\"', allow_quoted_nulls = false,"
                + " columns = "
                + read
                + ")");
      } finally {
        Files.deleteIfExists(csv);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot write raw file " + target + ": " + e.getMessage(), e);
    }
    return target;
  }

  /**
   * Writes one file of a generated customers delivery under {@code datasetRoot} (at {@link
   * RawFile#relativePath()}) and returns its path.
   */
  public Path write(Path datasetRoot, RawFile file) {
    List<List<?>> rows = new java.util.ArrayList<>(file.rows().size());
    for (RawRecord r : file.rows()) {
      rows.add(
          java.util.Arrays.asList(
              r.customerId(), r.customerName(), r.email(), r.updatedAt(), r.op()));
    }
    return write(datasetRoot.resolve(file.relativePath()), RawColumn.CUSTOMERS, rows);
  }

  /**
   * Writes the rows of one DuckDB query as a Parquet file at exactly {@code target}: for files of
   * any shape (an integer key, no operation column, generated rows).
   */
  public Path writeQuery(Path target, String query) {
    try {
      Files.createDirectories(target.toAbsolutePath().getParent());
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot write raw file " + target + ": " + e.getMessage(), e);
    }
    copy(target, query);
    return target;
  }

  private void copy(Path target, String query) {
    Path tmp = target.resolveSibling("." + target.getFileName() + ".tmp");
    try (Statement s = duckdb.createStatement()) {
      s.execute("COPY (" + query + ") TO " + literal(tmp) + " (FORMAT parquet)");
      Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } catch (SQLException | IOException e) {
      try {
        Files.deleteIfExists(tmp);
      } catch (IOException ignored) {
        // the error below is the one that matters
      }
      throw new IllegalStateException("Cannot write raw file " + target + ": " + e.getMessage(), e);
    }
  }

  /** A path as a SQL string literal. */
  private static String literal(Path p) {
    return "'" + p.toString().replace("'", "''") + "'";
  }

  /**
   * Sets a file's modification time, which both the reconciler and the ingest job read as the time
   * the file arrived.
   */
  public static Path landedAt(Path file, Instant arrived) {
    try {
      Files.setLastModifiedTime(file, FileTime.from(arrived));
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot set the arrival time of " + file, e);
    }
    return file;
  }

  /** Unquoted empty is NULL; anything else is quoted so that blanks survive. */
  private static String field(Object v, RawColumn column) {
    if (v == null) {
      return "";
    }
    String text;
    if (v instanceof Instant i) {
      text = column.type().equals("TIMESTAMPTZ") ? TS.format(i) + "+00" : TS.format(i);
    } else if (v instanceof LocalDateTime t) {
      text = TS.format(t.toInstant(ZoneOffset.UTC));
    } else if (v instanceof BigDecimal d) {
      text = d.toPlainString();
    } else if (v instanceof java.sql.Timestamp t) {
      text = field(t.toInstant(), column);
      return text;
    } else {
      text = v.toString();
    }
    return "\"" + text.replace("\"", "\"\"") + "\"";
  }

  @Override
  public void close() {
    try {
      duckdb.close();
    } catch (SQLException ignored) {
      // closing an in-memory database cannot lose anything
    }
  }
}
