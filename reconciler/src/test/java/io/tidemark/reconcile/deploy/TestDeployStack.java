package io.tidemark.reconcile.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.smallrye.config.EnvConfigSource;
import io.smallrye.config.SmallRyeConfig;
import io.smallrye.config.SmallRyeConfigBuilder;
import io.tidemark.model.config.DatasetSpec;
import io.tidemark.model.templates.StackTemplate;
import io.tidemark.reconcile.config.ReconciledDataset;
import io.tidemark.reconcile.config.ReconcilerSettings;
import io.tidemark.reconcile.config.TidemarkConfig;
import io.tidemark.reconcile.engine.athena.AthenaEngine;
import io.tidemark.reconcile.engine.sql.RawTable;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The deployment stack ({@code deploy/tidemark-stack.json}, generated in metrics-model) agrees with
 * the reconciler that reads what it deploys: its Glue raw table is the table {@link
 * RawTable#athenaDdl} declares for the default dataset, and the container's environment, read by
 * the reconciler's own configuration mapping as environment variables, configures the Athena
 * engine, the Glue catalog and the S3 state root the stack creates.
 */
class TestDeployStack {
  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final Pattern VAR = Pattern.compile("\\$\\{(!?)([A-Za-z0-9_:.]+)}");

  /** Parameter values of a deployment (the rest are the template's defaults). */
  private static final Map<String, String> GIVEN =
      Map.of("LakeBucketName", "acme-lake", "ProjectionStart", "2025-06-01");

  /** The curated table's types as the ingest job writes the default dataset. */
  private static final Map<String, String> CURATED =
      Map.of(
          "customer_id", "string",
          "updated_at", "timestamp",
          "op", "string",
          "customer_name", "string",
          "email", "string");

  private static JsonNode template() throws Exception {
    return MAPPER.readTree(Path.of("..").resolve(StackTemplate.PATH).toFile());
  }

  /** Parameter defaults, the given values, pseudo parameters and the Refs of named resources. */
  private static Map<String, String> values(JsonNode template) {
    Map<String, String> v = new HashMap<>();
    template
        .path("Parameters")
        .fields()
        .forEachRemaining(
            p -> {
              if (p.getValue().has("Default")) {
                v.put(p.getKey(), p.getValue().get("Default").asText());
              }
            });
    v.putAll(GIVEN);
    v.put("AWS::Region", "eu-west-1");
    v.put("AWS::AccountId", "123456789012");
    v.put("AWS::Partition", "aws");
    // What CloudFormation's Ref returns: a Glue database's and an Athena workgroup's name.
    v.put("GlueDatabase", v.get("GlueDatabaseName"));
    v.put("AthenaWorkGroup", v.get("AthenaWorkGroupName"));
    return v;
  }

  private static String resolve(JsonNode node, Map<String, String> values) {
    if (node.isTextual()) {
      return node.asText();
    }
    if (node.has("Ref")) {
      return value(values, node.get("Ref").asText());
    }
    if (node.has("Fn::Sub")) {
      Matcher m = VAR.matcher(node.get("Fn::Sub").asText());
      StringBuilder sb = new StringBuilder();
      while (m.find()) {
        String r = m.group(1).isEmpty() ? value(values, m.group(2)) : "${" + m.group(2) + "}";
        m.appendReplacement(sb, Matcher.quoteReplacement(r));
      }
      return m.appendTail(sb).toString();
    }
    throw new IllegalArgumentException("cannot resolve " + node);
  }

  private static String value(Map<String, String> values, String name) {
    String v = values.get(name);
    assertThat(v).as("a value for %s", name).isNotNull();
    return v;
  }

  // ---------------------------------------------------------------- the raw table

  /** The parts of the Hive DDL that define the table. */
  record Ddl(
      String table,
      List<String> columns,
      List<String> partitions,
      String format,
      String location,
      Map<String, String> properties) {
    static Ddl parse(String ddl) {
      Matcher head = Pattern.compile("CREATE EXTERNAL TABLE IF NOT EXISTS (\\S+) \\(").matcher(ddl);
      assertThat(head.find()).as(ddl).isTrue();
      int partitioned = ddl.indexOf("PARTITIONED BY");
      List<String> cols = new ArrayList<>();
      Matcher col = Pattern.compile("`(\\w+)` (\\w+(?:\\([0-9, ]+\\))?)").matcher(ddl);
      List<String> parts = new ArrayList<>();
      while (col.find()) {
        (col.start() < partitioned ? cols : parts).add(col.group(1) + " " + col.group(2));
      }
      Matcher stored = Pattern.compile("STORED AS (\\w+)").matcher(ddl);
      assertThat(stored.find()).isTrue();
      Matcher location = Pattern.compile("LOCATION '([^']+)'").matcher(ddl);
      assertThat(location.find()).isTrue();
      Map<String, String> props = new LinkedHashMap<>();
      Matcher prop = Pattern.compile("'([^']+)' = '([^']*)'").matcher(ddl);
      while (prop.find()) {
        props.put(prop.group(1), prop.group(2));
      }
      return new Ddl(
          head.group(1).replace("`", ""),
          cols,
          parts.subList(parts.size() - 1, parts.size()),
          stored.group(1),
          location.group(1),
          props);
    }
  }

  @Test
  void theGlueRawTableIsTheTableTheReconcilersAthenaDdlDeclares() throws Exception {
    JsonNode template = template();
    Map<String, String> values = values(template);
    String database = values.get("GlueDatabaseName");
    String rawLocation =
        "s3://" + values.get("LakeBucketName") + "/" + values.get("RawPrefix") + "/customers";
    Ddl ddl =
        Ddl.parse(
            RawTable.athenaDdl(
                DatasetSpec.customers(rawLocation, database + ".customers"),
                CURATED,
                database + "." + AthenaEngine.defaultRawTable("customers"),
                rawLocation,
                java.time.LocalDate.parse(GIVEN.get("ProjectionStart"))));

    JsonNode table = template.path("Resources").path("RawTable").path("Properties");
    assertThat(resolve(table.path("DatabaseName"), values)).isEqualTo(database);
    JsonNode input = table.path("TableInput");
    assertThat(database + "." + resolve(input.path("Name"), values)).isEqualTo(ddl.table());
    assertThat(input.path("TableType").asText()).isEqualTo("EXTERNAL_TABLE");

    JsonNode sd = input.path("StorageDescriptor");
    List<String> columns = new ArrayList<>();
    sd.path("Columns")
        .forEach(c -> columns.add(c.path("Name").asText() + " " + c.path("Type").asText()));
    assertThat(columns)
        .containsExactlyElementsOf(ddl.columns())
        .containsExactly(
            "customer_id string",
            "updated_at timestamp",
            "op string",
            "customer_name string",
            "email string");
    List<String> partitions = new ArrayList<>();
    input
        .path("PartitionKeys")
        .forEach(c -> partitions.add(c.path("Name").asText() + " " + c.path("Type").asText()));
    assertThat(partitions).containsExactlyElementsOf(ddl.partitions());
    assertThat(resolve(sd.path("Location"), values)).isEqualTo(ddl.location());

    // What Hive's STORED AS PARQUET stands for.
    assertThat(ddl.format()).isEqualTo("PARQUET");
    assertThat(sd.path("SerdeInfo").path("SerializationLibrary").asText())
        .isEqualTo("org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe");
    assertThat(sd.path("InputFormat").asText())
        .isEqualTo("org.apache.hadoop.hive.ql.io.parquet.MapredParquetInputFormat");
    assertThat(sd.path("OutputFormat").asText())
        .isEqualTo("org.apache.hadoop.hive.ql.io.parquet.MapredParquetOutputFormat");

    Map<String, String> parameters = new LinkedHashMap<>();
    input
        .path("Parameters")
        .fields()
        .forEachRemaining(p -> parameters.put(p.getKey(), resolve(p.getValue(), values)));
    // Glue's own markers of an external Parquet table; Athena's DDL sets them implicitly.
    assertThat(parameters.remove("EXTERNAL")).isEqualTo("TRUE");
    assertThat(parameters.remove("classification")).isEqualTo("parquet");
    assertThat(parameters).containsExactlyInAnyOrderEntriesOf(ddl.properties());
    assertThat(parameters)
        .containsEntry("projection.ingest_date.range", "2025-06-01,NOW+1DAYS")
        .containsEntry(
            "storage.location.template",
            "s3://acme-lake/raw/customers/ingest_date=${ingest_date}/");
  }

  @Test
  void theProjectionStartDefaultIsTheReconcilers() throws Exception {
    assertThat(template().path("Parameters").path("ProjectionStart").path("Default").asText())
        .isEqualTo(RawTable.PROJECTION_START_DEFAULT.toString());
  }

  // ---------------------------------------------------------------- the container's environment

  /** The container's environment, resolved, plus the API keys secret as ECS injects it. */
  private static Map<String, String> stackEnvironment() throws Exception {
    return stackEnvironment(Map.of());
  }

  /** The same, deployed with {@code given} parameter values besides {@link #GIVEN}. */
  private static Map<String, String> stackEnvironment(Map<String, String> given) throws Exception {
    JsonNode template = template();
    Map<String, String> values = values(template);
    values.putAll(given);
    JsonNode container =
        template
            .path("Resources")
            .path("ReconcilerTaskDefinition")
            .path("Properties")
            .path("ContainerDefinitions")
            .get(0);
    Map<String, String> env = new LinkedHashMap<>();
    container
        .path("Environment")
        .forEach(e -> env.put(e.path("Name").asText(), resolve(e.path("Value"), values)));
    JsonNode secret = container.path("Secrets").get(0);
    assertThat(secret.path("Name").asText()).isEqualTo("TIDEMARK_API_KEYS");
    // The secret's value: two keys, comma-separated.
    env.put(secret.path("Name").asText(), "first-key-123,second-key-456");
    return env;
  }

  private static TidemarkConfig fromEnvironment(Map<String, String> env) {
    return new SmallRyeConfigBuilder()
        .withMapping(TidemarkConfig.class)
        .withConverter(
            Duration.class, 200, new io.quarkus.runtime.configuration.DurationConverter())
        .withValidateUnknown(true)
        .withSources(new EnvConfigSource(env, 300))
        .build()
        .getConfigMapping(TidemarkConfig.class);
  }

  @Test
  void theContainersEnvironmentConfiguresTheAthenaEngineOnTheStacksResources() throws Exception {
    Map<String, String> env = stackEnvironment();
    SmallRyeConfig config =
        new SmallRyeConfigBuilder()
            .withMapping(TidemarkConfig.class)
            .withConverter(
                Duration.class, 200, new io.quarkus.runtime.configuration.DurationConverter())
            .withValidateUnknown(true)
            .withSources(new EnvConfigSource(env, 300))
            .build();
    TidemarkConfig c = config.getConfigMapping(TidemarkConfig.class);

    assertThat(c.engine()).isEqualTo("athena");
    assertThat(c.stateRoot()).isEqualTo("s3://acme-lake/state");
    assertThat(c.apiKeys()).contains(List.of("first-key-123", "second-key-456"));
    assertThat(c.athena().region()).contains("eu-west-1");
    assertThat(c.athena().workgroup()).isEqualTo("tidemark");
    assertThat(c.athena().outputLocation()).contains("s3://acme-lake/athena-results/");
    assertThat(c.athena().database()).contains("tidemark");
    assertThat(config.getValue("quarkus.http.host", String.class)).isEqualTo("0.0.0.0");

    ReconcilerSettings settings = ReconcilerSettings.from(c, Set.of("duckdb", "athena"), "0.0.0.0");
    assertThat(settings.datasets()).containsOnlyKeys("customers");
    ReconciledDataset d = settings.datasets().get("customers");
    assertThat(d.engine()).isEqualTo("athena");
    assertThat(d.spec().raw().location()).isEqualTo("s3://acme-lake/raw/customers");
    assertThat(d.spec().curatedTable()).isEqualTo("tidemark.customers");
    assertThat(d.catalog().properties())
        .containsEntry("type", "glue")
        .containsEntry("warehouse", "s3://acme-lake/warehouse")
        .doesNotContainKey("uri");
    assertThat(settings.protectReads()).isTrue();
    assertThat(d.spec().comparedColumns()).containsExactly("customer_name", "email");
    assertThat(c.cloudwatch().enabled()).isTrue();
    assertThat(c.cloudwatch().region()).contains("eu-west-1");
  }

  @Test
  void theDeployedServiceAnswersTheTasksAddressByDefault() throws Exception {
    // A Fargate task is reached by a private address it gets when it starts: the loopback names
    // the service allows by default would answer every call but /q/health with 421.
    ReconcilerSettings settings =
        ReconcilerSettings.from(
            fromEnvironment(stackEnvironment()), Set.of("duckdb", "athena"), "0.0.0.0");

    assertThat(settings.hosts().allowsHost("10.0.3.17:8080"))
        .as("the task's address is answered (allowed: %s)", settings.hosts().allowed())
        .isTrue();
    assertThat(settings.hosts().allowsHost("reconciler.internal.example")).isTrue();
    // Every API call still needs a key, which a page rebinding a name to the task cannot send.
    assertThat(settings.protectReads()).isTrue();
  }

  @Test
  void theHostNamesGivenToTheStackAreTheOnlyOnesTheServiceAnswers() throws Exception {
    JsonNode parameter = template().path("Parameters").path("ReconcilerHostNames");
    assertThat(parameter.path("Type").asText())
        .as("the parameter ReconcilerHostNames")
        .isEqualTo("String");
    Pattern allowed = Pattern.compile(parameter.path("AllowedPattern").asText());
    String given = "reconciler.internal.example,10.0.3.17:8080,[fd00::17]";
    assertThat(allowed.matcher(given).matches()).isTrue();
    assertThat(allowed.matcher(parameter.path("Default").asText()).matches()).isTrue();
    // Refused by CloudFormation rather than by a task that stops at start, again and again.
    for (String wrong : List.of("", "a b", "host,,other", "http://host")) {
      assertThat(allowed.matcher(wrong).matches()).as(wrong).isFalse();
    }

    ReconcilerSettings settings =
        ReconcilerSettings.from(
            fromEnvironment(stackEnvironment(Map.of("ReconcilerHostNames", given))),
            Set.of("duckdb", "athena"),
            "0.0.0.0");

    assertThat(settings.hosts().allowsHost("reconciler.internal.example")).isTrue();
    assertThat(settings.hosts().allowsHost("10.0.3.17:8080")).isTrue();
    assertThat(settings.hosts().allowsHost("[fd00::17]:8080")).isTrue();
    assertThat(settings.hosts().allowsHost("10.0.3.18:8080")).isFalse();
    assertThat(settings.hosts().allowsHost("localhost:8080")).isFalse();
  }

  @Test
  void anS3WarehouseMeansTheGlueCatalogEvenWithoutTheExplicitType() throws Exception {
    // The stack sets TIDEMARK_DATASETS_CUSTOMERS_CATALOG_PROPERTIES_TYPE=glue for the reader; an
    // s3:// warehouse cannot be the embedded SQLite catalog's folder, so Glue is the default.
    Map<String, String> env = stackEnvironment();
    assertThat(env.remove("TIDEMARK_DATASETS_CUSTOMERS_CATALOG_PROPERTIES_TYPE")).isEqualTo("glue");
    ReconciledDataset d =
        ReconcilerSettings.from(fromEnvironment(env), Set.of("duckdb", "athena"), "0.0.0.0")
            .datasets()
            .get("customers");
    assertThat(d.catalog().properties())
        .containsEntry("type", "glue")
        .containsEntry("warehouse", "s3://acme-lake/warehouse")
        .doesNotContainKey("uri");
  }
}
