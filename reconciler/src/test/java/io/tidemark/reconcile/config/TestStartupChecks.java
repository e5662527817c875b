package io.tidemark.reconcile.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.smallrye.config.PropertiesConfigSource;
import io.smallrye.config.SmallRyeConfig;
import io.smallrye.config.SmallRyeConfigBuilder;
import io.tidemark.model.config.CatalogSpec;
import io.tidemark.reconcile.engine.duckdb.DuckDbEngine;
import io.tidemark.reconcile.metrics.MeterPublisher;
import io.tidemark.reconcile.service.ReconciliationService;
import io.tidemark.reconcile.storage.IcebergTables;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Configuration that cannot work stops the start, naming the key, before the service reports ready:
 * locations that are not there, API keys that could never match, crons the scheduler would refuse.
 */
class TestStartupChecks {
  private static final Set<String> ENGINES = Set.of("duckdb");

  /**
   * Test-only keys under this prefix are the customers dataset's contract: {@link #config} writes
   * them into a contract file ({@code raw.location}, {@code compared-columns}, {@code cron} as
   * {@code reconcile.schedule}, {@code rules.<id>.enabled}) and names it in {@code
   * tidemark.contract}.
   */
  private static final String P = "contract.customers.";

  /** How the service names the contract's raw location in its messages. */
  private static final String RAW_KEY = "tidemark.contract (datasets.customers.raw.location)";

  private static final String CATALOG = "tidemark.catalog.";

  @TempDir Path dir;
  private Path raw;
  private Path warehouse;

  @BeforeEach
  void layout() throws Exception {
    raw = Files.createDirectories(dir.resolve("raw").resolve("customers"));
    warehouse = Files.createDirectories(dir.resolve("warehouse"));
    Files.writeString(warehouse.resolve("catalog.db"), "");
  }

  private Map<String, String> working() {
    Map<String, String> m = new HashMap<>();
    m.put("tidemark.state-root", dir.resolve("state").toString());
    m.put(P + "raw.location", raw.toString());
    m.put(CATALOG + "warehouse", warehouse.toString());
    m.put(P + "compared-columns", "customer_name, email");
    return m;
  }

  private TidemarkConfig config(Map<String, String> values) {
    Map<String, String> props = new HashMap<>();
    Map<String, String> contract = new HashMap<>();
    values.forEach(
        (k, v) -> {
          if (k.startsWith(P)) {
            contract.put(k.substring(P.length()), v);
          } else {
            props.put(k, v);
          }
        });
    StringBuilder reconcile = new StringBuilder();
    if (contract.containsKey("cron")) {
      reconcile.append("schedule: \"").append(contract.get("cron")).append("\", ");
    }
    if (contract.containsKey("rules.value_mismatches.enabled")) {
      reconcile
          .append("rules: {value_mismatches: {enabled: ")
          .append(contract.get("rules.value_mismatches.enabled"))
          .append("}}, ");
    }
    String yaml =
        "version: 1\ndatasets:\n  customers:\n"
            + "    raw: {location: '"
            + contract.get("raw.location")
            + "', layout: {kind: hive, column: ingest_date, date-format: yyyy-MM-dd}}\n"
            + "    columns: {customer_id: string, customer_name: string, email: string,"
            + " updated_at: timestamp, op: string}\n"
            + "    key-columns: [customer_id]\n"
            + "    compared-columns: ["
            + contract.getOrDefault("compared-columns", "")
            + "]\n"
            + "    change-marker: {column: updated_at, type: timestamp}\n"
            + "    operation: {column: op, upsert: [U], delete: [D]}\n"
            + "    curated: {table: curated.customers}\n"
            + (reconcile.isEmpty()
                ? ""
                : "    reconcile: {" + reconcile.substring(0, reconcile.length() - 2) + "}\n");
    props.put(
        "tidemark.contract",
        io.tidemark.reconcile.fixtures.Contracts.write(dir.resolve("tidemark.yaml"), yaml)
            .toString());
    SmallRyeConfig c =
        new SmallRyeConfigBuilder()
            .withMapping(TidemarkConfig.class)
            .withConverter(
                Duration.class, 200, new io.quarkus.runtime.configuration.DurationConverter())
            .withValidateUnknown(true)
            .withSources(new PropertiesConfigSource(props, "test", 100))
            .build();
    return c.getConfigMapping(TidemarkConfig.class);
  }

