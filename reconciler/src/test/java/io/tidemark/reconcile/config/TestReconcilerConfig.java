package io.tidemark.reconcile.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.smallrye.config.PropertiesConfigSource;
import io.smallrye.config.SmallRyeConfig;
import io.smallrye.config.SmallRyeConfigBuilder;
import io.tidemark.model.config.ChangeMarkerType;
import io.tidemark.model.config.RuleKind;
import io.tidemark.model.config.RuleSpec;
import io.tidemark.model.config.Severity;
import io.tidemark.model.config.ToleranceMode;
import io.tidemark.model.report.ReconciliationMode;
import io.tidemark.reconcile.fixtures.Contracts;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The typed configuration: datasets come from the dataset contract only ({@code
 * tidemark.contract}), defaults, explicit values, and failures that name the key or the contract's
 * file, key and value.
 */
class TestReconcilerConfig {
  private static final Set<String> ENGINES = Set.of("duckdb");

  @TempDir Path dir;

  private static final String CUSTOMERS =
      """
        customers:
          raw: {location: /data/raw/customers, layout: {kind: hive, column: ingest_date, date-format: yyyy-MM-dd}}
          columns: {customer_id: string, customer_name: string, email: string, updated_at: timestamp, op: string}
          key-columns: [customer_id]
          compared-columns: [customer_name, email]
          change-marker: {column: updated_at, type: timestamp}
          operation: {column: op, upsert: [U], delete: [D]}
          curated: {table: curated.customers}
      """;

  private static TidemarkConfig config(Map<String, String> values) {
    SmallRyeConfig c =
        new SmallRyeConfigBuilder()
            .withMapping(TidemarkConfig.class)
            // Quarkus reads durations such as "1m"; plain SmallRye Config needs its converter.
            .withConverter(
                Duration.class, 200, new io.quarkus.runtime.configuration.DurationConverter())
            .withValidateUnknown(true)
            .withSources(new PropertiesConfigSource(values, "test", 100))
            .build();
    return c.getConfigMapping(TidemarkConfig.class);
  }

  private Path contract(String name, String datasets) {
    return Contracts.write(
        dir.resolve(name),
        "version: 1\ncatalog: {warehouse: /data/warehouse}\ndatasets:\n" + datasets);
  }

  private Map<String, String> minimal() {
    Map<String, String> m = new HashMap<>();
    m.put("tidemark.contract", contract("tidemark.yaml", CUSTOMERS).toString());
    return m;
  }

  @Test
  void defaults() {
    TidemarkConfig c = config(minimal());
    assertThat(c.engine()).isEqualTo("duckdb");
    assertThat(c.stateRoot()).isEqualTo("state");
    assertThat(c.apiKeys()).isEmpty();
    assertThat(c.alarms().template()).isEmpty();
    assertThat(c.cloudwatch().enabled()).isFalse();
    assertThat(c.cloudwatch().endpoint()).isEmpty();
    assertThat(c.cloudwatch().namespace()).isEqualTo("Tidemark");
    assertThat(c.cloudwatch().step()).isEqualTo(Duration.ofMinutes(1));
    assertThat(c.api().allowedHosts()).containsExactly("localhost", "127.0.0.1", "[::1]");

    ReconcilerSettings s = ReconcilerSettings.from(c, ENGINES);
    ReconciledDataset d = s.datasets().get("customers");
    assertThat(d.cron()).isEqualTo("0 0 2 * * ?");
    assertThat(d.scheduled()).isTrue();
    assertThat(d.engine()).isEqualTo("duckdb");
    assertThat(d.scheduleMode()).isEqualTo(ReconciliationMode.FULL);
    assertThat(d.futureTolerance()).isEqualTo(Duration.ofHours(1));
    assertThat(d.unprocessedFileGrace()).isEqualTo(Duration.ofHours(6));
    assertThat(d.rules()).containsExactlyElementsOf(RuleSpec.defaults());
    assertThat(d.spec().pipeline()).isEqualTo("default");
    assertThat(d.spec().keyColumns()).containsExactly("customer_id");
    assertThat(d.spec().changeMarker().column()).isEqualTo("updated_at");
    assertThat(d.spec().changeMarker().type()).isEqualTo(ChangeMarkerType.TIMESTAMP);
    assertThat(d.spec().operationColumn()).isEqualTo("op");
    assertThat(d.spec().comparedColumns()).containsExactly("customer_name", "email");
    assertThat(d.spec().raw().partitionColumn()).isEqualTo("ingest_date");
    assertThat(d.spec().quarantineTable()).isEqualTo("curated.customers_quarantine");
    assertThat(d.contract().operation().delete()).containsExactly("D");
    assertThat(d.catalog().properties())
        .containsEntry("uri", "jdbc:sqlite:/data/warehouse/catalog.db")
        .containsEntry("warehouse", "/data/warehouse");
  }

