package io.tidemark.ingest.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.tidemark.ingest.config.IngestSettings;
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

/**
 * The Glue job of the deployment stack ({@code deploy/tidemark-stack.json}) passes the ingest job
 * options this command knows, and they configure the run the stack means: raw and state on the lake
 * bucket, the curated table in the Glue catalog with its warehouse on S3, metrics in the
 * catalogue's namespace. They go through {@link GlueEntryPoint} as Glue passes them: the job's
 * default arguments (Glue's own {@code --job-language}, {@code --class}, {@code
 * --datalake-formats}, {@code --extra-jars} among them) plus what Glue adds at run time ({@code
 * --JOB_NAME}, {@code --JOB_RUN_ID}, {@code --TempDir}...).
 */
class TestGlueJobArguments {
  private static final String RUN_ID =
      "jr_5d8e4f0a9b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e";
  private static final Pattern VAR = Pattern.compile("\\$\\{([A-Za-z0-9_:.]+)}");

  private static final Map<String, String> VALUES =
      Map.of(
          "LakeBucketName", "acme-lake",
          "RawPrefix", "raw",
          "WarehousePrefix", "warehouse",
          "StatePrefix", "state",
          "Dataset", "customers",
          "Pipeline", "crm",
          // Ref of the Glue database: its name.
          "GlueDatabase", "lake_db",
          "AWS::Region", "eu-west-1",
          "ArtifactBucketName", "acme-artifacts",
          "JobJarKey", "tidemark/tidemark-ingest.jar");

  private static String resolve(JsonNode node) {
    if (node.isTextual()) {
      return node.asText();
    }
    if (node.has("Ref")) {
      return VALUES.get(node.get("Ref").asText());
    }
    Matcher m = VAR.matcher(node.get("Fn::Sub").asText());
    StringBuilder sb = new StringBuilder();
    while (m.find()) {
      m.appendReplacement(sb, Matcher.quoteReplacement(VALUES.get(m.group(1))));
    }
    return m.appendTail(sb).toString();
  }

  @Test
  void theStacksJobArgumentsAreThisCommandsOptionsAndConfigureTheGlueCatalogRun() throws Exception {
    JsonNode template =
        new ObjectMapper().readTree(Path.of("..").resolve(StackTemplate.PATH).toFile());
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
                "tidemark-ingest-crm-customers",
                "--TempDir",
                "s3://aws-glue-assets-123456789012-eu-west-1/temporary/",
                "--job-bookmark-option",
                "job-bookmark-disable"));
    arguments
        .fields()
        .forEachRemaining(
            a -> {
              args.add(a.getKey());
              args.add(resolve(a.getValue()));
            });
    assertThat(args).contains("--raw-root", "--dataset", "--catalog-property", "--state-root");

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
    assertThat(s.dataset().name()).isEqualTo("customers");
    assertThat(s.dataset().pipeline()).isEqualTo("crm");
    assertThat(s.dataset().raw().location()).isEqualTo("s3://acme-lake/raw/customers");
    assertThat(s.dataset().curatedTable()).isEqualTo("lake_db.customers");
    assertThat(s.tombstoneTable()).isEqualTo("lake_db.customers_tombstones");
    assertThat(s.dataset().quarantineTable()).isEqualTo("lake_db.customers_quarantine");
    assertThat(s.catalog().properties())
        .containsEntry("type", "glue")
        .containsEntry("warehouse", "s3://acme-lake/warehouse")
        .doesNotContainKey("uri");
    assertThat(s.stateRoot()).isEqualTo("s3://acme-lake/state");
    assertThat(s.cloudWatch()).isPresent();
    assertThat(s.cloudWatch().get().namespace()).isEqualTo("Tidemark");
    assertThat(s.cloudWatch().get().region()).isEqualTo("eu-west-1");
    assertThat(s.runId()).isEqualTo(RUN_ID);
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
