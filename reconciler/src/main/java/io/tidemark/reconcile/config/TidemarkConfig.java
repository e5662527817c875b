package io.tidemark.reconcile.config;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import io.tidemark.model.contract.ContractDefaults;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The reconciler's configuration, under {@code tidemark.}. Unknown keys under the prefix are
 * rejected at start-up; values that break the data contract fail start-up with a message naming the
 * key (see {@link ReconcilerSettings#from}).
 */
@ConfigMapping(prefix = "tidemark")
public interface TidemarkConfig {
  String ENGINE_DEFAULT = "duckdb";
  String CRON_DEFAULT = "0 0 2 * * ?";
  String STATE_ROOT_DEFAULT = "state";
  String FUTURE_TOLERANCE_DEFAULT = ContractDefaults.FUTURE_TOLERANCE_TEXT;
  String UNPROCESSED_FILE_GRACE_DEFAULT = "PT6H";
  String SCHEDULE_MODE_DEFAULT = "full";

  /** The query engine every dataset uses unless it names its own: {@code duckdb}. */
  @WithDefault(ENGINE_DEFAULT)
  String engine();

  /**
   * Where reports live: reconciliation reports under {@code _reconciliation/}, ingest run reports
   * (written by the ingest job) under {@code _runs/}. A local folder, or {@code s3://bucket/prefix}
   * (reports are then created with conditional writes, so two replicas never overwrite one). A
   * relative folder is resolved against the folder the service starts in, once, at start.
   */
  @WithDefault(STATE_ROOT_DEFAULT)
  String stateRoot();

  /**
   * API keys accepted in the {@code X-API-Key} header: at least 8 printable ASCII characters, no
   * white space at either end (HTTP trims header values, so such a key could never match). Never
   * logged; a bad one is named by its position.
   */
  Optional<List<String>> apiKeys();

  /** Who may call the REST API. */
  Api api();

  /** The datasets to reconcile, by name. */
  Map<String, DatasetConfig> datasets();

  /** Local evaluation of the alarm definitions of {@code alerts/}. */
  Alarms alarms();

  /** Micrometer's CloudWatch registry. */
  CloudWatch cloudwatch();

  /** Amazon Athena: the engine of the datasets whose engine is {@code athena}. */
  Athena athena();

  /** Access to the REST API. */
  interface Api {
    /**
     * Whether the GET endpoints under {@code /api} (raw locations, sample keys) need an API key in
     * {@code X-API-Key}, as writes always do. Default: on when {@code quarkus.http.host} is beyond
     * loopback, off on loopback (the default host, 127.0.0.1). {@code /q/health} stays open.
     */
    Optional<Boolean> protectReads();

    /**
     * The host names the service answers to, as the {@code Host} header carries them: a name, an
     * IPv4 address or a bracketed IPv6 address, with {@code :port} to allow that port only; {@code
     * *} allows any. A request naming another host gets 421 (a DNS-rebinding page names its own),
     * except {@code /q/health}, which load balancers probe by address. Behind a load balancer or on
     * a task's address, list the names clients use ({@code TIDEMARK_API_ALLOWED_HOSTS}).
     */
    @WithDefault(ALLOWED_HOSTS_DEFAULT)
    List<String> allowedHosts();
  }

  /** The loopback names, each with any port. */
  String ALLOWED_HOSTS_DEFAULT = "localhost,127.0.0.1,[::1]";

  /** One dataset: its data contract, catalog, rules and schedule. */
  interface DatasetConfig {
    /** The pipeline the dataset belongs to (the CloudWatch {@code Pipeline} dimension). */
    @WithDefault("default")
    String pipeline();

    /** The business key columns. */
    @WithDefault("customer_id")
    List<String> keyColumns();

    /** The column ordering versions of a key. */
    ChangeMarkerConfig changeMarker();

    /** The operation column ({@code U}/{@code D}); {@code none} when the source only upserts. */
    @WithDefault("op")
    String operationColumn();

    /**
     * Payload columns whose values are compared (hashed) between raw and curated. Required while
     * the dataset has a {@code value_mismatches} rule (a default one): comparing no column could
     * only ever pass, so the start fails instead.
     */
    Optional<List<String>> comparedColumns();

    /** Where the raw files land. */
    Raw raw();

    /** The curated Iceberg table, {@code namespace.table}. */
    String curatedTable();

    /** The quarantine Iceberg table; default {@code <curated-table>_quarantine}. */
    Optional<String> quarantineTable();

    /** The Iceberg catalog holding the curated table. */
    Catalog catalog();

    /**
     * When the scheduled reconciliation runs (Quartz cron, seconds first); {@code off} for never.
     */
    @WithDefault(CRON_DEFAULT)
    String cron();

    /**
     * The mode of the scheduled reconciliation: {@code full} (default) or {@code window}. FULL
     * catches late files with old change markers and damage to rows that did not change; WINDOW is
     * cheaper (Athena bytes scanned) and only checks what changed since the last passed run. A
     * request to {@code POST /api/reconciliations} without a mode still runs WINDOW.
     */
    @WithDefault(SCHEDULE_MODE_DEFAULT)
    String scheduleMode();

    /**
     * How far past the reconciliation's start a timestamp change marker may lie (ISO-8601 duration,
     * e.g. {@code PT1H}, the default): a raw row with a later marker is invalid, as the ingest job
     * quarantines it (FUTURE_CHANGE_MARKER), so it neither counts as a version nor holds its key in
     * flight. Ignored for sequence markers.
     */
    @WithDefault(FUTURE_TOLERANCE_DEFAULT)
    Duration futureTolerance();

    /**
     * How old a raw file must be (by its modification time; ISO-8601 duration, {@code PT6H} by
     * default) before {@code unprocessed_files} expects a committed batch to have read it.
     */
    @WithDefault(UNPROCESSED_FILE_GRACE_DEFAULT)
    Duration unprocessedFileGrace();

    /** The engine for this dataset; default: {@code tidemark.engine}. */
    Optional<String> engine();

    /**
     * For the {@code athena} engine: the raw layer's external table ({@code [database.]table},
     * default {@code <tidemark.athena.database>.<dataset>_raw}); its DDL comes from {@code GET
     * /api/datasets/<dataset>/raw-table-ddl}. The curated table is {@code curated-table} as the
     * Glue Data Catalog names it.
     */
    Optional<String> rawTable();

    /**
     * Rules by id. Every rule kind runs with its defaults unless configured here; a configured id
     * equal to a kind's id overrides that kind's default rule, another id adds a rule.
     */
    Map<String, RuleConfig> rules();
  }

  /** The change marker. */
  interface ChangeMarkerConfig {
    /** Column name. */
    @WithDefault("updated_at")
    String column();

    /** {@code TIMESTAMP} (UTC) or {@code LONG} (a sequence). */
    @WithDefault("TIMESTAMP")
    String type();
  }

  /** The raw layer of one dataset. */
  interface Raw {
    /**
     * The dataset's raw folder: {@code <location>/<partition-column>=YYYY-MM-DD/*.parquet}. It must
     * exist at start-up (a local folder for the embedded engine); a relative folder is resolved
     * against the folder the service starts in, once, at start.
     */
    String location();

    /** The date partition's name. */
    @WithDefault(ContractDefaults.PARTITION_COLUMN)
    String partitionColumn();
  }

  /** The Iceberg catalog. */
  interface Catalog {
    /** The catalog's name. */
    @WithDefault(ContractDefaults.CATALOG_NAME)
    String name();

    /**
     * The warehouse. A local folder is the embedded default catalog's: a JDBC catalog on {@code
     * <warehouse>/catalog.db}, which must exist at start-up (the ingest job creates it; the
     * reconciler never does). An {@code s3://} warehouse is the Glue Data Catalog's: {@code
     * properties.type} defaults to {@code glue} (so {@code
     * TIDEMARK_DATASETS_<NAME>_CATALOG_WAREHOUSE=s3://...} alone configures it). When {@code
     * properties} names a catalog type or impl, it is passed on as the {@code warehouse} property.
     * A relative local path is resolved against the folder the service starts in, once, at start; a
     * catalog that records a table at a relative location stops the start.
     */
    Optional<String> warehouse();

    /** Iceberg catalog properties; they override those derived from {@code warehouse}. */
    Map<String, String> properties();
  }

  /** One configured rule. */
  interface RuleConfig {
    /** The rule kind; default: the rule's id. */
    Optional<String> kind();

    /** The rule fails when its observed value is greater; default: the kind's default. */
    Optional<Double> threshold();

    /** For {@code count_match}: {@code ABSOLUTE} (default) or {@code RATIO}. */
    Optional<String> tolerance();

    /** {@code CRITICAL} (default) or {@code WARNING}. */
    Optional<String> severity();

    /** How many offending keys a result carries, 1..1000. */
    Optional<Integer> sampleSize();

    /** {@code false} removes the rule (e.g. a default one). */
    @WithDefault("true")
    boolean enabled();
  }

  /** Local alarm evaluation. */
  interface Alarms {
    /**
     * The CloudFormation template with the alarm definitions; default: the copy of {@code
     * alerts/tidemark-alarms.json} bundled at build time.
     */
    Optional<Path> template();
  }

  /** Amazon Athena (engine v3). Required when a dataset's engine is {@code athena}. */
  interface Athena {
    /** The AWS region; default: the SDK's region provider chain. */
    Optional<String> region();

    /** An endpoint override, e.g. a local emulator; default: Athena's endpoint for the region. */
    Optional<URI> endpoint();

    /** The workgroup queries run in (its bytes-scanned limit and result location apply). */
    @WithDefault("primary")
    String workgroup();

    /** Where Athena writes query results, {@code s3://bucket/prefix/}; required. */
    Optional<String> outputLocation();

    /** The data catalog of the query context. */
    @WithDefault("AwsDataCatalog")
    String catalog();

    /** The Glue database of the query context: where unqualified table names are. Required. */
    Optional<String> database();

    /** How long one query may run before it is stopped and its rule reports ERROR. */
    @WithDefault("PT10M")
    Duration queryTimeout();

    /** The first wait between two status polls; waits double up to {@code poll-max}. */
    @WithDefault("PT0.25S")
    Duration pollInitial();

    /** The longest wait between two status polls. */
    @WithDefault("PT5S")
    Duration pollMax();

    /** Queries one reconciliation runs at once. */
    @WithDefault("4")
    int maxInFlight();

    /** How often one call is retried when Athena throttles it. */
    @WithDefault("5")
    int maxThrottleRetries();

    /** The price of a terabyte (2^40 bytes) scanned, in US dollars: reports carry the cost. */
    @WithDefault("5.0")
    double usdPerTb();
  }

  /** Micrometer's CloudWatch registry. */
  interface CloudWatch {
    /** Publish the catalogue metrics to CloudWatch. */
    @WithDefault("false")
    boolean enabled();

    /** An endpoint override, e.g. a local emulator; default: the SDK's endpoint for the region. */
    Optional<URI> endpoint();

    /** The region; default: the SDK's region provider chain. */
    Optional<String> region();

    /** The CloudWatch namespace. */
    @WithDefault("Tidemark")
    String namespace();

    /** How often the registry publishes. */
    @WithDefault("1m")
    Duration step();

    /** A static access key id (for an emulator); default: the SDK's credential chain. */
    Optional<String> accessKeyId();

    /** The static secret key that goes with {@code access-key-id}. Never logged. */
    Optional<String> secretAccessKey();
  }
}