  @Test
  void theContractIsRequiredAndNoDatasetIsDeclaredByDefault() {
    assertThatThrownBy(() -> ReconcilerSettings.from(config(new HashMap<>()), ENGINES))
        .isInstanceOf(InvalidConfigException.class)
        .hasMessageStartingWith(
            "Cannot start the reconciler: config key 'tidemark.contract': is required");
  }

  @Test
  void aContractThatCannotLoadStopsTheStartWithTheContractsMessage() {
    Map<String, String> m = new HashMap<>();
    m.put(
        "tidemark.contract",
        contract("orders.yaml", CUSTOMERS.replace("[customer_id]", "[customer_id, line_nr]"))
            .toString());
    assertThatThrownBy(() -> ReconcilerSettings.from(config(m), ENGINES))
        .isInstanceOf(InvalidConfigException.class)
        .hasMessage(
            "Cannot start the reconciler: Cannot load contract orders.yaml:"
                + " datasets.customers.key-columns[1] 'line_nr' is not a column");
  }

  @Test
  void oneDeploymentServesEveryDatasetOfAFolderOfContracts() {
    contract("a.yaml", CUSTOMERS);
    contract("b.yml", CUSTOMERS.replace("  customers:", "  orders:"));
    Map<String, String> m = new HashMap<>();
    m.put("tidemark.contract", dir.toString());
    m.put("tidemark.datasets.orders.engine", "duckdb");
    assertThat(ReconcilerSettings.from(config(m), ENGINES).datasets())
        .containsOnlyKeys("customers", "orders");

    contract("c.json", CUSTOMERS.replace("  customers:", "  orders:"));
    assertThatThrownBy(() -> ReconcilerSettings.from(config(m), ENGINES))
        .hasMessageContaining("dataset orders is declared twice");
  }

  @Test
  void anS3WarehouseIsTheGlueDataCatalog() {
    Map<String, String> m = minimal();
    m.put("tidemark.catalog.warehouse", "s3://lake/warehouse");
    ReconciledDataset d = ReconcilerSettings.from(config(m), ENGINES).datasets().get("customers");
    assertThat(d.catalog().properties())
        .containsEntry("type", "glue")
        .containsEntry("warehouse", "s3://lake/warehouse")
        .doesNotContainKey("uri");

    // An explicit type still wins.
    m.put("tidemark.catalog.properties.type", "rest");
    d = ReconcilerSettings.from(config(m), ENGINES).datasets().get("customers");
    assertThat(d.catalog().properties()).containsEntry("type", "rest");
  }

