package io.tidemark.model.config;

import io.tidemark.model.json.InvalidDocumentException;
import java.util.List;
import java.util.Locale;

/**
 * A threshold learned from a rule's own history: the values the rule observed in the dataset's last
 * {@code last} finished reconciliations of the same mode (PASS or FAIL, whatever their verdict;
 * carried-over and ERROR results aside). Until that many exist the rule is learning, and its static
 * threshold applies.
 *
 * <ul>
 *   <li>{@code stddevs: k}: the threshold is their mean plus k population standard deviations;
 *   <li>{@code percentOfMean: p}: the threshold is p % of their mean (150: half as much again).
 * </ul>
 *
 * Exactly one of the two is given.
 *
 * @param last how many past values to learn from, 2 to 100
 * @param stddevs k, at least 0
 * @param percentOfMean p, at least 0
 */
public record DynamicThreshold(int last, Double stddevs, Double percentOfMean) {
  public static final int LAST_MAX = 100;

  public DynamicThreshold {
    if (last < 2 || last > LAST_MAX) {
      throw new InvalidDocumentException("last", last, "must be between 2 and " + LAST_MAX);
    }
    if ((stddevs == null) == (percentOfMean == null)) {
      throw new InvalidDocumentException(
          "dynamic",
          stddevs == null ? "neither" : "both",
          "give exactly one of stddevs (mean + k standard deviations) and percent-of-mean");
    }
    if (stddevs != null && !(stddevs >= 0 && Double.isFinite(stddevs))) {
      throw new InvalidDocumentException("stddevs", stddevs, "must be a number of at least 0");
    }
    if (percentOfMean != null && !(percentOfMean >= 0 && Double.isFinite(percentOfMean))) {
      throw new InvalidDocumentException(
          "percentOfMean", percentOfMean, "must be a number of at least 0");
    }
  }

  /** The threshold learned from {@code values} (exactly {@link #last} of them). */
  public double threshold(List<Double> values) {
    if (values.size() != last) {
      throw new IllegalArgumentException(
          "Cannot learn from " + values.size() + " values: the rule learns from " + last);
    }
    double mean = mean(values);
    return stddevs != null ? mean + stddevs * stddev(values, mean) : mean * percentOfMean / 100;
  }

  /** How the threshold was learned, in words, e.g. {@code mean 3 + 2 × stddev 1.63 of ...}. */
  public String describe(List<Double> values, String of) {
    double mean = mean(values);
    String learned =
        stddevs != null
            ? "mean "
                + number(mean)
                + " + "
                + number(stddevs)
                + " × standard deviation "
                + number(stddev(values, mean))
            : number(percentOfMean) + " % of the mean " + number(mean);
    return "dynamic threshold " + number(threshold(values)) + ": " + learned + " of " + of;
  }

  private static double mean(List<Double> values) {
    return values.stream().mapToDouble(Double::doubleValue).average().orElse(0);
  }

  private static double stddev(List<Double> values, double mean) {
    double sum = 0;
    for (double v : values) {
      sum += (v - mean) * (v - mean);
    }
    return Math.sqrt(sum / values.size());
  }

  /** A number as reasons show it: at most 4 decimals, no trailing zeros. */
  public static String number(double v) {
    String s = String.format(Locale.ROOT, "%.4f", v);
    s = s.replaceAll("0+$", "");
    return s.endsWith(".") ? s.substring(0, s.length() - 1) : s;
  }
}
