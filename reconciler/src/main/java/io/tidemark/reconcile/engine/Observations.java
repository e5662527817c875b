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
    List<StrayEntry> strayEntries) {
  public Observations {
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

  /** Observations of an engine that charges nothing for what it reads. */
  public Observations(
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
      List<ExcludedFile> excludedFiles,
      List<StrayEntry> strayEntries) {
    this(
        expectedRows,
        curatedRows,
        countDifference,
        missing,
        unexpected,
        duplicates,
        stale,
        mismatched,
        freshness,
        bytesScanned,
        0,
        excludedFiles,
        strayEntries);
  }

  /** Observations with no raw file excluded. */
  public Observations(
      long expectedRows,
      long curatedRows,
      Finding countDifference,
      Finding missing,
      Finding unexpected,
      Finding duplicates,
      Finding stale,
      Finding mismatched,
      Freshness freshness,
      long bytesScanned) {
    this(
        expectedRows,
        curatedRows,
        countDifference,
        missing,
        unexpected,
        duplicates,
        stale,
        mismatched,
        freshness,
        bytesScanned,
        List.of(),
        List.of());
  }
}