  /**
   * The ECS task definition configures the service by environment variables only: the contract's
   * URI, the catalog, and a dataset's engine ({@code TIDEMARK_DATASETS_<NAME>_ENGINE}); a catalog
   * property's {@code _} becomes a dot.
   */
  @Test
  void environmentVariablesOfTheTaskDefinition() {
    Map<String, String> env = new HashMap<>();
    env.put("TIDEMARK_CONTRACT", minimal().get("tidemark.contract"));
    env.put("TIDEMARK_STATE_ROOT", "s3://lake/state");
    env.put("TIDEMARK_ENGINE", "athena");
    env.put("TIDEMARK_ATHENA_REGION", "eu-west-1");
    env.put("TIDEMARK_ATHENA_WORKGROUP", "tidemark");
    env.put("TIDEMARK_ATHENA_OUTPUT_LOCATION", "s3://lake/athena-results/");
    env.put("TIDEMARK_ATHENA_DATABASE", "curated");
    env.put("TIDEMARK_API_KEYS", "first-key-123,second-key-456");
    env.put("TIDEMARK_CATALOG_WAREHOUSE", "s3://lake/warehouse");
    env.put("TIDEMARK_CATALOG_PROPERTIES_CLIENT_REGION", "eu-west-1");
    env.put("TIDEMARK_DATASETS_CUSTOMERS_ENGINE", "duckdb");
    env.put("TIDEMARK_API_ALLOWED_HOSTS", "tidemark.example.com,localhost");
    TidemarkConfig c =
        new SmallRyeConfigBuilder()
            .withMapping(TidemarkConfig.class)
            .withConverter(
                Duration.class, 200, new io.quarkus.runtime.configuration.DurationConverter())
            .withValidateUnknown(true)
            .withSources(new io.smallrye.config.EnvConfigSource(env, 300) {})
            .build()
            .getConfigMapping(TidemarkConfig.class);
    assertThat(c.athena().outputLocation()).contains("s3://lake/athena-results/");
    assertThat(c.athena().workgroup()).isEqualTo("tidemark");
    ReconcilerSettings s = ReconcilerSettings.from(c, Set.of("duckdb", "athena"), "0.0.0.0");
    assertThat(s.stateRoot()).isEqualTo("s3://lake/state");
    assertThat(s.apiKeys()).containsExactly("first-key-123", "second-key-456");
    assertThat(s.protectReads()).isTrue();
    assertThat(s.hosts().allowsHost("tidemark.example.com")).isTrue();
    assertThat(s.hosts().allowsHost("127.0.0.1")).as("not listed").isFalse();
    assertThat(s.datasets()).containsOnlyKeys("customers");
    ReconciledDataset d = s.datasets().get("customers");
    assertThat(d.engine()).as("the dataset's own engine").isEqualTo("duckdb");
    assertThat(d.spec().raw().location()).isEqualTo("/data/raw/customers");
    assertThat(d.spec().curatedTable()).isEqualTo("curated.customers");
    assertThat(d.catalog().properties())
        .containsEntry("type", "glue")
        .containsEntry("warehouse", "s3://lake/warehouse")
        .containsEntry("client.region", "eu-west-1");
  }

  @Test
  void explicitValues() {
    Map<String, String> m = new HashMap<>();
    String declared =
        CUSTOMERS
                .replace("  customers:\n", "  customers:\n    pipeline: crm-daily\n")
                .replace("customer_id: string,", "tenant: string, customer_id: string, lsn: long,")
                .replace("[customer_id]", "[tenant, customer_id]")
                .replace("{column: updated_at, type: timestamp}", "{column: lsn, type: sequence}")
                .replace("    operation: {column: op, upsert: [U], delete: [D]}\n", "")
            + """
                reconcile:
                  schedule: "off"
                  schedule-mode: window
                  future-tolerance: PT30M
                  unprocessed-file-grace: PT2H
                  rules:
                    count_match: {tolerance: ratio, threshold: 0.01}
                    freshness: {enabled: false}
                    strict_missing: {kind: missing_keys, severity: warning, sample-size: 5}
            """;
    m.put("tidemark.contract", contract("tidemark.yaml", declared).toString());
    m.put("tidemark.state-root", "/data/state");
    m.put("tidemark.api-keys", "first-key-123,second-key-456");
    m.put("tidemark.cloudwatch.enabled", "true");
    m.put("tidemark.cloudwatch.endpoint", "http://127.0.0.1:5000");
    m.put("tidemark.cloudwatch.namespace", "Custom");
    m.put("tidemark.cloudwatch.step", "10s");

    TidemarkConfig c = config(m);
    ReconcilerSettings s = ReconcilerSettings.from(c, ENGINES);
    assertThat(s.stateRoot()).isEqualTo("/data/state");
    assertThat(s.apiKeys()).containsExactly("first-key-123", "second-key-456");
    assertThat(s.toString()).doesNotContain("first-key-123");
    assertThat(c.cloudwatch().step()).isEqualTo(Duration.ofSeconds(10));
    ReconciledDataset d = s.datasets().get("customers");
    assertThat(d.spec().pipeline()).isEqualTo("crm-daily");
    assertThat(d.spec().keyColumns()).containsExactly("tenant", "customer_id");
    assertThat(d.spec().changeMarker().type()).isEqualTo(ChangeMarkerType.LONG);
    assertThat(d.spec().operationColumn()).isNull();
    assertThat(d.spec().comparedColumns()).containsExactly("customer_name", "email");
    assertThat(d.scheduled()).isFalse();
    assertThat(d.scheduleMode()).isEqualTo(ReconciliationMode.WINDOW);
    assertThat(d.futureTolerance()).isEqualTo(Duration.ofMinutes(30));
    assertThat(d.unprocessedFileGrace()).isEqualTo(Duration.ofHours(2));
    assertThat(d.rules())
        .extracting(RuleSpec::id)
        .doesNotContain("freshness")
        .contains("strict_missing");
    RuleSpec count =
        d.rules().stream().filter(r -> r.kind() == RuleKind.COUNT_MATCH).findFirst().orElseThrow();
    assertThat(count.tolerance()).isEqualTo(ToleranceMode.RATIO);
    assertThat(count.threshold()).isEqualTo(0.01);
    RuleSpec strict =
        d.rules().stream().filter(r -> r.id().equals("strict_missing")).findFirst().orElseThrow();
    assertThat(strict.severity()).isEqualTo(Severity.WARNING);
    assertThat(strict.sampleSize()).isEqualTo(5);
  }

