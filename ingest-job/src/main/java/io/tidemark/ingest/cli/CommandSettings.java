package io.tidemark.ingest.cli;

import io.tidemark.ingest.audit.HeldBatch;
import io.tidemark.ingest.audit.HttpBranchAudit;
import io.tidemark.ingest.audit.VerifiedPublish;
import io.tidemark.ingest.config.Durations;
import io.tidemark.ingest.config.IngestSettings;
import io.tidemark.ingest.config.OperatorOptions;
import io.tidemark.ingest.metrics.CloudWatchPublisher;
import io.tidemark.ingest.metrics.RunEvents;
import io.tidemark.ingest.metrics.RunLineage;
import io.tidemark.model.config.CatalogSpec;
import io.tidemark.model.contract.ContractException;
import io.tidemark.model.contract.ContractFile;
import io.tidemark.model.contract.DatasetContract;
import io.tidemark.model.json.InvalidDocumentException;
import io.tidemark.model.report.DiscoveryMode;
import io.tidemark.model.report.IngestMode;
import java.net.URI;
import java.time.Duration;
import java.time.LocalDate;
import java.time.format.DateTimeParseException;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * The settings a command line's options make, built and validated group by group, in the order the
 * options are checked; an error names the option (or config key) and its value.
 */
final class CommandSettings {
  /**
   * The state root of a --check run without one: never written (the check makes no report, lease or
   * table), only there because settings always carry one.
   */
  static final String CHECK_STATE_ROOT = System.getProperty("java.io.tmpdir");

  private final IngestCommand o;

  CommandSettings(IngestCommand options) {
    this.o = options;
  }

  IngestSettings build() {
    ContractFile contract = contract();
    // --check writes nothing, so it needs no state root; a run does.
    String stateRoot = o.check && o.stateRoot == null ? CHECK_STATE_ROOT : o.stateRoot;
    require("--state-root", stateRoot);
    DatasetContract spec = contract == null ? DatasetFlags.declared(o) : fromContract(contract);
    CatalogSpec catalog = catalog(contract);
    Duration lookback =
        option("--lookback", o.lookback, () -> Durations.parse("lookback", o.lookback));
    Duration lease = option("--lease-ttl", o.leaseTtl, this::leaseTtl);
    Duration futureTolerance =
        option(
            "--future-tolerance",
            o.futureTolerance,
            () -> Durations.parse("future-tolerance", o.futureTolerance));
    IngestMode mode = option("--mode", o.mode, this::mode);
    OperatorOptions operator = operator();
    DiscoveryMode discovery = option("--discovery", o.discovery, this::discovery);
    Optional<CloudWatchPublisher.Settings> cloudWatch = cloudWatch();
    Optional<RunEvents.Settings> events = events();
    Optional<RunLineage.Settings> lineage = lineage();
    VerifiedPublish publish = option(null, null, this::publish);
    return option(
        fieldOption(null),
        null,
        () ->
            new IngestSettings(
                spec,
                catalog,
                o.tombstoneTable,
                mode,
                discovery,
                lookback,
                o.maxInvalidRatio,
                futureTolerance,
                stateRoot,
                cloudWatch,
                events,
                lineage,
                publish,
                o.runId,
                null,
                lease,
                operator));
  }

  /** The --contract file, loaded and checked; null without one. */
  private ContractFile contract() {
    if (o.contract == null || o.contract.isBlank()) {
      return null;
    }
    try {
      return ContractSource.load(o.contract.trim());
    } catch (ContractException e) {
      throw new InvalidDocumentException(e.getMessage(), "--contract", e);
    }
  }

  /**
   * The --dataset of the contract (the only one when the contract names one and --dataset is not
   * given), with this run's overrides: --raw-root/--raw-location, --table, --quarantine-table,
   * --pipeline. The flags that declare a dataset are the contract's to say.
   */
  private DatasetContract fromContract(ContractFile file) {
    DatasetFlags.refuseDeclarations(o);
    String name = o.dataset;
    if (name == null || name.isBlank()) {
      if (file.datasets().size() != 1) {
        throw new InvalidDocumentException(
            "Missing required option '--dataset': contract "
                + o.contract
                + " declares "
                + file.datasets().keySet()
                + "; name the one to ingest",
            "--dataset",
            (Throwable) null);
      }
      name = file.datasets().keySet().iterator().next();
    }
    DatasetContract d;
    try {
      d = file.dataset(name);
    } catch (ContractException e) {
      throw new InvalidDocumentException(e.getMessage(), "--dataset", e);
    }
    return option(null, null, () -> DatasetFlags.overridden(o, d));
  }

