package io.tidemark.reconcile.engine;

import io.tidemark.model.contract.RawLayout.StrayEntry;
import java.util.List;
import java.util.Objects;

/**
 * What an engine measured for one dataset; the rules turn it into results.
 *
 * @param expectedRows live keys in the expected state among the checked keys
 * @param curatedRows curated rows among the checked keys (duplicates counted)
 * @param countDifference keys behind the row-count difference (missing, unexpected, duplicated)
 * @param missing expected live keys absent from curated
 * @param unexpected curated keys that raw does not hold, or holds as deleted
 * @param duplicates keys present more than once in curated
 * @param stale keys whose curated change marker differs from the expected one: older, or newer than
 *     any valid raw version
 * @param mismatched keys at the same change marker whose compared columns hash differently
 * @param freshness how far curated is behind
 * @param bytesScanned bytes read from storage, 0 when unknown
 * @param scanCostUsd what the engine charges for those bytes, in US dollars (0 for the embedded
 *     engine)
 * @param excludedFiles raw files left out whole (unreadable, or breaking the data contract); none
 *     of their rows counts as a version
 * @param strayEntries folders and files under the raw root that are neither partitions nor hidden
 *     (a mistyped partition name, a file outside any partition): read by neither half
 * @param aggregates what {@code aggregate_match} compares; null when the engine did not say (the
 *     rule is then an ERROR)
 * @param queried the finding of each rule that runs a query of its own ({@code custom_sql}, {@code
 *     referential_integrity}), by rule id
 */
public record Observations(
    long expectedRows,
    long curatedRows,
    Finding countDifference,
    Finding missing,
    Finding unexpected,
    Finding duplicates,
    Finding stale,
    Finding mismatched,
    Freshness freshness,
    long bytesScanned,
    double scanCostUsd,
    List<ExcludedFile> excludedFiles,
    List<StrayEntry> strayEntries,
    AggregateFinding aggregates,
    java.util.Map<String, Finding> queried) {
  public Observations {
    queried = queried == null ? java.util.Map.of() : java.util.Map.copyOf(queried);
    Objects.requireNonNull(countDifference, "countDifference is null");
    Objects.requireNonNull(missing, "missing is null");
    Objects.requireNonNull(unexpected, "unexpected is null");
    Objects.requireNonNull(duplicates, "duplicates is null");
    Objects.requireNonNull(stale, "stale is null");
    Objects.requireNonNull(mismatched, "mismatched is null");
    Objects.requireNonNull(freshness, "freshness is null");
    excludedFiles = List.copyOf(excludedFiles);
    strayEntries = List.copyOf(strayEntries);
  }

  /**
   * Observations of {@code expectedRows} and {@code curatedRows}; the rest is set on the builder.
   */
  public static Builder builder(long expectedRows, long curatedRows) {
    return new Builder(expectedRows, curatedRows);
  }

  /**
   * Builds observations: the key findings and freshness are required; nothing scanned, nothing
   * charged and no raw file left out unless set.
   */
  public static final class Builder {
    private final long expectedRows;
    private final long curatedRows;
    private List<Finding> keyFindings;
    private Freshness freshness;
    private long bytesScanned;
    private double scanCostUsd;
    private List<ExcludedFile> excludedFiles = List.of();
    private List<StrayEntry> strayEntries = List.of();
    private AggregateFinding aggregates;
    private java.util.Map<String, Finding> queried = java.util.Map.of();

    private Builder(long expectedRows, long curatedRows) {
      this.expectedRows = expectedRows;
      this.curatedRows = curatedRows;
    }

    /**
     * The six key findings in the record's order: count difference, missing, unexpected,
     * duplicates, stale, mismatched.
     */
    public Builder keyFindings(List<Finding> findings) {
      if (findings.size() != 6) {
        throw new IllegalArgumentException(
            "Cannot observe " + findings.size() + " key findings: there are 6");
      }
      this.keyFindings = List.copyOf(findings);
      return this;
    }

    public Builder freshness(Freshness freshness) {
      this.freshness = freshness;
      return this;
    }

    /** Bytes read from storage and what the engine charges for them, in US dollars. */
    public Builder scanned(long bytes, double costUsd) {
      this.bytesScanned = bytes;
      this.scanCostUsd = costUsd;
      return this;
    }

    /** Raw files left out whole and stray entries of the raw root. */
    public Builder rawFiles(List<ExcludedFile> excluded, List<StrayEntry> strays) {
      this.excludedFiles = excluded;
      this.strayEntries = strays;
      return this;
    }

    /** What {@code aggregate_match} compares. */
    public Builder aggregates(AggregateFinding found) {
      this.aggregates = found;
      return this;
    }

    /** The finding of each rule that runs a query of its own, by rule id. */
    public Builder queried(java.util.Map<String, Finding> found) {
      this.queried = found;
      return this;
    }

    public Observations build() {
      Objects.requireNonNull(keyFindings, "keyFindings is null");
      return new Observations(
          expectedRows,
          curatedRows,
          keyFindings.get(0),
          keyFindings.get(1),
          keyFindings.get(2),
          keyFindings.get(3),
          keyFindings.get(4),
          keyFindings.get(5),
          freshness,
          bytesScanned,
          scanCostUsd,
          excludedFiles,
          strayEntries,
          aggregates,
          queried);
    }
  }
}