  @Test
  void invalidServiceValuesNameTheirKey() {
    List<Map.Entry<Map<String, String>, String>> cases =
        List.of(
            Map.entry(Map.of("tidemark.engine", "athena"), "tidemark.engine"),
            Map.entry(
                Map.of("tidemark.datasets.customers.engine", "spark"),
                "tidemark.datasets.customers.engine"),
            Map.entry(
                Map.of("tidemark.datasets.orders.engine", "duckdb"),
                "tidemark.datasets.orders.engine"),
            Map.entry(Map.of("tidemark.api-keys", "short"), "tidemark.api-keys[0]"));
    for (var c : cases) {
      Map<String, String> m = minimal();
      m.putAll(c.getKey());
      assertThatThrownBy(() -> ReconcilerSettings.from(config(m), ENGINES))
          .as("%s", c.getKey())
          .isInstanceOf(InvalidConfigException.class)
          .hasMessageStartingWith("Cannot start the reconciler: config key '" + c.getValue() + "'")
          .satisfies(e -> assertThat(((InvalidConfigException) e).key()).isEqualTo(c.getValue()));
    }
    Map<String, String> m = minimal();
    m.put("tidemark.api-keys", "short");
    assertThatThrownBy(() -> ReconcilerSettings.from(config(m), ENGINES))
        .hasMessageNotContaining("short'");
  }

  @Test
  void invalidContractValuesNameTheFileTheKeyAndTheValue() {
    List<Map.Entry<String[], String>> cases =
        List.of(
            Map.entry(
                new String[] {"[customer_id]", "[customer id]"},
                "datasets.customers.key-columns[0] 'customer id'"),
            Map.entry(
                new String[] {"curated.customers}", "curated;drop}"},
                "datasets.customers.curated.table 'curated;drop'"),
            Map.entry(
                new String[] {"type: timestamp}", "type: date}"},
                "datasets.customers.change-marker.type 'date'"));
    for (var c : cases) {
      Map<String, String> m = new HashMap<>();
      m.put(
          "tidemark.contract",
          contract("bad.yaml", CUSTOMERS.replace(c.getKey()[0], c.getKey()[1])).toString());
      assertThatThrownBy(() -> ReconcilerSettings.from(config(m), ENGINES))
          .as(c.getValue())
          .isInstanceOf(InvalidConfigException.class)
          .hasMessageStartingWith(
              "Cannot start the reconciler: Cannot load contract bad.yaml: " + c.getValue());
    }
  }

  /** Every dataset setting but the engine moved into the contract: naming one stops the start. */
  @Test
  void anOldDatasetSettingIsRefusedNamingTheContract() {
    for (String key :
        List.of(
            "key-columns",
            "compared-columns",
            "curated-table",
            "raw.location",
            "change-marker.column",
            "catalog.warehouse",
            "cron",
            "rules.count_match.threshold",
            "raw-table")) {
      Map<String, String> m = minimal();
      m.put("tidemark.datasets.customers." + key, "x");
      assertThatThrownBy(() -> ReconcilerSettings.from(config(m), ENGINES))
          .as(key)
          .isInstanceOf(InvalidConfigException.class)
          .hasMessageContaining(
              "tidemark.datasets.customers."
                  + key
                  + " is not a service setting any more: declare it in the dataset contract ("
                  + m.get("tidemark.contract")
                  + ")");
    }
    Map<String, String> unknown = minimal();
    unknown.put("tidemark.datasets.customers.curated-tabel", "x.y");
    assertThatThrownBy(() -> config(unknown))
        .hasMessageContaining("tidemark.datasets.customers.curated-tabel");
  }
}
