package io.tidemark.reconcile.report;

import java.util.Objects;

/**
 * A stored report that does not parse: left out of every answer, named in the answers it would have
 * been part of, and counted by the {@code tidemark.unreadable.reports} gauge. It stays where it is
 * for a person to look at.
 *
 * @param kind {@code run} (an ingest run report) or {@code reconciliation}
 * @param location the file or object, as a URI
 * @param reason why it does not parse
 */
public record UnreadableReport(String kind, String location, String reason) {
  public static final String RUN = "run";
  public static final String RECONCILIATION = "reconciliation";

  /** How much of a parser's message a reason keeps. */
  static final int REASON_MAX = 300;

  public UnreadableReport {
    Objects.requireNonNull(kind, "kind is null");
    Objects.requireNonNull(location, "location is null");
    reason = reason == null || reason.isBlank() ? "unreadable" : reason.strip();
    // The parser's message may quote the whole document on several lines: keep its first part.
    reason = reason.replaceAll("\\s+", " ");
    if (reason.length() > REASON_MAX) {
      reason = reason.substring(0, REASON_MAX) + "...";
    }
  }

  /** {@code Cannot read run report <location>: <reason>; skipped}. */
  public String message() {
    return "Cannot read " + kind + " report " + location + ": " + reason + "; skipped";
  }

  static UnreadableReport of(String kind, String location, Throwable e) {
    return new UnreadableReport(kind, location, e.getMessage());
  }
}
