package io.tidemark.reconcile.engine;

import io.tidemark.model.config.CatalogSpec;
import io.tidemark.model.config.DatasetSpec;
import io.tidemark.model.config.RuleSpec;
import io.tidemark.model.contract.DatasetContract;
import io.tidemark.model.contract.DatasetSpecs;
import io.tidemark.model.report.ReconciliationMode;
import io.tidemark.reconcile.kernel.EngineException;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Objects;

/**
 * What to observe.
 *
 * <p>The rows considered are the valid raw versions up to {@code to}. In WINDOW mode the keys
 * checked are those with a raw version in {@code (from, to]} plus those whose curated row carries a
 * change marker in that window; {@code from == null} means "from the beginning". In FULL mode every
 * key is checked. A raw row whose timestamp change marker is later than {@link #futureLimit()} is
 * invalid (the ingest job quarantines it as FUTURE_CHANGE_MARKER): it is no version at all, so it
 * cannot hold its key in flight either.
 *
 * @param contract the dataset contract
 * @param catalog where the curated table is
 * @param mode WINDOW or FULL
 * @param from window start, exclusive; null for FULL or a first run
 * @param to window end, inclusive
 * @param now the reference time of freshness
 * @param sampleSize how many offending keys each measure keeps, 1..1000
 * @param futureTolerance how far past {@code now} a valid timestamp change marker may lie
 * @param curatedSnapshot the curated snapshot to read, pinned when the reconciliation began so that
 *     every check reads the same table state and the verdict can name it; null for the current one
 * @param rawArrivedBy raw files that arrived (were last modified) after this are not read; null to
 *     read every file. An audit of an ingest run's branch reads raw as the run found it
 * @param referenced by name, the datasets the contract's {@code referential_integrity} rules
 *     reference
 */
public record EngineRequest(
    DatasetContract contract,
    CatalogSpec catalog,
    ReconciliationMode mode,
    Instant from,
    Instant to,
    Instant now,
    int sampleSize,
    Duration futureTolerance,
    Long curatedSnapshot,
    Instant rawArrivedBy,
    Map<String, Referenced> referenced) {
  /** A request that reads every raw file, of a dataset that references no other. */
  public EngineRequest(
      DatasetContract contract,
      CatalogSpec catalog,
      ReconciliationMode mode,
      Instant from,
      Instant to,
      Instant now,
      int sampleSize,
      Duration futureTolerance,
      Long curatedSnapshot) {
    this(
        contract,
        catalog,
        mode,
        from,
        to,
        now,
        sampleSize,
        futureTolerance,
        curatedSnapshot,
        null,
        Map.of());
  }

  public EngineRequest {
    Objects.requireNonNull(contract, "contract is null");
    Objects.requireNonNull(catalog, "catalog is null");
    Objects.requireNonNull(mode, "mode is null");
    Objects.requireNonNull(to, "to is null");
    Objects.requireNonNull(now, "now is null");
    if (mode == ReconciliationMode.FULL && from != null) {
      throw new IllegalArgumentException("Cannot observe in FULL mode with a window start " + from);
    }
    if (from != null && !from.isBefore(to)) {
      throw new IllegalArgumentException(
          "Cannot observe window (" + from + ", " + to + "]: start is not before end");
    }
    if (sampleSize < 1 || sampleSize > RuleSpec.SAMPLE_SIZE_MAX) {
      throw new IllegalArgumentException(
          "Cannot observe with sample size "
              + sampleSize
              + ": must be 1.."
              + RuleSpec.SAMPLE_SIZE_MAX);
    }
    Objects.requireNonNull(futureTolerance, "futureTolerance is null");
    if (futureTolerance.isNegative()) {
      throw new IllegalArgumentException(
          "Cannot observe with future tolerance " + futureTolerance + ": must not be negative");
    }
    referenced = referenced == null ? Map.of() : Map.copyOf(referenced);
  }

  /**
   * The dataset a {@code referential_integrity} rule of the contract references.
   *
   * @throws EngineException when the request does not carry it
   */
  public Referenced referenced(RuleSpec rule) {
    Referenced r = referenced.get(rule.references());
    if (r == null) {
      throw new EngineException(
          "Rule "
              + rule.id()
              + " references dataset '"
              + rule.references()
              + "', which this reconciliation was not given");
    }
    return r;
  }

  /** The contract's names in the older spec's shape, as the SQL takes them. */
  public DatasetSpec dataset() {
    return DatasetSpecs.of(contract);
  }

  /** The latest valid timestamp change marker: {@code now + futureTolerance}. */
  public Instant futureLimit() {
    return now.plus(futureTolerance);
  }
}