  private ReconcilerSettings check(Map<String, String> values) {
    return ReconcilerSettings.from(config(values), ENGINES).requireLocations();
  }

  @Test
  void aWorkingConfigurationPasses() {
    ReconcilerSettings s = check(working());
    assertThat(s.datasets()).containsOnlyKeys("customers");
  }

  @Test
  void aRawLocationThatDoesNotExistIsNamed() {
    Map<String, String> m = working();
    String missing = dir.resolve("raw").resolve("custmers").toString();
    m.put(P + "raw.location", missing);
    assertThatThrownBy(() -> check(m))
        .isInstanceOf(InvalidConfigException.class)
        .hasMessage(
            "Cannot start the reconciler: config key '"
                + RAW_KEY
                + "' has invalid value '"
                + missing
                + "': does not exist");
  }

  @Test
  void aRawLocationThatIsAFileOrRemoteIsNamed() throws Exception {
    Map<String, String> m = working();
    Path file = Files.writeString(dir.resolve("customers.parquet"), "x");
    m.put(P + "raw.location", file.toString());
    assertThatThrownBy(() -> check(m))
        .hasMessageContaining("'" + RAW_KEY + "'")
        .hasMessageEndingWith("is not a folder");

    m.put(P + "raw.location", "s3://bucket/raw/customers");
    assertThatThrownBy(() -> check(m))
        .hasMessage(
            "Cannot start the reconciler: config key '"
                + RAW_KEY
                + "' has invalid value 's3://bucket/raw/customers': the embedded"
                + " engine (duckdb) reads local files only");
  }

  @Test
  void aWarehouseWithoutACatalogIsNamedAndNothingIsWrittenIntoIt() throws Exception {
    Map<String, String> m = working();
    Path empty = Files.createDirectories(dir.resolve("empty-warehouse"));
    m.put(CATALOG + "warehouse", empty.toString());
    assertThatThrownBy(() -> check(m))
        .isInstanceOf(InvalidConfigException.class)
        .hasMessage(
            "Cannot start the reconciler: config key '"
                + CATALOG
                + "warehouse' has invalid value '"
                + empty
                + "': holds no Iceberg catalog (no catalog.db): the ingest job creates it with the"
                + " curated table");
    try (var files = Files.list(empty)) {
      assertThat(files).as("nothing written into the warehouse").isEmpty();
    }

    String missing = dir.resolve("no-such-warehouse").toString();
    m.put(CATALOG + "warehouse", missing);
    assertThatThrownBy(() -> check(m))
        .hasMessageContaining("'" + CATALOG + "warehouse' has invalid value '" + missing + "'")
        .hasMessageEndingWith("does not exist");
    assertThat(Path.of(missing)).doesNotExist();
  }

  @Test
  void aRelativeWarehouseIsResolvedAgainstTheWorkingFolderAtStart() {
    Map<String, String> m = working();
    String relative = Path.of("").toAbsolutePath().relativize(warehouse).toString();
    assertThat(Path.of(relative).isAbsolute()).isFalse();
    m.put(CATALOG + "warehouse", relative);

    CatalogSpec catalog = check(m).datasets().get("customers").catalog();

    assertThat(catalog.properties())
        .containsEntry("warehouse", warehouse.toString())
        .containsEntry("uri", "jdbc:sqlite:" + warehouse + "/catalog.db");
  }

