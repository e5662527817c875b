package io.tidemark.e2e;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.temporal.ChronoUnit;

/**
 * Writes raw files as the source would: Parquet with {@code customer_id}, {@code customer_name},
 * {@code email} (strings), {@code updated_at} (a UTC timestamp) and {@code op}. DuckDB does the
 * Parquet encoding.
 */
public final class RawWriter implements AutoCloseable {
  private final Connection duckdb;

  public RawWriter() {
    try {
      duckdb = DriverManager.getConnection("jdbc:duckdb:");
      try (Statement s = duckdb.createStatement()) {
        s.execute("SET TimeZone = 'UTC'");
      }
    } catch (SQLException e) {
      throw new IllegalStateException("Cannot start DuckDB: " + e.getMessage(), e);
    }
  }

  /** Writes one file under {@code datasetRoot} and returns its path. */
  public Path write(Path datasetRoot, RawFile file) {
    Path target = datasetRoot.resolve(file.relativePath());
    try {
      Files.createDirectories(target.getParent());
      Path csv = Files.createTempFile("tidemark-raw-", ".csv");
      try {
        try (BufferedWriter w = Files.newBufferedWriter(csv)) {
          for (RawRecord r : file.rows()) {
            w.write(field(r.customerId()));
            w.write(',');
            w.write(field(r.customerName()));
            w.write(',');
            w.write(field(r.email()));
            w.write(',');
            w.write(
                r.updatedAt() == null
                    ? ""
                    : Long.toString(
                        ChronoUnit.MICROS.between(java.time.Instant.EPOCH, r.updatedAt())));
            w.write(',');
            w.write(field(r.op()));
            w.write('\n');
          }
        }
        Path tmp = target.resolveSibling("." + file.fileName() + ".tmp");
        try (Statement s = duckdb.createStatement()) {
          s.execute(
              "COPY (SELECT customer_id, customer_name, email,"
                  + " CAST(make_timestamp(updated_at_us) AS TIMESTAMPTZ) AS updated_at, op"
                  + " FROM read_csv('"
                  + csv
                  + "', header = false, quote = '\"', escape = '\"',"
                  + " columns = {'customer_id': 'VARCHAR', 'customer_name': 'VARCHAR',"
                  + " 'email': 'VARCHAR', 'updated_at_us': 'BIGINT', 'op': 'VARCHAR'}))"
                  + " TO '"
                  + tmp
                  + "' (FORMAT parquet)");
        }
        // The file appears whole, as an S3 upload would.
        Files.move(
            tmp,
            target,
            java.nio.file.StandardCopyOption.ATOMIC_MOVE,
            java.nio.file.StandardCopyOption.REPLACE_EXISTING);
      } finally {
        Files.deleteIfExists(csv);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot write raw file " + target + ": " + e.getMessage(), e);
    } catch (SQLException e) {
      throw new IllegalStateException("Cannot write raw file " + target + ": " + e.getMessage(), e);
    }
    return target;
  }

  /** Unquoted empty = NULL; anything else is quoted so blanks survive. */
  private static String field(String v) {
    return v == null ? "" : "\"" + v.replace("\"", "\"\"") + "\"";
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
