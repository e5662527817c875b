package io.tidemark.reconcile.config;

import io.tidemark.model.config.CatalogSpec;
import io.tidemark.model.config.DatasetSpec;
import io.tidemark.model.config.RuleKind;
import io.tidemark.model.config.RuleSpec;
import io.tidemark.model.contract.DatasetContract;
import io.tidemark.model.contract.DatasetSpecs;
import io.tidemark.model.json.InvalidDocumentException;
import io.tidemark.model.report.ReconciliationMode;
import io.tidemark.reconcile.engine.Referenced;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * One dataset as the reconciler runs it: its dataset contract (columns and types, key, change
 * marker, operation mapping, raw layout, tables, and its reconcile section: rules, sample columns,
 * schedule), the catalog holding its tables, and the engine that queries it. Everything but the
 * engine and the catalog is the contract's, read through the accessors below.
 *
 * @param contract the dataset contract
 * @param catalog the Iceberg catalog holding the curated table
 * @param engine the engine's name
 */
public record ReconciledDataset(DatasetContract contract, CatalogSpec catalog, String engine) {
  public static final String CRON_OFF = "off";

  public ReconciledDataset {
    Objects.requireNonNull(contract, "contract is null");
    Objects.requireNonNull(catalog, "catalog is null");
    Objects.requireNonNull(engine, "engine is null");
  }

  public String name() {
    return contract.name();
  }

  /** The contract's names in the older spec's shape, as the SQL and the schema checks take them. */
  public DatasetSpec spec() {
    return DatasetSpecs.of(contract);
  }

  /**
   * The datasets this one's {@code referential_integrity} rules reference, by name, from those a
   * service reconciles, checked: each is reconciled there, on the same engine (one engine reads
   * both tables), and its key fits the rule's columns.
   *
   * @throws IllegalArgumentException naming the dataset, the rule and what does not fit
   */
  public Map<String, Referenced> referenced(Map<String, ReconciledDataset> all) {
    Map<String, Referenced> out = new TreeMap<>();
    for (RuleSpec rule : rules()) {
      if (rule.kind() != RuleKind.REFERENTIAL_INTEGRITY) {
        continue;
      }
      ReconciledDataset other = all.get(rule.references());
      String cannot = "Cannot reconcile dataset " + name() + ": rule " + rule.id();
      if (other == null) {
        throw new IllegalArgumentException(
            cannot
                + " references dataset '"
                + rule.references()
                + "', which this service does not reconcile (it reconciles "
                + new TreeSet<>(all.keySet())
                + ")");
      }
      if (!other.engine().equals(engine)) {
        throw new IllegalArgumentException(
            cannot
                + " references dataset '"
                + other.name()
                + "', which is reconciled on engine '"
                + other.engine()
                + "', not '"
                + engine
                + "': one engine must read both curated tables");
      }
      try {
        contract.checkReference(rule, other.contract());
      } catch (InvalidDocumentException e) {
        throw new IllegalArgumentException(
            "Cannot reconcile dataset " + name() + ": " + e.getMessage(), e);
      }
      out.put(other.name(), new Referenced(other.contract(), other.catalog()));
    }
    return out;
  }

  /** The rules to evaluate, unique ids: the contract's {@code reconcile.rules}. */
  public List<RuleSpec> rules() {
    return contract.reconcile().rules();
  }

  /** The Quartz cron of the scheduled run, or {@code off}: the contract's schedule. */
  public String cron() {
    return contract.reconcile().schedule().trim();
  }

  /** The mode of the scheduled run. */
  public ReconciliationMode scheduleMode() {
    return ReconciliationMode.valueOf(contract.reconcile().scheduleMode().toUpperCase(Locale.ROOT));
  }

  /** How far past a run's start a timestamp change marker may lie and still be valid. */
  public Duration futureTolerance() {
    return contract.reconcile().futureTolerance();
  }

  /**
   * How old a raw file must be before {@code unprocessed_files} expects a batch to have read it.
   */
  public Duration unprocessedFileGrace() {
    return contract.reconcile().unprocessedFileGrace();
  }

  public boolean scheduled() {
    return !CRON_OFF.equalsIgnoreCase(cron());
  }

  /** The largest sample any rule asks for. */
  public int maxSampleSize() {
    return rules().stream()
        .mapToInt(RuleSpec::sampleSize)
        .max()
        .orElse(RuleSpec.SAMPLE_SIZE_DEFAULT);
  }
}