  @Test
  void aRelativeRawLocationIsTheContractFilesAndTheStateRootTheWorkingFoldersAtStart() {
    Path here = Path.of("").toAbsolutePath();
    Map<String, String> m = working();
    String relativeState = here.relativize(dir.resolve("state")).toString();
    // The contract file lies in dir: its relative locations are relative to it, as the job and the
    // stack read them, wherever the service starts.
    m.put(P + "raw.location", "raw/customers");
    m.put("tidemark.state-root", "./" + relativeState);

    ReconcilerSettings s = check(m);

    assertThat(s.datasets().get("customers").spec().raw().location()).isEqualTo(raw.toString());
    assertThat(s.stateRoot()).isEqualTo(dir.resolve("state").toString());
  }

  @Test
  void aMissingRelativeRawLocationIsNamedWhereItWasLookedFor() {
    Map<String, String> m = working();
    Path missing = dir.resolve("raw").resolve("custmers");
    m.put(P + "raw.location", "raw/custmers");
    assertThatThrownBy(() -> check(m))
        .isInstanceOf(InvalidConfigException.class)
        .hasMessage(
            "Cannot start the reconciler: config key '"
                + RAW_KEY
                + "' has invalid value '"
                + missing
                + "': does not exist");
  }

  @Test
  void remoteRawLocationsAndStateRootsAreLeftAsTheyAre() {
    Map<String, String> m = working();
    m.put("tidemark.state-root", "s3://bucket/state");
    m.put(P + "raw.location", "s3://bucket/raw/customers");
    ReconcilerSettings s = ReconcilerSettings.from(config(m), ENGINES);
    assertThat(s.stateRoot()).isEqualTo("s3://bucket/state");
    assertThat(s.datasets().get("customers").spec().raw().location())
        .isEqualTo("s3://bucket/raw/customers");
  }

  @Test
  void aCatalogThatRecordsARelativeTableLocationIsNamedAtStart() throws Exception {
    // What an ingest job that was given a relative --warehouse wrote before it resolved it: the
    // catalog database is found, but the table's metadata location is relative to the folder that
    // job ran in.
    Path old = Files.createDirectories(dir.resolve("old-warehouse"));
    String relative = Path.of("").toAbsolutePath().relativize(old).toString();
    IcebergTables.loadDriver("org.sqlite.JDBC");
    Map<String, String> props = new HashMap<>(CatalogSpec.localJdbc(old.toString()).properties());
    props.put("warehouse", relative);
    Catalog writer =
        CatalogUtil.buildIcebergCatalog(
            CatalogSpec.NAME_DEFAULT, props, new org.apache.hadoop.conf.Configuration());
    try {
      ((SupportsNamespaces) writer).createNamespace(Namespace.of("curated"));
      writer.createTable(
          TableIdentifier.of("curated", "customers"),
          new Schema(Types.NestedField.required(1, "customer_id", Types.StringType.get())));
    } finally {
      IcebergTables.close(writer);
    }
    Map<String, String> m = working();
    m.put(CATALOG + "warehouse", old.toString());

    assertThatThrownBy(() -> check(m))
        .isInstanceOf(InvalidConfigException.class)
        .hasMessageStartingWith(
            "Cannot start the reconciler: config key '"
                + CATALOG
                + "warehouse' has invalid value '"
                + old
                + "': its catalog records table curated.customers at the relative location '"
                + relative
                + "/curated/customers/metadata/")
        .hasMessageEndingWith(
            "(written by an ingest job given a relative --warehouse), which each process resolves"
                + " against the folder it started in; rebuild the tables into a warehouse named by"
                + " an absolute path (the job's first run there loads every raw file)");
  }

