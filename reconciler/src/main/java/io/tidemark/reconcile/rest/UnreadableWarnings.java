package io.tidemark.reconcile.rest;

import io.tidemark.reconcile.report.UnreadableReport;
import jakarta.ws.rs.core.Response;
import java.util.List;

/**
 * Names the stored reports an answer left out because they do not parse: one {@code Warning} header
 * each ({@code 199 tidemark "Cannot read run report <location>: <reason>; skipped"}), so the answer
 * keeps its shape and a client still learns what is missing from it.
 */
final class UnreadableWarnings {
  /** The Warning header's name. */
  static final String HEADER = "Warning";

  private UnreadableWarnings() {}

  static Response ok(Object entity, List<UnreadableReport> unreadable) {
    Response.ResponseBuilder b = Response.ok(entity);
    for (UnreadableReport u : unreadable) {
      b.header(HEADER, "199 tidemark \"" + quotable(u.message()) + "\"");
    }
    return b.build();
  }

  /** Printable ASCII only, without quotes or backslashes: a header value cannot carry more. */
  private static String quotable(String s) {
    StringBuilder sb = new StringBuilder(s.length());
    for (char c : s.toCharArray()) {
      sb.append(c >= 0x20 && c < 0x7f && c != '"' && c != '\\' ? c : c == '"' ? '\'' : '?');
    }
    return sb.toString();
  }
}