  /**
   * The catalog: the one --catalog-property or --warehouse define, else the contract's, else an
   * error naming --warehouse.
   */
  private CatalogSpec catalog(ContractFile contract) {
    if (o.catalogProperties.isEmpty()
        && o.warehouse == null
        && contract != null
        && contract.catalog().isPresent()) {
      CatalogSpec c = contract.catalog().get();
      return o.catalogName == null ? c : new CatalogSpec(o.catalogName, c.properties());
    }
    boolean embedded = o.catalogProperties.isEmpty();
    return option(
        embedded ? "--warehouse" : "--catalog-property",
        embedded ? o.warehouse : o.catalogProperties,
        () -> {
          if (embedded) {
            require("--warehouse", o.warehouse);
            CatalogSpec local = CatalogSpec.localJdbc(o.warehouse);
            return new CatalogSpec(o.catalogName, local.properties());
          }
          if (!o.catalogProperties.containsKey("type")
              && !o.catalogProperties.containsKey("catalog-impl")) {
            // Iceberg would fall back to a Hive metastore, which the job does not ship.
            throw new IllegalArgumentException(
                "Cannot build the catalog: no catalog type; add type=glue, type=rest,"
                    + " type=hadoop or catalog-impl=CLASS");
          }
          Map<String, String> props = new LinkedHashMap<>(o.catalogProperties);
          if (o.warehouse != null) {
            props.putIfAbsent("warehouse", o.warehouse);
          }
          return new CatalogSpec(o.catalogName, props);
        });
  }

  private Duration leaseTtl() {
    return o.leaseTtl != null && o.leaseTtl.trim().equals("0")
        ? Duration.ZERO
        : Durations.parse("lease-ttl", o.leaseTtl);
  }

  private IngestMode mode() {
    return switch (o.mode.toLowerCase(Locale.ROOT)) {
      case "incremental" -> IngestMode.INCREMENTAL;
      case "full-refresh", "full_refresh" -> IngestMode.FULL_REFRESH;
      case "backfill" -> IngestMode.BACKFILL;
      case "replay-quarantine", "replay_quarantine" -> IngestMode.REPLAY_QUARANTINE;
      case "sweep" -> IngestMode.SWEEP;
      case "maintain" -> IngestMode.MAINTAIN;
      default ->
          throw new InvalidDocumentException(
              "mode",
              o.mode,
              "must be incremental, full-refresh, backfill, replay-quarantine, sweep or maintain");
    };
  }

  /** A backfill's range and a replay's selection. */
  private OperatorOptions operator() {
    LocalDate from = option("--from", o.from, () -> date("from", o.from));
    LocalDate to = option("--to", o.to, () -> date("to", o.to));
    return option(
        fieldOption(null),
        null,
        () ->
            new OperatorOptions(
                from,
                to,
                o.reason,
                o.batchId,
                o.file,
                o.dryRun,
                o.retainSnapshots == null
                    ? null
                    : Durations.parse("retain-snapshots", o.retainSnapshots),
                o.orphanAge == null ? null : Durations.parse("orphan-age", o.orphanAge)));
  }

  private DiscoveryMode discovery() {
    return switch (o.discovery.toLowerCase(Locale.ROOT)) {
      case "files" -> DiscoveryMode.FILES;
      case "watermark" -> DiscoveryMode.WATERMARK;
      default ->
          throw new InvalidDocumentException(
              "discovery", o.discovery, "must be files or watermark");
    };
  }

  /** The publisher's settings when metrics are on: on by themselves with an endpoint. */
  private Optional<CloudWatchPublisher.Settings> cloudWatch() {
    if (!o.cloudWatch && o.cloudWatchEndpoint == null) {
      return Optional.empty();
    }
    return Optional.of(
        option("--cloudwatch-endpoint", o.cloudWatchEndpoint, this::cloudWatchSettings));
  }

  private CloudWatchPublisher.Settings cloudWatchSettings() {
    CloudWatchPublisher.Settings base =
        CloudWatchPublisher.Settings.defaults().withNamespace(o.cloudWatchNamespace);
    if (o.cloudWatchRegion != null) {
      base = base.withRegion(o.cloudWatchRegion);
    }
    if (o.cloudWatchEndpoint != null) {
      base = base.withEndpoint(endpoint("cloudwatch-endpoint", o.cloudWatchEndpoint));
    }
    return base;
  }

