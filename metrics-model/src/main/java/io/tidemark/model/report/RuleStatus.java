package io.tidemark.model.report;

/** The outcome of one rule. */
public enum RuleStatus {
  PASS,
  FAIL,
  /** The rule could not be evaluated; the result's reason says why. */
  ERROR
}
