package io.tidemark.reconcile.config;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import io.smallrye.config.WithName;
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
  String STATE_ROOT_DEFAULT = "state";

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

  /**
   * The dataset contract: a contract file ({@code .yaml}, {@code .yml} or {@code .json}) or a
   * folder of them, a local path or an {@code s3://} URI (read with the S3 client of {@code
   * tidemark.athena.region} and {@code endpoint}). Required: its datasets are the datasets this
   * deployment reconciles, every one of them. A contract that cannot load stops the start with the
   * file, the key and the value.
   */
  Optional<String> contract();

  /**
   * The Iceberg catalog of every dataset; default: the catalog section of the dataset's contract
   * file. One of the two is required.
   */
  Catalog catalog();

  /** Per-dataset service settings, by dataset name: only the engine (see {@link DatasetConfig}). */
  Map<String, DatasetConfig> datasets();

  /** Local evaluation of the alarm definitions of {@code alerts/}. */
  Alarms alarms();

  /** Micrometer's CloudWatch registry. */
  CloudWatch cloudwatch();

  /** Amazon EventBridge: an event for every finished reconciliation. */
  Events events();

  /** OpenLineage: every finished reconciliation as a run event with data quality assertions. */
  @WithName("openlineage")
  Lineage lineage();

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

  /**
   * A deployment's settings of one dataset of the contract. The dataset itself (its columns, key,
   * raw location and layout, tables, rules and schedule) is the contract's: only the engine is a
   * service setting. The other methods name the keys that were dataset settings before contracts,
   * so that a service given one refuses to start pointing at the contract instead of ignoring it.
   */
  interface DatasetConfig {
    /** The engine for this dataset; default: {@code tidemark.engine}. */
    Optional<String> engine();

    /** Refused: the contract's {@code pipeline}. */
    Optional<String> pipeline();

    /** Refused: the contract's {@code key-columns}. */
    Optional<List<String>> keyColumns();

    /** Refused: the contract's {@code change-marker}. */
    Map<String, String> changeMarker();

    /** Refused: the contract's {@code operation}. */
    Optional<String> operationColumn();

    /** Refused: the contract's {@code compared-columns}. */
    Optional<List<String>> comparedColumns();

    /** Refused: the contract's {@code raw}. */
    Map<String, String> raw();

    /** Refused: the contract's {@code curated.table}. */
    Optional<String> curatedTable();

    /** Refused: the contract's {@code quarantine-table}. */
    Optional<String> quarantineTable();

    /** Refused: the contract's {@code catalog}, or {@code tidemark.catalog}. */
    Map<String, String> catalog();

    /** Refused: the contract's {@code reconcile.schedule}. */
    Optional<String> cron();

    /** Refused: the contract's {@code reconcile.schedule-mode}. */
    Optional<String> scheduleMode();

    /** Refused: the contract's {@code reconcile.future-tolerance}. */
    Optional<String> futureTolerance();

    /** Refused: the contract's {@code reconcile.unprocessed-file-grace}. */
    Optional<String> unprocessedFileGrace();

    /** Refused: the raw table is the contract's ({@code <dataset>_raw}). */
    Optional<String> rawTable();

    /** Refused: the contract's {@code reconcile.rules}. */
    Map<String, Map<String, String>> rules();
  }

  /** The Iceberg catalog. */
  interface Catalog {
    /** The catalog's name; default {@value ContractDefaults#CATALOG_NAME}. */
    Optional<String> name();

    /**
     * The warehouse. A local folder is the embedded default catalog's: a JDBC catalog on {@code
     * <warehouse>/catalog.db}, which must exist at start-up (the ingest job creates it; the
     * reconciler never does). An {@code s3://} warehouse is the Glue Data Catalog's: {@code
     * properties.type} defaults to {@code glue} (so {@code TIDEMARK_CATALOG_WAREHOUSE=s3://...}
     * alone configures it). When {@code properties} names a catalog type or impl, it is passed on
     * as the {@code warehouse} property. A relative local path is resolved against the folder the
     * service starts in, once, at start; a catalog that records a table at a relative location
     * stops the start.
     */
    Optional<String> warehouse();

    /** Iceberg catalog properties; they override those derived from {@code warehouse}. */
    Map<String, String> properties();
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

  interface Lineage {
    /**
     * An OpenLineage HTTP endpoint's base URL (e.g. Marquez's {@code http://marquez:5000}); each
     * event is POSTed to it plus {@code endpoint}. Set it or {@code file} to turn lineage on.
     */
    Optional<URI> url();

    /** The path under {@code url} events go to. */
    @WithDefault("/api/v1/lineage")
    String endpoint();

    /** A bearer token for {@code url} (sent as {@code Authorization: Bearer}). Never logged. */
    Optional<String> apiKey();

    /** A local file each event is appended to as one JSON line, instead of {@code url}. */
    Optional<String> file();

    /** The namespace of the reconciliation jobs, e.g. the deployment's name. */
    @WithDefault("tidemark")
    String namespace();
  }

  interface Events {
    /**
     * Put a {@code Tidemark Reconciliation Finished} event (source {@code tidemark}) on the bus
     * when a reconciliation finishes.
     */
    @WithDefault("false")
    boolean enabled();

    /** The event bus, by name or ARN. */
    @WithDefault("default")
    String bus();

    /**
     * The deployment's name, put in every event's detail ({@code deployment}) so that the rules of
     * several deployments on one account's bus each match their own; the stack sets it.
     */
    Optional<String> deployment();

    /** An endpoint override, e.g. a local emulator; default: the SDK's endpoint for the region. */
    Optional<URI> endpoint();

    /** The region; default: the SDK's region provider chain. */
    Optional<String> region();

    /** A static access key id (for an emulator); default: the SDK's credential chain. */
    Optional<String> accessKeyId();

    /** The static secret key that goes with {@code access-key-id}. Never logged. */
    Optional<String> secretAccessKey();
  }
}
