package io.tidemark.ingest.config;

import io.tidemark.ingest.audit.VerifiedPublish;
import io.tidemark.ingest.metrics.CloudWatchPublisher;
import io.tidemark.ingest.metrics.RunEvents;
import io.tidemark.ingest.metrics.RunLineage;
import io.tidemark.model.config.CatalogSpec;
import io.tidemark.model.config.LocalPaths;
import io.tidemark.model.contract.ContractDefaults;
import io.tidemark.model.contract.DatasetContract;
import io.tidemark.model.json.Checks;
import io.tidemark.model.json.InvalidDocumentException;
import io.tidemark.model.report.DiscoveryMode;
import io.tidemark.model.report.IngestMode;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * Everything one ingest run needs to know, validated at construction.
 *
 * @param dataset the dataset's contract: raw location and layout, columns and their types, key,
 *     change marker, operation mapping, curated (and its partitioning), quarantine and tombstone
 *     tables
 * @param catalog the Iceberg catalog holding the tables
 * @param tombstoneTable where deletes are remembered, so that an older version arriving after a
 *     delete does not bring the key back; default {@code <curatedTable>_tombstones}
 * @param mode incremental (default) or full refresh
 * @param discovery files (default) or watermark
 * @param lookback how far before the checkpoint discovery looks again; default {@value
 *     #LOOKBACK_DEFAULT_TEXT}
 * @param maxInvalidRatio above this share of invalid records the batch is rejected; default {@value
 *     #MAX_INVALID_RATIO_DEFAULT}
 * @param futureTolerance a change marker later than now plus this is invalid; default {@value
 *     #FUTURE_TOLERANCE_DEFAULT_TEXT}
 * @param stateRoot where run reports go: {@code <stateRoot>/_runs/dt=YYYY-MM-DD/<run-id>.json}; a
 *     relative local path is made absolute, as are the catalog's local warehouse and the raw
 *     location (see {@link LocalPaths})
 * @param cloudWatch publisher settings when metrics are on, empty when off (the default)
 * @param events where the run's EventBridge event goes when events are on, empty when off (the
 *     default)
 * @param lineage where the run's OpenLineage event goes when lineage is on, empty when off (the
 *     default)
 * @param publish verified publish: whether the run's branch is audited by the reconciler before it
 *     is published, and what to do with a batch a failed audit left held; default {@link
 *     VerifiedPublish#OFF}
 * @param runId the run's id; null to generate one
 * @param clock the clock for "now" (run times, the future-marker check)
 * @param leaseTtl how long a run's lease on the table lasts unless renewed (state roots on S3, see
 *     the lease package's RunLeases); zero for no lease; default {@value #LEASE_TTL_DEFAULT_TEXT}
 * @param operator a backfill's range or a quarantine replay's selection; {@link
 *     OperatorOptions#NONE} in the other modes
 */
public record IngestSettings(
    DatasetContract dataset,
    CatalogSpec catalog,
    String tombstoneTable,
    IngestMode mode,
    DiscoveryMode discovery,
    Duration lookback,
    double maxInvalidRatio,
    Duration futureTolerance,
    String stateRoot,
    Optional<CloudWatchPublisher.Settings> cloudWatch,
    Optional<RunEvents.Settings> events,
    Optional<RunLineage.Settings> lineage,
    VerifiedPublish publish,
    String runId,
    Clock clock,
    Duration leaseTtl,
    OperatorOptions operator) {

  public static final String LOOKBACK_DEFAULT_TEXT = "P2D";
  public static final Duration LOOKBACK_DEFAULT = Duration.parse(LOOKBACK_DEFAULT_TEXT);
  public static final double MAX_INVALID_RATIO_DEFAULT = 0.1;
  public static final String FUTURE_TOLERANCE_DEFAULT_TEXT = ContractDefaults.FUTURE_TOLERANCE_TEXT;
  public static final Duration FUTURE_TOLERANCE_DEFAULT =
      Duration.parse(FUTURE_TOLERANCE_DEFAULT_TEXT);
  public static final String TOMBSTONE_SUFFIX = "_tombstones";
  public static final String LEASE_TTL_DEFAULT_TEXT = "PT10M";
  public static final Duration LEASE_TTL_DEFAULT = Duration.parse(LEASE_TTL_DEFAULT_TEXT);
  public static final Duration LEASE_TTL_MIN = Duration.ofSeconds(1);

  public IngestSettings {
    Objects.requireNonNull(dataset, "dataset is null");
    Objects.requireNonNull(catalog, "catalog is null");
    // Relative local paths would be written relative into the catalog, the tables' metadata, the
    // quarantine's source files and the run reports: resolve them once, before anything is.
    catalog = catalog.withAbsoluteLocalPaths();
    String rawLocation = dataset.raw().location();
    if (LocalPaths.isRelative(rawLocation)) {
      dataset = dataset.withRawLocation(LocalPaths.absolute(rawLocation));
    }
    tombstoneTable = checkedTombstoneTable(dataset, tombstoneTable);
    mode = mode == null ? IngestMode.INCREMENTAL : mode;
    discovery = discovery == null ? DiscoveryMode.FILES : discovery;
    lookback = lookback == null ? LOOKBACK_DEFAULT : lookback;
    if (lookback.isNegative()) {
      throw new InvalidDocumentException("lookback", lookback, "must not be negative");
    }
    if (!Double.isFinite(maxInvalidRatio) || maxInvalidRatio < 0 || maxInvalidRatio > 1) {
      throw new InvalidDocumentException(
          "maxInvalidRatio", maxInvalidRatio, "must be between 0 and 1");
    }
    futureTolerance = futureTolerance == null ? FUTURE_TOLERANCE_DEFAULT : futureTolerance;
    if (futureTolerance.isNegative()) {
      throw new InvalidDocumentException(
          "futureTolerance", futureTolerance, "must not be negative");
    }
    Checks.nonBlank("stateRoot", stateRoot);
    stateRoot = LocalPaths.absolute(stateRoot);
    cloudWatch = cloudWatch == null ? Optional.empty() : cloudWatch;
    events = events == null ? Optional.empty() : events;
    lineage = lineage == null ? Optional.empty() : lineage;
    publish = publish == null ? VerifiedPublish.OFF : publish;
    if (runId != null) {
      Checks.name("runId", runId);
    }
    clock = clock == null ? Clock.systemUTC() : clock;
    leaseTtl = leaseTtl == null ? LEASE_TTL_DEFAULT : leaseTtl;
    if (leaseTtl.isNegative() || (!leaseTtl.isZero() && leaseTtl.compareTo(LEASE_TTL_MIN) < 0)) {
      throw new InvalidDocumentException(
          "leaseTtl", leaseTtl, "must be 0 (no lease) or at least " + LEASE_TTL_MIN);
    }
    operator = operator == null ? OperatorOptions.NONE : operator;
    operator.checkFor(mode);
  }

  /** The tombstone table, checked: the three tables are different, in one namespace each. */
  private static String checkedTombstoneTable(DatasetContract dataset, String tombstoneTable) {
    String tombstones =
        Checks.qualifiedIdentifier(
            "tombstoneTable", tombstoneTable == null ? dataset.tombstoneTable() : tombstoneTable);
    if (dataset.curatedTable().split("\\.").length != 2) {
      throw new InvalidDocumentException(
          "table", dataset.curatedTable(), "must be namespace.table (e.g. curated.customers)");
    }
    if (tombstones.equals(dataset.curatedTable())
        || tombstones.equals(dataset.quarantineTable())
        || dataset.quarantineTable().equals(dataset.curatedTable())) {
      throw new InvalidDocumentException(
          "tombstoneTable",
          tombstones,
          "curated, quarantine and tombstone tables must be three different tables");
    }
    return tombstones;
  }

  /** Settings with every default: incremental, files discovery, metrics off. */
  public static IngestSettings of(DatasetContract dataset, CatalogSpec catalog, String stateRoot) {
    return new IngestSettings(
        dataset,
        catalog,
        null,
        null,
        null,
        null,
        MAX_INVALID_RATIO_DEFAULT,
        null,
        stateRoot,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        null);
  }

  /** The same settings in a mode without operator options (incremental, full refresh, sweep). */
  public IngestSettings withMode(IngestMode m) {
    return withOperator(m, OperatorOptions.NONE);
  }

  /** A backfill of the raw partitions from {@code from} to {@code to}, both inclusive. */
  public IngestSettings backfill(java.time.LocalDate from, java.time.LocalDate to) {
    return with(
        c -> {
          c.mode = IngestMode.BACKFILL;
          c.operator = OperatorOptions.backfill(from, to);
        });
  }

  /** The same settings in another mode with its operator options (NONE for the plain modes). */
  public IngestSettings withOperator(IngestMode m, OperatorOptions o) {
    return with(
        c -> {
          c.mode = m;
          c.operator = o;
        });
  }

  public IngestSettings withDiscovery(DiscoveryMode d) {
    return with(c -> c.discovery = d);
  }

  public IngestSettings withLookback(Duration l) {
    return with(c -> c.lookback = l);
  }

  public IngestSettings withMaxInvalidRatio(double r) {
    return with(c -> c.maxInvalidRatio = r);
  }

  public IngestSettings withCloudWatch(CloudWatchPublisher.Settings s) {
    return with(c -> c.cloudWatch = Optional.ofNullable(s));
  }

  public IngestSettings withEvents(RunEvents.Settings s) {
    return with(c -> c.events = Optional.ofNullable(s));
  }

  public IngestSettings withLineage(RunLineage.Settings s) {
    return with(c -> c.lineage = Optional.ofNullable(s));
  }

  public IngestSettings withPublish(VerifiedPublish p) {
    return with(c -> c.publish = p);
  }

  public IngestSettings withClock(Clock c) {
    return with(x -> x.clock = c);
  }

  /** The curated table's name in Spark SQL: {@code <catalog>.<namespace>.<table>}. */
  public String curatedSparkName() {
    return catalog.name() + "." + dataset.curatedTable();
  }

  public String quarantineSparkName() {
    return catalog.name() + "." + dataset.quarantineTable();
  }

  public String tombstoneSparkName() {
    return catalog.name() + "." + tombstoneTable;
  }

  public IngestSettings withLeaseTtl(Duration ttl) {
    return with(c -> c.leaseTtl = ttl);
  }

  private IngestSettings with(java.util.function.Consumer<Copy> change) {
    Copy c = new Copy(this);
    change.accept(c);
    return c.build();
  }

  /** The settings' values, to change one and build new settings from them. */
  private static final class Copy {
    final DatasetContract dataset;
    final CatalogSpec catalog;
    final String tombstoneTable;
    IngestMode mode;
    DiscoveryMode discovery;
    Duration lookback;
    double maxInvalidRatio;
    final Duration futureTolerance;
    final String stateRoot;
    Optional<CloudWatchPublisher.Settings> cloudWatch;
    Optional<RunEvents.Settings> events;
    Optional<RunLineage.Settings> lineage;
    VerifiedPublish publish;
    final String runId;
    Clock clock;
    Duration leaseTtl;
    OperatorOptions operator;

    Copy(IngestSettings s) {
      dataset = s.dataset;
      catalog = s.catalog;
      tombstoneTable = s.tombstoneTable;
      mode = s.mode;
      discovery = s.discovery;
      lookback = s.lookback;
      maxInvalidRatio = s.maxInvalidRatio;
      futureTolerance = s.futureTolerance;
      stateRoot = s.stateRoot;
      cloudWatch = s.cloudWatch;
      events = s.events;
      lineage = s.lineage;
      publish = s.publish;
      runId = s.runId;
      clock = s.clock;
      leaseTtl = s.leaseTtl;
      operator = s.operator;
    }

    IngestSettings build() {
      return new IngestSettings(
          dataset,
          catalog,
          tombstoneTable,
          mode,
          discovery,
          lookback,
          maxInvalidRatio,
          futureTolerance,
          stateRoot,
          cloudWatch,
          events,
          lineage,
          publish,
          runId,
          clock,
          leaseTtl,
          operator);
    }
  }
}