  @Test
  void anApiKeyWithSurroundingSpacesIsNamedByPositionNeverByValue() {
    for (String keys :
        List.of("good-key-12345, spaced-key-5678", "good-key-12345,spaced-key-5678 ")) {
      Map<String, String> m = working();
      m.put("tidemark.api-keys", keys);
      assertThatThrownBy(() -> check(m))
          .as(keys)
          .isInstanceOf(InvalidConfigException.class)
          .hasMessageStartingWith("Cannot start the reconciler: config key 'tidemark.api-keys[1]'")
          .hasMessageContaining("white space")
          .hasMessageNotContaining("spaced-key")
          .hasMessageNotContaining("good-key");
    }
    Map<String, String> m = working();
    m.put("tidemark.api-keys", "tab\tinside-key");
    assertThatThrownBy(() -> check(m))
        .hasMessageStartingWith("Cannot start the reconciler: config key 'tidemark.api-keys[0]'")
        .hasMessageNotContaining("inside-key");
  }

  @Test
  void anInvalidCronIsNamed() {
    for (String cron : List.of("0 2 * * *", "every night", "0 0 25 * * ?")) {
      Map<String, String> m = working();
      m.put(P + "cron", cron);
      assertThatThrownBy(() -> check(m))
          .as(cron)
          .isInstanceOf(InvalidConfigException.class)
          .hasMessageStartingWith("Cannot start the reconciler: config key 'tidemark.contract'")
          .hasMessageContaining(
              "tidemark.yaml: datasets.customers.reconcile.schedule '"
                  + cron
                  + "' is not a Quartz cron");
    }
  }

  /** The service itself refuses to start, so it never logs that it is ready. */
  @Test
  void theServiceDoesNotStartOnAMissingRawLocation() {
    Map<String, String> m = working();
    String missing = dir.resolve("gone").toString();
    m.put(P + "raw.location", missing);
    TidemarkConfig c = config(m);
    assertThatThrownBy(
            () ->
                new ReconciliationService(
                    c,
                    List.of(new DuckDbEngine()),
                    new MeterPublisher(new SimpleMeterRegistry(), c),
                    new io.tidemark.reconcile.events.EventPublisher(c),
                    new io.tidemark.reconcile.lineage.LineagePublisher(c),
                    new io.tidemark.reconcile.service.StateStores(),
                    ReconcilerSettings.LOOPBACK))
        .isInstanceOf(InvalidConfigException.class)
        .hasMessageContaining("'" + RAW_KEY + "' has invalid value '" + missing + "'");
  }

  @Test
  void readsNeedAKeyByDefaultOnlyBeyondLoopback() {
    Map<String, String> m = working();
    m.put("tidemark.api-keys", "read-key-12345");
    TidemarkConfig c = config(m);
    for (String loopback : List.of("127.0.0.1", "localhost", "::1", "[::1]", "127.0.1.1")) {
      assertThat(ReconcilerSettings.from(c, ENGINES, loopback).protectReads())
          .as(loopback)
          .isFalse();
    }
    for (String beyond : List.of("0.0.0.0", "::", "10.0.0.5", "reconciler.internal")) {
      assertThat(ReconcilerSettings.from(c, ENGINES, beyond).protectReads()).as(beyond).isTrue();
    }
    m.put("tidemark.api.protect-reads", "false");
    assertThat(ReconcilerSettings.from(config(m), ENGINES, "0.0.0.0").protectReads()).isFalse();
    m.put("tidemark.api.protect-reads", "true");
    assertThat(ReconcilerSettings.from(config(m), ENGINES, "127.0.0.1").protectReads()).isTrue();
  }

