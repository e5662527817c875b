package io.tidemark.model.metrics;

/** A CloudWatch dimension that Tidemark metrics carry. */
public enum Dimension {
  /** The pipeline a dataset belongs to, e.g. {@code crm-daily}. */
  PIPELINE("Pipeline"),
  /** The dataset, e.g. {@code customers}. */
  DATASET("Dataset"),
  /** The reconciliation rule id, e.g. {@code missing_keys}. */
  RULE("Rule"),
  /**
   * The ingest run's mode: an {@link io.tidemark.model.report.IngestMode} name, e.g. {@code
   * INCREMENTAL}, so a backfill's or a replay's counts never blend into the nightly incremental's.
   */
  MODE("Mode");

  private final String cloudWatchName;

  Dimension(String cloudWatchName) {
    this.cloudWatchName = cloudWatchName;
  }

  /** The dimension name as CloudWatch sees it. */
  public String cloudWatchName() {
    return cloudWatchName;
  }

  /** Looks a dimension up by its CloudWatch name. */
  public static java.util.Optional<Dimension> byCloudWatchName(String name) {
    for (Dimension d : values()) {
      if (d.cloudWatchName.equals(name)) {
        return java.util.Optional.of(d);
      }
    }
    return java.util.Optional.empty();
  }
}