  /** Where the run's event goes when events are on: on by themselves with an endpoint. */
  private Optional<RunEvents.Settings> events() {
    if (!o.events && o.eventsEndpoint == null) {
      return Optional.empty();
    }
    return Optional.of(option("--events-endpoint", o.eventsEndpoint, this::eventSettings));
  }

  private RunEvents.Settings eventSettings() {
    RunEvents.Settings s =
        RunEvents.Settings.defaults()
            .withBus(o.eventsBus)
            .withRegion(o.eventsRegion)
            .withDeployment(o.deployment);
    if (o.eventsEndpoint != null) {
      s = s.withEndpoint(endpoint("events-endpoint", o.eventsEndpoint));
    }
    return s;
  }

  /** Where the run's OpenLineage event goes: on with a URL or a file, not both. */
  private Optional<RunLineage.Settings> lineage() {
    if (o.openLineageUrl == null && o.openLineageFile == null) {
      return Optional.empty();
    }
    if (o.openLineageUrl != null && o.openLineageFile != null) {
      throw new InvalidDocumentException(
          "openlineage-file",
          o.openLineageFile,
          "give --openlineage-url or --openlineage-file, not both");
    }
    RunLineage.Settings s =
        o.openLineageUrl != null
            ? RunLineage.Settings.http(endpoint("openlineage-url", o.openLineageUrl))
                .withApiKey(System.getenv(OPENLINEAGE_API_KEY_VARIABLE))
            : RunLineage.Settings.file(o.openLineageFile);
    return Optional.of(s.withNamespace(o.openLineageNamespace));
  }

  /** Verified publish: the reconciler that audits the run's branch, and the held-batch choice. */
  private VerifiedPublish publish() {
    HeldBatch held = HeldBatch.REFUSE;
    if (o.heldBatch != null && !o.heldBatch.isBlank()) {
      held =
          switch (o.heldBatch.trim().toLowerCase(Locale.ROOT)) {
            case "retry" -> HeldBatch.RETRY;
            case "discard" -> HeldBatch.DISCARD;
            default ->
                throw new InvalidDocumentException(
                    "--held-batch", o.heldBatch, "must be retry or discard");
          };
    }
    if (o.verifiedPublish == null || o.verifiedPublish.isBlank()) {
      if (held == HeldBatch.RETRY) {
        throw new InvalidDocumentException(
            "--held-batch",
            o.heldBatch,
            "retry audits the held batch again: give --verified-publish with the reconciler's URL");
      }
      return VerifiedPublish.OFF.onHeld(held);
    }
    URI url = endpoint("--verified-publish", o.verifiedPublish.trim());
    if (url.getUserInfo() != null) {
      throw new InvalidDocumentException(
          "--verified-publish",
          url.getHost(),
          "must not carry credentials: the API key goes in $" + HttpBranchAudit.API_KEY_ENV);
    }
    String key = reconcilerApiKey();
    Duration timeout =
        option(
            "--audit-timeout",
            o.auditTimeout,
            () -> Durations.parse("audit-timeout", o.auditTimeout));
    return VerifiedPublish.by(new HttpBranchAudit(url, key.trim(), timeout), url.toString())
        .onHeld(held);
  }

  /**
   * The reconciler's API key: from {@code --reconciler-api-key-file} (where a job cannot be given
   * an environment, as on Glue: a file on S3 its role may read), else from the environment. The key
   * itself is never put in a message.
   */
  private String reconcilerApiKey() {
    String key;
    if (o.reconcilerApiKeyFile != null && !o.reconcilerApiKeyFile.isBlank()) {
      String location = o.reconcilerApiKeyFile.trim();
      try {
        key = ContractSource.read(location).strip();
      } catch (java.io.IOException | RuntimeException e) {
        throw new InvalidDocumentException(
            "--reconciler-api-key-file",
            location,
            "cannot be read: " + e.getClass().getSimpleName());
      }
      // An editor's byte order mark is no part of the key.
      key = key.replace("\uFEFF", "");
      if (key.isEmpty() || key.contains("\n")) {
        throw new InvalidDocumentException(
            "--reconciler-api-key-file", location, "must hold the API key alone, on one line");
      }
      if (!headerSafe(key)) {
        throw new InvalidDocumentException("--reconciler-api-key-file", location, KEY_CHARACTERS);
      }
      return key;
    }
    key = System.getenv(HttpBranchAudit.API_KEY_ENV);
    if (key == null || key.isBlank()) {
      throw new InvalidDocumentException(
          "--verified-publish",
          o.verifiedPublish,
          "the reconciler's API key must be in $"
              + HttpBranchAudit.API_KEY_ENV
              + " or in the file --reconciler-api-key-file names");
    }
    key = key.strip();
    if (!headerSafe(key)) {
      throw new InvalidDocumentException(
          "--verified-publish", "$" + HttpBranchAudit.API_KEY_ENV, KEY_CHARACTERS);
    }
    return key;
  }