  @Test
  void protectedReadsWithoutAnyKeyCannotWork() {
    assertThatThrownBy(() -> ReconcilerSettings.from(config(working()), ENGINES, "0.0.0.0"))
        .isInstanceOf(InvalidConfigException.class)
        .hasMessage(
            "Cannot start the reconciler: config key 'tidemark.api-keys': is empty, yet the GET"
                + " endpoints need a key (tidemark.api.protect-reads is on by default:"
                + " quarkus.http.host is 0.0.0.0, beyond loopback); configure a key or set"
                + " tidemark.api.protect-reads=false");
    Map<String, String> m = working();
    m.put("tidemark.api.protect-reads", "true");
    assertThatThrownBy(() -> ReconcilerSettings.from(config(m), ENGINES, "127.0.0.1"))
        .hasMessageContaining("tidemark.api.protect-reads is on)");
    assertThat(ReconcilerSettings.from(config(working()), ENGINES, "127.0.0.1").protectReads())
        .isFalse();
  }

  @Test
  void theServiceAnswersTheLoopbackNamesByDefaultAndTheConfiguredOnesOtherwise() {
    HostPolicy loopback = ReconcilerSettings.from(config(working()), ENGINES, "127.0.0.1").hosts();
    for (String host : List.of("localhost", "localhost:8080", "127.0.0.1:1", "[::1]:8080")) {
      assertThat(loopback.allowsHost(host)).as(host).isTrue();
    }
    for (String host : List.of("evil.example", "127.0.0.2", "localhost.evil.example", "")) {
      assertThat(loopback.allowsHost(host)).as(host).isFalse();
    }
    assertThat(loopback.allowsHost(null)).as("no Host header").isFalse();
    Map<String, String> m = working();
    m.put("tidemark.api.allowed-hosts", "tidemark.example.com,10.0.3.17:8080");
    HostPolicy configured = ReconcilerSettings.from(config(m), ENGINES, "127.0.0.1").hosts();
    assertThat(configured.allowsHost("Tidemark.Example.com")).isTrue();
    assertThat(configured.allowsHost("tidemark.example.com:443")).isTrue();
    assertThat(configured.allowsHost("10.0.3.17:8080")).isTrue();
    assertThat(configured.allowsHost("10.0.3.17:9090")).as("another port").isFalse();
    assertThat(configured.allowsHost("localhost")).as("not listed").isFalse();
    m.put("tidemark.api.allowed-hosts", "*");
    assertThat(ReconcilerSettings.from(config(m), ENGINES, "127.0.0.1").hosts().allowsHost("x.y"))
        .isTrue();
  }

  @Test
  void anAllowedHostThatIsNotAHostNameIsNamed() {
    for (String bad : List.of("http://tidemark.example.com", "tidemark.example.com/api", "::1")) {
      Map<String, String> m = working();
      m.put("tidemark.api.allowed-hosts", "localhost," + bad);
      assertThatThrownBy(() -> ReconcilerSettings.from(config(m), ENGINES, "127.0.0.1"))
          .as(bad)
          .isInstanceOf(InvalidConfigException.class)
          .hasMessageStartingWith(
              "Cannot start the reconciler: config key 'tidemark.api.allowed-hosts[1]' has invalid"
                  + " value '"
                  + bad
                  + "': not a host name");
    }
  }

  @Test
  void anOriginIsTheServicesOwnOnlyWhenItNamesTheHostTheRequestWasSentTo() {
    assertThat(HostPolicy.sameOrigin(null, "localhost:8080")).as("no Origin").isTrue();
    assertThat(HostPolicy.sameOrigin("http://localhost:8080", "localhost:8080")).isTrue();
    assertThat(HostPolicy.sameOrigin("https://tidemark.example.com", "tidemark.example.com"))
        .isTrue();
    assertThat(HostPolicy.sameOrigin("https://tidemark.example.com", "tidemark.example.com:443"))
        .isTrue();
    assertThat(HostPolicy.sameOrigin("http://evil.example", "localhost:8080")).isFalse();
    assertThat(HostPolicy.sameOrigin("http://localhost:8081", "localhost:8080")).isFalse();
    assertThat(HostPolicy.sameOrigin("null", "localhost:8080")).isFalse();
    assertThat(HostPolicy.sameOrigin("http://localhost:8080/x", "localhost:8080")).isFalse();
  }

