package io.tidemark.reconcile.engine.sql;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * A SQL statement and its parameters, built together so that every value is bound, never spliced.
 * Identifiers reach the text only through each dialect's {@code quote}, which accepts validated
 * identifiers alone.
 */
public final class Sql {
  private final StringBuilder text = new StringBuilder();
  private final List<Object> params = new ArrayList<>();

  public Sql append(String sql) {
    text.append(sql);
    return this;
  }

  /** Appends a {@code ?} and binds the value to it. */
  public Sql param(Object value) {
    text.append('?');
    params.add(value);
    return this;
  }

  public Sql append(Sql other) {
    text.append(other.text);
    params.addAll(other.params);
    return this;
  }

  public String text() {
    return text.toString();
  }

  public List<Object> params() {
    return List.copyOf(params);
  }

  public PreparedStatement prepare(Connection c) throws SQLException {
    PreparedStatement ps = c.prepareStatement(text.toString());
    for (int i = 0; i < params.size(); i++) {
      Object p = params.get(i);
      if (p instanceof List<?> list) {
        ps.setArray(i + 1, c.createArrayOf("VARCHAR", list.toArray()));
      } else {
        ps.setObject(i + 1, p);
      }
    }
    return ps;
  }

  @Override
  public String toString() {
    return text + " " + params;
  }
}
