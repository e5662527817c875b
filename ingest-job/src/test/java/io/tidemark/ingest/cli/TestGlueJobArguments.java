package io.tidemark.ingest.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.tidemark.ingest.config.IngestSettings;
import io.tidemark.model.config.ChangeMarkerType;
import io.tidemark.model.contract.ColumnType;
import io.tidemark.model.contract.layout.Layout;
import io.tidemark.model.report.IngestMode;
import io.tidemark.stack.StackTemplate;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Glue job of the deployment stack ({@code deploy/tidemark-stack.json}) passes the ingest job
 * options this command knows, and with each trigger's {@code --dataset} they configure the run the
 * stack means: the dataset as the contract the stack was generated from declares it ({@code
 * --contract}), state on the lake bucket, the curated table in the contract's Glue catalog, metrics
 * in the catalogue's namespace. They go through {@link GlueEntryPoint} as Glue passes them: the
 * job's default arguments (Glue's own {@code --job-language}, {@code --class}, {@code
 * --datalake-formats}, {@code --extra-jars} among them) plus what Glue adds at run time ({@code
 * --JOB_NAME}, {@code --JOB_RUN_ID}, {@code --TempDir}...).
 */
class TestGlueJobArguments {
  private static final String RUN_ID =
      "jr_5d8e4f0a9b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e";
  private static final Pattern VAR = Pattern.compile("\\$\\{([A-Za-z0-9_:.]+)}");

  /** The stack's parameters as a deployment sets them (and Refs' values); a test may change one. */
  private final Map<String, String> values =
      new java.util.HashMap<>(
          Map.ofEntries(
              Map.entry("LakeBucketName", "acme-lake"),
              Map.entry("RawPrefix", "raw"),
              Map.entry("WarehousePrefix", "warehouse"),
              Map.entry("StatePrefix", "state"),
              // Ref of the Glue database: its name.
              Map.entry("GlueDatabase", "lake_db"),
              Map.entry("AWS::Region", "eu-west-1"),
              Map.entry("ArtifactBucketName", "acme-artifacts"),
              Map.entry("JobJarKey", "tidemark/tidemark-ingest.jar"),
              Map.entry("ContractKey", "tidemark/tidemark.yaml"),
              Map.entry("DeploymentName", "main"),
              Map.entry("ReconcilerUrl", ""),
              Map.entry("ReconcilerApiKeyKey", "tidemark/reconciler-api-key")));

  /** A value as CloudFormation resolves it; null for {@code AWS::NoValue} (no argument). */
  private String resolve(JsonNode node) {
    if (node.isTextual()) {
      return node.asText();
    }
    if (node.has("Fn::If")) {
      String condition = node.get("Fn::If").get(0).asText();
      assertThat(condition).isEqualTo(StackTemplate.VERIFIED_PUBLISH);
      boolean holds = !values.get("ReconcilerUrl").isEmpty();
      return resolve(node.get("Fn::If").get(holds ? 1 : 2));
    }
    if (node.has("Ref")) {
      String name = node.get("Ref").asText();
      return name.equals("AWS::NoValue") ? null : values.get(name);
    }
    Matcher m = VAR.matcher(node.get("Fn::Sub").asText());
    StringBuilder sb = new StringBuilder();
    while (m.find()) {
      m.appendReplacement(sb, Matcher.quoteReplacement(values.get(m.group(1))));
    }
    return m.appendTail(sb).toString();
  }

  @TempDir Path artifacts;