  /** What a key may hold (the message never shows the key). */
  private static final String KEY_CHARACTERS =
      "the API key must be visible ASCII characters only (no spaces or control characters), as an"
          + " HTTP header carries it";

  /** Whether a key fits in an HTTP header as it is: visible ASCII only. */
  static boolean headerSafe(String key) {
    return key.chars().allMatch(c -> c > 0x20 && c < 0x7F);
  }

  /** The environment variable that holds the OpenLineage endpoint's bearer token. */
  static final String OPENLINEAGE_API_KEY_VARIABLE = "TIDEMARK_OPENLINEAGE_API_KEY";

  private static URI endpoint(String field, String text) {
    URI uri;
    try {
      uri = URI.create(text);
    } catch (IllegalArgumentException e) {
      throw new InvalidDocumentException(field, text, "not an http(s) URL");
    }
    if (uri.getScheme() == null || !uri.getScheme().matches("https?") || uri.getHost() == null) {
      throw new InvalidDocumentException(field, text, "not an http(s) URL");
    }
    return uri;
  }

  private static LocalDate date(String field, String text) {
    if (text == null || text.isBlank()) {
      return null;
    }
    try {
      return LocalDate.parse(text.trim());
    } catch (DateTimeParseException e) {
      throw new InvalidDocumentException(field, text, "not a date YYYY-MM-DD");
    }
  }

  static void require(String option, Object value) {
    if (value == null || (value instanceof String s && s.isBlank())) {
      throw new InvalidDocumentException(
          "Missing required option '" + option + "' (or config key '" + option.substring(2) + "')",
          option,
          (Throwable) null);
    }
  }

  /** Runs a builder step; a record's complaint is re-said with the option that caused it. */
  static <T> T option(String option, Object value, Supplier<T> step) {
    try {
      return step.get();
    } catch (InvalidDocumentException e) {
      if (e.getMessage().startsWith("Missing required option")) {
        throw e;
      }
      String opt = option != null ? option : fieldOption(e.field());
      throw new InvalidDocumentException(
          "Invalid value for option '" + opt + "': " + e.getMessage(), opt, e);
    } catch (IllegalArgumentException e) {
      String opt = option != null ? option : "?";
      throw new InvalidDocumentException(
          "Invalid value for option '" + opt + "' (" + value + "): " + e.getMessage(), opt, e);
    }
  }

  /** The option that feeds a contract record's field. */
  static String fieldOption(String field) {
    if (field == null) {
      return null;
    }
    String f = field.replaceAll("\\[.*", "");
    return switch (f) {
      case "name" -> "--dataset";
      case "pipeline" -> "--pipeline";
      case "keyColumns" -> "--key-columns";
      case "column", "changeMarker.column", "changeMarker" -> "--change-marker";
      case "operationColumn" -> "--operation-column";
      case "comparedColumns" -> "--payload-columns";
      case "curatedTable", "table" -> "--table";
      case "quarantineTable" -> "--quarantine-table";
      case "tombstoneTable" -> "--tombstone-table";
      case "maxInvalidRatio" -> "--max-invalid-ratio";
      case "stateRoot" -> "--state-root";
      case "runId" -> "--run-id";
      case "leaseTtl" -> "--lease-ttl";
      case "location" -> "--raw-root";
      case "columns" -> "--payload-columns";
      case "partitionColumn" -> "--partition-column";
      case "from" -> "--from";
      case "to" -> "--to";
      case "reason" -> "--reason";
      case "batchId" -> "--batch-id";
      case "file" -> "--file";
      case "dryRun" -> "--dry-run";
      case "retainSnapshots" -> "--retain-snapshots";
      case "orphanAge" -> "--orphan-age";
      default -> field;
    };
  }
}
