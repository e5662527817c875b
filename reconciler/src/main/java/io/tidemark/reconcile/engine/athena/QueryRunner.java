package io.tidemark.reconcile.engine.athena;

import java.util.List;

/**
 * Runs the read-only queries of a SQL engine somewhere: Amazon Athena in production, any JDBC
 * engine speaking Trino's dialect (a real Trino proves the SQL in tests). One runner serves one
 * reconciliation; {@link #close()} stops whatever it still has in flight.
 */
public interface QueryRunner extends AutoCloseable {
  /**
   * Runs one query and returns every row.
   *
   * @param label what the query measures, for logs and errors (e.g. {@code missing_keys})
   * @param sql the text, with one {@code ?} per parameter
   * @param params the values, in order: {@link String}, {@link Long} or {@link Integer}
   * @throws QueryFailedException when the query failed, was cancelled or timed out
   */
  QueryResult run(String label, String sql, List<Object> params);

  /** Stops the queries still running and releases the runner's resources. */
  @Override
  void close();
}
