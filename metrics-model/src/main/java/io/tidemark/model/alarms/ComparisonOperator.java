package io.tidemark.model.alarms;

/** CloudWatch's alarm comparison operators, spelled as CloudWatch spells them. */
public enum ComparisonOperator {
  GreaterThanOrEqualToThreshold,
  GreaterThanThreshold,
  LessThanThreshold,
  LessThanOrEqualToThreshold,
  /** Anomaly detection: outside the band. */
  LessThanLowerOrGreaterThanUpperThreshold,
  /** Anomaly detection: above the band. */
  GreaterThanUpperThreshold,
  /** Anomaly detection: below the band. */
  LessThanLowerThreshold;

  /** Whether a datapoint breaches a static threshold under this operator. */
  public boolean breaches(double value, double threshold) {
    return switch (this) {
      case GreaterThanOrEqualToThreshold -> value >= threshold;
      case GreaterThanThreshold -> value > threshold;
      case LessThanThreshold -> value < threshold;
      case LessThanOrEqualToThreshold -> value <= threshold;
      default ->
          throw new IllegalStateException(
              "Cannot compare " + value + " with a static threshold using band operator " + this);
    };
  }

  public boolean isBand() {
    return this == LessThanLowerOrGreaterThanUpperThreshold
        || this == GreaterThanUpperThreshold
        || this == LessThanLowerThreshold;
  }
}
