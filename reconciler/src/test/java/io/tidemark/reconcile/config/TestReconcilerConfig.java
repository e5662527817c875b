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
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The typed configuration: defaults, explicit values, and failures that name the key. */
class TestReconcilerConfig {
  private static final Set<String> ENGINES = Set.of("duckdb");

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

  private static Map<String, String> minimal() {
    Map<String, String> m = new HashMap<>();
    m.put("tidemark.datasets.customers.raw.location", "/data/raw/customers");
    m.put("tidemark.datasets.customers.curated-table", "curated.customers");
    m.put("tidemark.datasets.customers.catalog.warehouse", "/data/warehouse");
    m.put("tidemark.datasets.customers.compared-columns", "customer_name,email");
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
    assertThat(d.catalog().properties())
        .containsEntry("uri", "jdbc:sqlite:/data/warehouse/catalog.db")
        .containsEntry("warehouse", "/data/warehouse");
  }

  @Test
  void anS3WarehouseIsTheGlueDataCatalog() {
    Map<String, String> m = minimal();
    m.put("tidemark.datasets.customers.catalog.warehouse", "s3://lake/warehouse");
    ReconciledDataset d = ReconcilerSettings.from(config(m), ENGINES).datasets().get("customers");
    assertThat(d.catalog().properties())
        .containsEntry("type", "glue")
        .containsEntry("warehouse", "s3://lake/warehouse")
        .doesNotContainKey("uri");

    // An explicit type still wins.
    m.put("tidemark.datasets.customers.catalog.properties.type", "rest");
    d = ReconcilerSettings.from(config(m), ENGINES).datasets().get("customers");
    assertThat(d.catalog().properties()).containsEntry("type", "rest");
  }

  /**
   * The ECS task definition configures the service by environment variables only: each maps to its
   * key, the dataset name included (SmallRye Config matches {@code TIDEMARK_DATASETS_CUSTOMERS_...}
   * against {@code tidemark.datasets.*...}), and a catalog property's {@code _} becomes a dot.
   */
  @Test
  void environmentVariablesOfTheTaskDefinition() {
    Map<String, String> env = new HashMap<>();
    env.put("TIDEMARK_STATE_ROOT", "s3://lake/state");
    env.put("TIDEMARK_ENGINE", "athena");
    env.put("TIDEMARK_ATHENA_REGION", "eu-west-1");
    env.put("TIDEMARK_ATHENA_WORKGROUP", "tidemark");
    env.put("TIDEMARK_ATHENA_OUTPUT_LOCATION", "s3://lake/athena-results/");
    env.put("TIDEMARK_ATHENA_DATABASE", "curated");
    env.put("TIDEMARK_API_KEYS", "first-key-123,second-key-456");
    env.put("TIDEMARK_DATASETS_CUSTOMERS_RAW_LOCATION", "s3://lake/raw/customers");
    env.put("TIDEMARK_DATASETS_CUSTOMERS_CURATED_TABLE", "curated.customers");
    env.put("TIDEMARK_DATASETS_CUSTOMERS_CATALOG_WAREHOUSE", "s3://lake/warehouse");
    env.put("TIDEMARK_DATASETS_CUSTOMERS_COMPARED_COLUMNS", "customer_name,email");
    env.put("TIDEMARK_DATASETS_CUSTOMERS_CATALOG_PROPERTIES_CLIENT_REGION", "eu-west-1");
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
    assertThat(d.engine()).isEqualTo("athena");
    assertThat(d.spec().raw().location()).isEqualTo("s3://lake/raw/customers");
    assertThat(d.spec().curatedTable()).isEqualTo("curated.customers");
    assertThat(d.spec().comparedColumns()).containsExactly("customer_name", "email");
    assertThat(d.catalog().properties())
        .containsEntry("type", "glue")
        .containsEntry("warehouse", "s3://lake/warehouse")
        .containsEntry("client.region", "eu-west-1");
  }

  @Test
  void explicitValues() {
    Map<String, String> m = minimal();
    m.put("tidemark.state-root", "/data/state");
    m.put("tidemark.api-keys", "first-key-123,second-key-456");
    m.put("tidemark.cloudwatch.enabled", "true");
    m.put("tidemark.cloudwatch.endpoint", "http://127.0.0.1:5000");
    m.put("tidemark.cloudwatch.namespace", "Custom");
    m.put("tidemark.cloudwatch.step", "10s");
    String p = "tidemark.datasets.customers.";
    m.put(p + "pipeline", "crm-daily");
    m.put(p + "key-columns", "tenant,customer_id");
    m.put(p + "change-marker.column", "lsn");
    m.put(p + "change-marker.type", "long");
    m.put(p + "operation-column", "none");
    m.put(p + "compared-columns", "customer_name,email");
    m.put(p + "cron", "off");
    m.put(p + "schedule-mode", "window");
    m.put(p + "future-tolerance", "PT30M");
    m.put(p + "unprocessed-file-grace", "PT2H");
    m.put(p + "rules.count_match.tolerance", "ratio");
    m.put(p + "rules.count_match.threshold", "0.01");
    m.put(p + "rules.freshness.enabled", "false");
    m.put(p + "rules.strict_missing.kind", "missing_keys");
    m.put(p + "rules.strict_missing.severity", "warning");
    m.put(p + "rules.strict_missing.sample-size", "5");

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
  void invalidValuesNameTheirKey() {
    List<Map.Entry<Map<String, String>, String>> cases =
        List.of(
            Map.entry(
                Map.of("tidemark.datasets.customers.key-columns", "customer id"),
                "tidemark.datasets.customers.key-columns[0]"),
            Map.entry(
                Map.of("tidemark.datasets.customers.curated-table", "curated;drop"),
                "tidemark.datasets.customers.curated-table"),
            Map.entry(
                Map.of("tidemark.datasets.customers.change-marker.type", "date"),
                "tidemark.datasets.customers.change-marker.type"),
            Map.entry(
                Map.of("tidemark.datasets.customers.rules.freshness.threshold", "-1"),
                "tidemark.datasets.customers.rules.freshness.threshold"),
            Map.entry(
                Map.of("tidemark.datasets.customers.rules.odd.kind", "bogus"),
                "tidemark.datasets.customers.rules.odd.kind"),
            Map.entry(
                Map.of("tidemark.datasets.customers.rules.missing_keys.tolerance", "RATIO"),
                "tidemark.datasets.customers.rules.missing_keys.tolerance"),
            Map.entry(
                Map.of("tidemark.datasets.customers.schedule-mode", "hourly"),
                "tidemark.datasets.customers.schedule-mode"),
            Map.entry(
                Map.of("tidemark.datasets.customers.future-tolerance", "-PT1H"),
                "tidemark.datasets.customers.future-tolerance"),
            Map.entry(
                Map.of("tidemark.datasets.customers.unprocessed-file-grace", "-PT1H"),
                "tidemark.datasets.customers.unprocessed-file-grace"),
            Map.entry(Map.of("tidemark.engine", "athena"), "tidemark.engine"),
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
  void aDatasetWithoutItsRequiredKeysOrWithAnUnknownKeyFails() {
    Map<String, String> m = minimal();
    m.remove("tidemark.datasets.customers.curated-table");
    assertThatThrownBy(() -> config(m))
        .hasMessageContaining("tidemark.datasets.customers.curated-table");

    Map<String, String> unknown = minimal();
    unknown.put("tidemark.datasets.customers.curated-tabel", "x.y");
    assertThatThrownBy(() -> config(unknown))
        .hasMessageContaining("tidemark.datasets.customers.curated-tabel");
  }
}
