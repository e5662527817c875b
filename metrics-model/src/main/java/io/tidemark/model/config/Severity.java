package io.tidemark.model.config;

/** How loud a broken rule is. */
public enum Severity {
  CRITICAL,
  WARNING
}