  /**
   * The job's default arguments plus one trigger's, as Glue passes them (with its own), through
   * {@link GlueEntryPoint}; the settings the run would use. The contract is the one the stack is
   * generated from, read from a local folder standing in for the artifact bucket.
   */
  private IngestSettings settingsOf(JsonNode template, String trigger) throws Exception {
    Path contract = artifacts.resolve("tidemark/tidemark.yaml");
    Files.createDirectories(contract.getParent());
    Files.copy(
        Path.of("..").resolve(StackTemplate.EXAMPLE_CONTRACT),
        contract,
        java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    JsonNode arguments =
        template.path("Resources").path("IngestJob").path("Properties").path("DefaultArguments");
    List<String> args =
        new ArrayList<>(
            List.of(
                "--JOB_ID",
                "j_0a1b2c3d4e5f",
                "--JOB_RUN_ID",
                RUN_ID,
                "--JOB_NAME",
                "tidemark-ingest-main",
                "--TempDir",
                "s3://aws-glue-assets-123456789012-eu-west-1/temporary/",
                "--job-bookmark-option",
                "job-bookmark-disable"));
    arguments
        .fields()
        .forEachRemaining(
            a -> {
              String value = resolve(a.getValue());
              if (value != null) {
                args.add(a.getKey());
                args.add(local(value));
              }
            });
    template
        .path("Resources")
        .path(trigger)
        .path("Properties")
        .path("Actions")
        .get(0)
        .path("Arguments")
        .fields()
        .forEachRemaining(
            a -> {
              args.add(a.getKey());
              args.add(resolve(a.getValue()));
            });
    assertThat(args).contains("--contract", "--dataset", "--state-root");

    List<IngestSettings> seen = new ArrayList<>();
    StringWriter err = new StringWriter();
    // Stop before Spark: this test is about the options, not the run.
    assertThatThrownBy(
            () ->
                GlueEntryPoint.run(
                    args.toArray(String[]::new),
                    new PrintWriter(new StringWriter(), true),
                    new PrintWriter(err, true),
                    (settings, master) -> {
                      seen.add(settings);
                      throw new IllegalStateException("stop before Spark");
                    }))
        .hasMessage("stop before Spark");
    assertThat(err.toString())
        .contains(
            "ignoring Glue's own arguments: --TempDir, --class, --datalake-formats, --extra-jars,"
                + " --job-bookmark-option, --job-language");
    assertThat(seen).as("options parsed: %s", err).hasSize(1);
    IngestSettings s = seen.get(0);
    assertThat(s.catalog().properties())
        .containsEntry("type", "glue")
        .containsEntry("warehouse", "s3://acme-lake/warehouse")
        .doesNotContainKey("uri");
    assertThat(s.stateRoot()).isEqualTo("s3://acme-lake/state");
    assertThat(s.cloudWatch()).isPresent();
    assertThat(s.cloudWatch().get().namespace()).isEqualTo("Tidemark");
    assertThat(s.cloudWatch().get().region()).isEqualTo("eu-west-1");
    assertThat(s.runId()).isEqualTo(RUN_ID);
    // Every run's event, on the default bus of the stack's region, naming its deployment.
    assertThat(s.events()).isPresent();
    assertThat(s.events().get().bus()).isEqualTo("default");
    assertThat(s.events().get().region()).contains("eu-west-1");
    assertThat(s.events().get().deployment()).contains("main");
    return s;
  }

  /** The artifact bucket's objects, read from the local stand-in. */
  private String local(String value) {
    String bucket = "s3://" + values.get("ArtifactBucketName") + "/";
    return value.startsWith(bucket)
        ? artifacts.resolve(value.substring(bucket.length())).toUri().toString()
        : value;
  }

  @Test
  void theStacksJobArgumentsAndEachTriggersDatasetConfigureTheGlueCatalogRunFromTheContract()
      throws Exception {
    JsonNode template =
        new ObjectMapper().readTree(Path.of("..").resolve(StackTemplate.PATH).toFile());

    IngestSettings customers = settingsOf(template, "CustomersIngestTrigger");
    assertThat(customers.mode()).isEqualTo(IngestMode.INCREMENTAL);
    assertThat(customers.dataset().name()).isEqualTo("customers");
    assertThat(customers.dataset().pipeline()).isEqualTo("crm");
    assertThat(customers.dataset().raw().location()).isEqualTo("s3://acme-lake/raw/customers");
    assertThat(customers.dataset().raw().layout())
        .isEqualTo(Layout.Dated.hive("ingest_date", "yyyy-MM-dd"));
    assertThat(customers.dataset().keyColumns()).containsExactly("customer_id");
    assertThat(customers.dataset().operationColumn()).isEqualTo("op");
    assertThat(customers.dataset().curatedTable()).isEqualTo("curated.customers");
    assertThat(customers.tombstoneTable()).isEqualTo("curated.customers_tombstones");
    assertThat(customers.dataset().quarantineTable()).isEqualTo("curated.customers_quarantine");

    IngestSettings orders = settingsOf(template, "OrdersIngestTrigger");
    assertThat(orders.mode()).isEqualTo(IngestMode.INCREMENTAL);
    assertThat(orders.dataset().name()).isEqualTo("orders");
    assertThat(orders.dataset().pipeline()).isEqualTo("sales");
    assertThat(orders.dataset().raw().location()).isEqualTo("s3://acme-dms/exports/sales/orders");
    assertThat(orders.dataset().raw().layout()).isEqualTo(new Layout.Dms(null));
    assertThat(orders.dataset().keyColumns()).containsExactly("order_id", "line_nr");
    assertThat(orders.dataset().columns().get("amount")).isEqualTo(ColumnType.decimal(12, 2));
    assertThat(orders.dataset().changeMarker().type()).isEqualTo(ChangeMarkerType.LONG);
    assertThat(orders.dataset().operation().upsert()).containsExactly("I", "U");
    assertThat(orders.dataset().operation().delete()).containsExactly("D");
    assertThat(orders.dataset().curatedTable()).isEqualTo("curated.orders");
    assertThat(orders.dataset().curated().partitionBy()).containsExactly("month(order_date)");

    IngestSettings sweep = settingsOf(template, "OrdersSweepTrigger");
    assertThat(sweep.mode()).isEqualTo(IngestMode.SWEEP);
    assertThat(sweep.dataset().name()).isEqualTo("orders");
  }

  @Test
  void verifiedPublishIsOffByDefaultAndOnWithTheReconcilersUrlAndTheKeyObject() throws Exception {
    JsonNode template =
        new ObjectMapper().readTree(Path.of("..").resolve(StackTemplate.PATH).toFile());
    IngestSettings plain = settingsOf(template, "CustomersIngestTrigger");
    assertThat(plain.publish().on()).as("ReconcilerUrl empty: no audit").isFalse();

    // The key object, in the artifact bucket's stand-in, as an operator uploads it.
    Path key = artifacts.resolve("tidemark/reconciler-api-key");
    Files.createDirectories(key.getParent());
    Files.writeString(key, "k3y-from-the-artifact-bucket\n");
    values.put("ReconcilerUrl", "https://reconciler.internal:8080");
    IngestSettings verified = settingsOf(template, "CustomersIngestTrigger");
    assertThat(verified.publish().on()).isTrue();
    assertThat(verified.publish().where()).isEqualTo("https://reconciler.internal:8080");
    assertThat(verified.dataset().name()).isEqualTo("customers");
  }

  @Test
  void theStacksScriptDefinesTheJobsClassAndHandsItsArgumentsToTheGlueEntryPoint()
      throws Exception {
    JsonNode template =
        new ObjectMapper().readTree(Path.of("..").resolve(StackTemplate.PATH).toFile());
    String glueClass =
        template
            .path("Resources")
            .path("IngestJob")
            .path("Properties")
            .path("DefaultArguments")
            .path("--class")
            .asText();
    assertThat(glueClass).isEqualTo(StackTemplate.GLUE_SCRIPT_OBJECT);
    String script = Files.readString(Path.of("..", "deploy", "glue", "ingest.scala"));
    assertThat(script)
        .contains("object " + glueClass + " {")
        .contains("def main(sysArgs: Array[String]): Unit =")
        .contains(GlueEntryPoint.class.getName() + ".main(sysArgs)");
    assertThat(GlueEntryPoint.class.getMethod("main", String[].class)).isNotNull();
  }
}
