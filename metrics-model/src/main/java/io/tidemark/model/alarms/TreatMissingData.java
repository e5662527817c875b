package io.tidemark.model.alarms;

import com.fasterxml.jackson.annotation.JsonValue;

/** CloudWatch's treatment of missing datapoints. */
public enum TreatMissingData {
  BREACHING("breaching"),
  NOT_BREACHING("notBreaching"),
  IGNORE("ignore"),
  MISSING("missing");

  private final String cloudWatchName;

  TreatMissingData(String cloudWatchName) {
    this.cloudWatchName = cloudWatchName;
  }

  @JsonValue
  public String cloudWatchName() {
    return cloudWatchName;
  }

  public static TreatMissingData fromCloudWatchName(String name) {
    for (TreatMissingData t : values()) {
      if (t.cloudWatchName.equals(name)) {
        return t;
      }
    }
    throw new IllegalArgumentException("Cannot read TreatMissingData '" + name + "'");
  }
}
