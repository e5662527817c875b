package io.tidemark.reconcile.engine.athena;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * Runs queries on a JDBC engine that speaks Trino's dialect (Trino itself, or Starburst), one
 * connection per query, values bound as typed parameters. The driver must be on the class path.
 * JDBC has no standard for the bytes a query read: a driver-specific function reports them (Trino's
 * result set has query statistics), 0 without one.
 */
public final class JdbcQueryRunner implements QueryRunner {
  /** The bytes a finished query read, from its fully read result set. */
  @FunctionalInterface
  public interface BytesRead {
    long of(ResultSet finished) throws SQLException;
  }

  private final Supplier<Connection> connections;
  private final BytesRead bytesRead;
  private final Set<Statement> running = ConcurrentHashMap.newKeySet();

  /**
   * @param connections opens a new connection per query
   */
  public JdbcQueryRunner(Supplier<Connection> connections) {
    this(connections, finished -> 0);
  }

  /**
   * @param connections opens a new connection per query
   * @param bytesRead what a query read, asked once its rows are read
   */
  public JdbcQueryRunner(Supplier<Connection> connections, BytesRead bytesRead) {
    this.connections = Objects.requireNonNull(connections, "connections is null");
    this.bytesRead = Objects.requireNonNull(bytesRead, "bytesRead is null");
  }

  @Override
  public QueryResult run(String label, String sql, List<Object> params) {
    try (Connection c = connections.get();
        PreparedStatement ps = c.prepareStatement(sql)) {
      for (int i = 0; i < params.size(); i++) {
        Object p = params.get(i);
        if (p instanceof String s) {
          ps.setString(i + 1, s);
        } else if (p instanceof Long || p instanceof Integer) {
          ps.setLong(i + 1, ((Number) p).longValue());
        } else {
          throw new IllegalArgumentException(
              "Cannot bind parameter " + (i + 1) + " of " + label + ": " + p);
        }
      }
      running.add(ps);
      try (ResultSet rs = ps.executeQuery()) {
        int columns = rs.getMetaData().getColumnCount();
        List<List<String>> rows = new ArrayList<>();
        while (rs.next()) {
          List<String> row = new ArrayList<>(columns);
          for (int i = 1; i <= columns; i++) {
            row.add(rs.getString(i));
          }
          rows.add(Collections.unmodifiableList(row));
        }
        return new QueryResult(null, rows, bytesRead.of(rs));
      } finally {
        running.remove(ps);
      }
    } catch (SQLException e) {
      throw new QueryFailedException(label + " failed: " + e.getMessage(), null, "FAILED", e);
    }
  }

  @Override
  public void close() {
    for (Statement s : running) {
      try {
        s.cancel();
      } catch (SQLException e) {
        // The statement ended meanwhile.
      }
    }
  }
}
