package io.tidemark.model.metrics;

/**
 * The subset of CloudWatch standard units the catalogue uses, spelled as CloudWatch spells them.
 */
public enum MetricUnit {
  COUNT("Count"),
  SECONDS("Seconds"),
  MILLISECONDS("Milliseconds"),
  BYTES("Bytes"),
  PERCENT("Percent"),
  NONE("None");

  private final String cloudWatchName;

  MetricUnit(String cloudWatchName) {
    this.cloudWatchName = cloudWatchName;
  }

  public String cloudWatchName() {
    return cloudWatchName;
  }
}