  /** Before this change such a dataset started, and its value_mismatches passed over any value. */
  @Test
  void aValueRuleWithNoComparedColumnsStopsTheStart() {
    Map<String, String> m = working();
    m.remove(P + "compared-columns");
    assertThatThrownBy(() -> ReconcilerSettings.from(config(m), ENGINES, "127.0.0.1"))
        .isInstanceOf(InvalidConfigException.class)
        .hasMessageStartingWith("Cannot start the reconciler: config key 'tidemark.contract': ")
        .hasMessageEndingWith(
            "tidemark.yaml: datasets.customers.compared-columns is empty, yet rule"
                + " value_mismatches compares these columns: list the payload columns to compare,"
                + " or disable the rule in the contract's reconcile.rules");
    m.put(P + "rules.value_mismatches.enabled", "false");
    assertThat(
            ReconcilerSettings.from(config(m), ENGINES, "127.0.0.1")
                .datasets()
                .get("customers")
                .rules())
        .noneMatch(r -> r.kind() == io.tidemark.model.config.RuleKind.VALUE_MISMATCHES);
  }

  /** Started without bin/reconciler, the service listens on loopback only. */
  @Test
  void theServiceListensOnLoopbackByDefault() throws Exception {
    java.util.Properties p = new java.util.Properties();
    try (var in = getClass().getClassLoader().getResourceAsStream("application.properties")) {
      p.load(in);
    }
    assertThat(p.getProperty("quarkus.http.host")).isEqualTo("127.0.0.1");
  }

  private static Map<String, String> onAthena(Map<String, String> m) {
    m.put("tidemark.datasets.customers.engine", "athena");
    m.put(P + "raw.location", "s3://lake/raw/customers");
    m.put("tidemark.athena.region", "eu-west-1");
    m.put("tidemark.athena.output-location", "s3://lake/athena-results/");
    m.put("tidemark.athena.database", "tidemark");
    return m;
  }

  @Test
  void anAthenaDatasetReadsRawFromS3AndNeedsNoLocalFolder() {
    ReconcilerSettings s =
        ReconcilerSettings.from(config(onAthena(working())), Set.of("duckdb", "athena"))
            .requireLocations();
    assertThat(s.datasets().get("customers").engine()).isEqualTo("athena");
  }

  @Test
  void anAthenaDatasetWithoutItsQuerySettingsIsNamedAtStartUp() {
    Set<String> engines = Set.of("duckdb", "athena");
    for (String key : List.of("output-location", "database")) {
      Map<String, String> m = onAthena(working());
      m.remove("tidemark.athena." + key);
      assertThatThrownBy(() -> ReconcilerSettings.from(config(m), engines))
          .as(key)
          .isInstanceOf(InvalidConfigException.class)
          .hasMessage(
              "Cannot start the reconciler: config key 'tidemark.athena."
                  + key
                  + "': is required for the athena engine");
    }
    Map<String, String> m = onAthena(working());
    m.put("tidemark.athena.max-in-flight", "0");
    assertThatThrownBy(() -> ReconcilerSettings.from(config(m), engines))
        .isInstanceOf(InvalidConfigException.class)
        .hasMessage(
            "Cannot start the reconciler: config key 'tidemark.athena.max-in-flight' has invalid"
                + " value '0': must be at least 1");
    m.put("tidemark.athena.max-in-flight", "4");
    m.put("tidemark.athena.output-location", "athena-results");
    assertThatThrownBy(() -> ReconcilerSettings.from(config(m), engines))
        .hasMessage(
            "Cannot start the reconciler: config key 'tidemark.athena.output-location' has"
                + " invalid value 'athena-results': must be an s3://bucket/prefix URI");
    // A service whose datasets all stay on the embedded engine needs none of them.
    Map<String, String> embedded = working();
    assertThat(ReconcilerSettings.from(config(embedded), engines).datasets()).hasSize(1);
  }
}
