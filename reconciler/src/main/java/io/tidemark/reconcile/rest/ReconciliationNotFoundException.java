package io.tidemark.reconcile.rest;

/** No reconciliation has the requested id. */
public class ReconciliationNotFoundException extends RuntimeException {
  public ReconciliationNotFoundException(String id) {
    super("Cannot find reconciliation '" + shorten(id) + "'");
  }

  private static String shorten(String s) {
    return s.length() > 100 ? s.substring(0, 100) + "..." : s;
  }
}
