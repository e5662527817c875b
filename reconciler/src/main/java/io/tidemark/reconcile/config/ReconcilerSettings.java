package io.tidemark.reconcile.config;

import com.cronutils.model.CronType;
import com.cronutils.model.definition.CronDefinitionBuilder;
import com.cronutils.parser.CronParser;
import io.tidemark.model.config.CatalogSpec;
import io.tidemark.model.config.LocalPaths;
import io.tidemark.model.config.RuleKind;
import io.tidemark.model.config.RuleSpec;
import io.tidemark.model.contract.ContractFile;
import io.tidemark.model.contract.DatasetContract;
import io.tidemark.model.json.Checks;
import io.tidemark.model.json.InvalidDocumentException;
import io.tidemark.reconcile.engine.EngineNames;
import io.tidemark.reconcile.storage.RawFiles;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The validated form of {@link TidemarkConfig}: every dataset of the dataset contract ({@code
 * tidemark.contract}) with its catalog and engine. A service value that cannot work fails with an
 * {@link InvalidConfigException} naming the full key, e.g. {@code tidemark.api-keys[0]}; a contract
 * that cannot load, with the contract's file, key and value.
 *
 * @param stateRoot where reports live: a local folder or {@code s3://bucket/prefix}; a relative
 *     local folder is made absolute at start, as are a relative raw location and catalog warehouse
 *     (see {@link LocalPaths})
 * @param datasets the datasets by name, in name order
 * @param apiKeys the accepted API keys; never logged
 * @param protectReads whether the GET endpoints need an API key too
 * @param hosts the host names the service answers and the origins its API serves
 */
public record ReconcilerSettings(
    String stateRoot,
    Map<String, ReconciledDataset> datasets,
    List<String> apiKeys,
    boolean protectReads,
    HostPolicy hosts) {
  public static final String PREFIX = "tidemark.";

  /** The address the service listens on unless {@code quarkus.http.host} says otherwise. */
  public static final String LOOPBACK = "127.0.0.1";

  private static final String SQLITE = "jdbc:sqlite:";
  private static final java.util.regex.Pattern REMOTE =
      java.util.regex.Pattern.compile("^[A-Za-z][A-Za-z0-9+.-]*://.*");

  private static final CronParser QUARTZ_CRON =
      new CronParser(CronDefinitionBuilder.instanceDefinitionFor(CronType.QUARTZ));

  public ReconcilerSettings {
    datasets = java.util.Collections.unmodifiableMap(new TreeMap<>(datasets));
    apiKeys = List.copyOf(apiKeys);
  }

  /** Whether reports live on S3. */
  public boolean stateOnS3() {
    return stateRoot.startsWith("s3://");
  }

  @Override
  public String toString() {
    // Keys are secrets: never print them.
    return "ReconcilerSettings[stateRoot="
        + stateRoot
        + ", datasets="
        + datasets.keySet()
        + ", apiKeys="
        + apiKeys.size()
        + " configured, protectReads="
        + protectReads
        + ", allowedHosts="
        + hosts.allowed()
        + "]";
  }

  /**
   * Validates the whole configuration.
   *
   * @param engines the engine names available
   */
  public static ReconcilerSettings from(TidemarkConfig config, Set<String> engines) {
    return from(config, engines, LOOPBACK);
  }

  /**
   * Validates the whole configuration for a service listening on {@code httpHost}.
   *
   * @param engines the engine names available
   * @param httpHost {@code quarkus.http.host}: beyond loopback, reads need an API key unless {@code
   *     tidemark.api.protect-reads=false}
   */
  public static ReconcilerSettings from(
      TidemarkConfig config, Set<String> engines, String httpHost) {
    String engine = engine("engine", config.engine(), engines);
    Map<String, ReconciledDataset> datasets = datasets(config, engine, engines);
    List<String> keys = apiKeys(config.apiKeys().orElse(List.of()));
    if (config.cloudwatch().step().isNegative() || config.cloudwatch().step().isZero()) {
      throw new InvalidConfigException(
          PREFIX + "cloudwatch.step", config.cloudwatch().step(), "must be positive");
    }
    Checks.nonBlank("namespace", config.cloudwatch().namespace());
    boolean protectReads = config.api().protectReads().orElse(!isLoopback(httpHost));
    if (protectReads && keys.isEmpty()) {
      throw new InvalidConfigException(
          PREFIX + "api-keys",
          null,
          "is empty, yet the GET endpoints need a key ("
              + PREFIX
              + "api.protect-reads is "
              + (config.api().protectReads().isPresent()
                  ? "on"
                  : "on by default: quarkus.http.host is " + httpHost + ", beyond loopback")
              + "); configure a key or set "
              + PREFIX
              + "api.protect-reads=false");
    }
    if (datasets.values().stream().anyMatch(d -> EngineNames.ATHENA.equals(d.engine()))) {
      AthenaConfig.settings(config.athena());
    }
    String stateRoot = stateRoot(config.stateRoot());
    HostPolicy hosts = HostPolicy.of(config.api().allowedHosts());
    return new ReconcilerSettings(stateRoot, datasets, keys, protectReads, hosts);
  }

  /** The API keys, each checked; the values are secrets: errors name a key's position only. */
  private static List<String> apiKeys(List<String> keys) {
    for (int i = 0; i < keys.size(); i++) {
      String key = keys.get(i);
      if (key.isBlank() || key.length() < 8) {
        throw new InvalidConfigException(
            PREFIX + "api-keys[" + i + "]", null, "an API key must have at least 8 characters");
      }
      if (!key.equals(key.strip())) {
        throw new InvalidConfigException(
            PREFIX + "api-keys[" + i + "]",
            null,
            "an API key must not start or end with white space: HTTP trims header values, so it"
                + " could never match");
      }
      if (!key.chars().allMatch(ch -> ch >= 0x20 && ch < 0x7f)) {
        throw new InvalidConfigException(
            PREFIX + "api-keys[" + i + "]",
            null,
            "an API key must be printable ASCII: other characters do not survive an HTTP header");
      }
    }
    return keys;
  }

  /** The state root: a local folder made absolute, or an {@code s3://} URI. */
  private static String stateRoot(String value) {
    String stateRoot = value.trim();
    if (stateRoot.isEmpty()) {
      throw new InvalidConfigException(PREFIX + "state-root", stateRoot, "is empty");
    }
    if (REMOTE.matcher(stateRoot).matches() && !stateRoot.startsWith("s3://")) {
      throw new InvalidConfigException(
          PREFIX + "state-root", stateRoot, "must be a local folder or an s3://bucket/prefix URI");
    }
    // Resolved once, at start, like the catalog's warehouse: reports would otherwise be written
    // and read wherever the service happens to start.
    return LocalPaths.absolute(stateRoot);
  }

  /**
   * Checks that what the configuration points at is there, so a service that cannot work never
   * reports ready: each raw location is an existing folder the embedded engine can read, and each
   * embedded catalog (a SQLite JDBC catalog, e.g. derived from {@code catalog.warehouse}) already
   * exists. The reconciler only reads: opening a missing catalog would create an empty one, and
   * listing a missing raw location would report every curated key as unexpected.
   *
   * @return these settings
   * @throws InvalidConfigException naming the key of the first location that is not there
   */
  public ReconcilerSettings requireLocations() {
    for (ReconciledDataset d : datasets.values()) {
      requireRawLocation(ContractSource.KEY + " (datasets." + d.name() + ".raw.location)", d);
      requireCatalog(catalogKey(d), d);
    }
    return this;
  }

  private static void requireRawLocation(String key, ReconciledDataset d) {
    String location = d.spec().raw().location();
    boolean local = location.startsWith("file:") || !REMOTE.matcher(location).matches();
    if (!local) {
      if (TidemarkConfig.ENGINE_DEFAULT.equals(d.engine())) {
        throw new InvalidConfigException(
            key, location, "the embedded engine (duckdb) reads local files only");
      }
      return;
    }
    Path path = RawFiles.localPath(location);
    if (!Files.exists(path)) {
      throw new InvalidConfigException(key, location, "does not exist");
    }
    if (!Files.isDirectory(path)) {
      throw new InvalidConfigException(key, location, "is not a folder");
    }
    if (!Files.isReadable(path)) {
      throw new InvalidConfigException(key, location, "is not readable by the service");
    }
  }

  private static void requireCatalog(String prefix, ReconciledDataset d) {
    Map<String, String> props = d.catalog().properties();
    String uri = props.get("uri");
    if (uri == null || !uri.startsWith(SQLITE)) {
      return;
    }
    String warehouse = props.get("warehouse");
    boolean derived =
        warehouse != null && uri.equals(CatalogSpec.localJdbc(warehouse).properties().get("uri"));
    Path db = Path.of(uri.substring(SQLITE.length()).replaceFirst("[?].*$", ""));
    if (Files.isRegularFile(db)) {
      requireAbsoluteTableLocations(prefix, d, uri, derived ? "warehouse" : "properties.uri");
      return;
    }
    if (derived) {
      throw new InvalidConfigException(
          prefix + "warehouse",
          warehouse,
          Files.isDirectory(Path.of(warehouse))
              ? "holds no Iceberg catalog (no "
                  + db.getFileName()
                  + "): the ingest job creates it with the curated table"
              : "does not exist");
    }
    throw new InvalidConfigException(
        prefix + "properties.uri", uri, "names a SQLite catalog file that does not exist");
  }

  /**
   * Refuses an embedded catalog that records a table at a relative location, as an ingest job given
   * a relative {@code --warehouse} wrote before it resolved it: the table's metadata and files are
   * then found only by a process started in the folder that job ran in (else every rule fails to
   * open its metadata file). One query on the catalog's own table, read-only; a catalog database
   * without Iceberg's tables yet has nothing to check.
   */
  private static void requireAbsoluteTableLocations(
      String prefix, ReconciledDataset d, String uri, String key) {
    io.tidemark.reconcile.storage.IcebergTables.loadDriver("org.sqlite.JDBC");
    java.util.Properties open = new java.util.Properties();
    open.setProperty("open_mode", "1"); // SQLITE_OPEN_READONLY
    String first = null;
    String table = null;
    try (java.sql.Connection c = java.sql.DriverManager.getConnection(uri, open);
        java.sql.PreparedStatement st =
            c.prepareStatement(
                "SELECT table_namespace, table_name, metadata_location FROM iceberg_tables"
                    + " WHERE catalog_name = ? ORDER BY table_namespace, table_name")) {
      st.setString(1, d.catalog().name());
      try (java.sql.ResultSet rs = st.executeQuery()) {
        while (rs.next() && first == null) {
          String location = rs.getString(3);
          if (LocalPaths.isRelative(location)) {
            first = location;
            table = rs.getString(1) + "." + rs.getString(2);
          }
        }
      }
    } catch (java.sql.SQLException e) {
      // No iceberg_tables yet (a catalog the job has not written a table into), or not Iceberg's
      // layout: the table is then not found when a run loads it, with its own error.
      return;
    }
    if (first != null) {
      String value = "warehouse".equals(key) ? d.catalog().properties().get("warehouse") : uri;
      throw new InvalidConfigException(
          prefix + key,
          value,
          "its catalog records table "
              + table
              + " at the relative location '"
              + first
              + "' (written by an ingest job given a relative --warehouse), which each process"
              + " resolves against the folder it started in; rebuild the tables into a warehouse"
              + " named by an absolute path (the job's first run there loads every raw file)");
    }
  }

  /** Whether a listening address is loopback only: {@code localhost}, 127.0.0.0/8 or ::1. */
  public static boolean isLoopback(String host) {
    String h = host.trim().toLowerCase(Locale.ROOT);
    if (h.startsWith("[") && h.endsWith("]")) {
      h = h.substring(1, h.length() - 1);
    }
    return h.equals("localhost")
        || h.equals("::1")
        || h.equals("0:0:0:0:0:0:0:1")
        || h.matches("127(\\.(25[0-5]|2[0-4][0-9]|1?[0-9]?[0-9])){3}");
  }

  private static String engine(String key, String value, Set<String> engines) {
    String engine = value.trim().toLowerCase(Locale.ROOT);
    if (!engines.contains(engine)) {
      throw new InvalidConfigException(
          PREFIX + key, value, "unknown engine (known: " + new TreeSet<>(engines) + ")");
    }
    return engine;
  }

  /**
   * Every dataset of the contract, each with its catalog and engine; {@code tidemark.datasets.*}
   * may only choose engines, and only for datasets the contract declares.
   */
  private static Map<String, ReconciledDataset> datasets(
      TidemarkConfig config, String defaultEngine, Set<String> engines) {
    String location =
        config
            .contract()
            .map(String::trim)
            .filter(v -> !v.isEmpty())
            .orElseThrow(
                () ->
                    new InvalidConfigException(
                        ContractSource.KEY,
                        null,
                        "is required: the dataset contract file (or a folder of them, local or"
                            + " s3://) that declares the datasets to reconcile"));
    List<ContractFile> files =
        ContractSource.load(location, () -> AthenaConfig.s3Client(config.athena()));
    Map<String, ReconciledDataset> out = new LinkedHashMap<>();
    Map<String, String> sources = new HashMap<>();
    for (ContractFile file : files) {
      refuseDatasetSettings(config.datasets(), file);
      for (DatasetContract contract : file.datasets().values()) {
        String earlier = sources.putIfAbsent(contract.name(), file.source());
        if (earlier != null) {
          throw new InvalidConfigException(
              ContractSource.KEY,
              location,
              "dataset "
                  + contract.name()
                  + " is declared twice: in "
                  + earlier
                  + " and in "
                  + file.source());
        }
        out.put(contract.name(), dataset(config, file, contract, defaultEngine, engines));
      }
    }
    for (String name : config.datasets().keySet()) {
      if (!out.containsKey(name)) {
        throw new InvalidConfigException(
            PREFIX + "datasets." + name + ".engine",
            null,
            "names dataset "
                + name
                + ", which the contract does not declare (it declares "
                + new TreeSet<>(out.keySet())
                + ")");
      }
    }
    return out;
  }

  private static ReconciledDataset dataset(
      TidemarkConfig config,
      ContractFile file,
      DatasetContract contract,
      String defaultEngine,
      Set<String> engines) {
    String name = contract.name();
    String at = file.source() + ": datasets." + name + ".";
    requireComparedColumns(at, contract);
    cron(at + "reconcile.schedule", contract.reconcile().schedule());
    TidemarkConfig.DatasetConfig ds = config.datasets().get(name);
    String engine =
        ds != null && ds.engine().isPresent()
            ? engine("datasets." + name + ".engine", ds.engine().get(), engines)
            : defaultEngine;
    return new ReconciledDataset(contract, catalog(config.catalog(), file), engine);
  }

  /**
   * Refuses a {@code tidemark.datasets.<name>.*} setting other than the engine: it was a service
   * setting before contracts, and is now the contract's to declare.
   */
  private static void refuseDatasetSettings(
      Map<String, TidemarkConfig.DatasetConfig> settings, ContractFile file) {
    settings.forEach(
        (name, ds) -> {
          List<String> given = new ArrayList<>();
          ds.pipeline().ifPresent(v -> given.add("pipeline"));
          ds.keyColumns().ifPresent(v -> given.add("key-columns"));
          ds.operationColumn().ifPresent(v -> given.add("operation-column"));
          ds.comparedColumns().ifPresent(v -> given.add("compared-columns"));
          ds.curatedTable().ifPresent(v -> given.add("curated-table"));
          ds.quarantineTable().ifPresent(v -> given.add("quarantine-table"));
          ds.cron().ifPresent(v -> given.add("cron"));
          ds.scheduleMode().ifPresent(v -> given.add("schedule-mode"));
          ds.futureTolerance().ifPresent(v -> given.add("future-tolerance"));
          ds.unprocessedFileGrace().ifPresent(v -> given.add("unprocessed-file-grace"));
          ds.rawTable().ifPresent(v -> given.add("raw-table"));
          ds.changeMarker().keySet().forEach(k -> given.add("change-marker." + k));
          ds.raw().keySet().forEach(k -> given.add("raw." + k));
          ds.catalog().keySet().forEach(k -> given.add("catalog." + k));
          ds.rules()
              .forEach((id, r) -> r.keySet().forEach(k -> given.add("rules." + id + "." + k)));
          if (!given.isEmpty()) {
            String key = PREFIX + "datasets." + name + "." + given.get(0);
            throw new InvalidConfigException(
                key,
                null,
                key
                    + " is not a service setting any more: declare it in the dataset contract ("
                    + file.source()
                    + "); of tidemark.datasets."
                    + name
                    + ".* only engine remains");
          }
        });
  }

  /** A comparison of no column finds no damage: a rule comparing values could only ever pass. */
  private static void requireComparedColumns(String at, DatasetContract contract) {
    if (!contract.comparedColumns().isEmpty()) {
      return;
    }
    for (RuleSpec r : contract.reconcile().rules()) {
      if (r.kind() == RuleKind.VALUE_MISMATCHES) {
        throw new InvalidConfigException(
            ContractSource.KEY,
            null,
            at
                + "compared-columns is empty, yet rule "
                + r.id()
                + " compares these columns: list the payload columns to compare, or disable the"
                + " rule in the contract's reconcile.rules");
      }
    }
  }

  /** A Quartz cron or {@code off}. */
  private static void cron(String at, String value) {
    String cron = value.trim();
    if (ReconciledDataset.CRON_OFF.equalsIgnoreCase(cron)) {
      return;
    }
    try {
      // The scheduler's own parser (quarkus.scheduler.cron-type defaults to quartz), so a bad
      // cron fails here, before the service reports ready, not when the job is scheduled.
      QUARTZ_CRON.parse(cron).validate();
    } catch (IllegalArgumentException e) {
      throw new InvalidConfigException(
          ContractSource.KEY,
          null,
          at
              + " '"
              + cron
              + "' is not a Quartz cron (seconds first, e.g. '"
              + DatasetContract.Reconcile.SCHEDULE_DEFAULT
              + "') nor 'off': "
              + e.getMessage());
    }
  }

  /** The Iceberg catalog type of the Glue Data Catalog. */
  public static final String GLUE = "glue";

  private static final String CATALOG_KEY = PREFIX + "catalog.";

  private static boolean onS3(String location) {
    return location.trim().toLowerCase(Locale.ROOT).startsWith("s3://");
  }

  /** Where a dataset's catalog was configured, for messages about it. */
  private static String catalogKey(ReconciledDataset d) {
    return CATALOG_KEY;
  }

  /** {@code tidemark.catalog.*} when set, else the contract file's catalog section. */
  private static CatalogSpec catalog(TidemarkConfig.Catalog c, ContractFile file) {
    boolean configured =
        c.name().isPresent() || c.warehouse().isPresent() || !c.properties().isEmpty();
    if (!configured) {
      return file.catalog()
          .map(CatalogSpec::withAbsoluteLocalPaths)
          .orElseThrow(
              () ->
                  new InvalidConfigException(
                      CATALOG_KEY + "warehouse",
                      null,
                      "is required: contract "
                          + file.source()
                          + " has no catalog section, and no "
                          + CATALOG_KEY
                          + "* is set"));
    }
    Map<String, String> props = new HashMap<>();
    boolean typed =
        c.properties().containsKey("type") || c.properties().containsKey("catalog-impl");
    if (!typed && c.warehouse().filter(ReconcilerSettings::onS3).isPresent()) {
      // An s3:// warehouse cannot hold the embedded SQLite catalog: it is the Glue Data Catalog's
      // (the catalog Athena reads), so no catalog.properties.type=glue is needed.
      props.put("type", GLUE);
      props.put("warehouse", c.warehouse().get());
    } else if (!typed) {
      String warehouse =
          c.warehouse()
              .orElseThrow(
                  () ->
                      new InvalidConfigException(
                          CATALOG_KEY + "warehouse",
                          null,
                          "is required unless catalog.properties names a type or catalog-impl"));
      props.putAll(CatalogSpec.localJdbc(warehouse).properties());
    } else {
      c.warehouse().ifPresent(w -> props.put("warehouse", w));
    }
    props.putAll(c.properties());
    // Resolved once, at start, as the ingest job resolves its own: a relative warehouse would be
    // looked for wherever each process happens to start.
    return at(
        CATALOG_KEY,
        () ->
            new CatalogSpec(c.name().orElse(CatalogSpec.NAME_DEFAULT), props)
                .withAbsoluteLocalPaths());
  }

  /** Builds a contract record, turning its field-naming failure into one naming the config key. */
  private static <T> T at(String prefix, java.util.function.Supplier<T> build) {
    try {
      return build.get();
    } catch (InvalidDocumentException e) {
      throw new InvalidConfigException(prefix + kebab(e.field()), null, e);
    }
  }

  /** {@code keyColumns[0]} -> {@code key-columns[0]}: the record's field as a config key. */
  static String kebab(String field) {
    if (field == null) {
      return "";
    }
    return field.replaceAll("([a-z0-9])([A-Z])", "$1-$2").toLowerCase(Locale.ROOT);
  }
}
