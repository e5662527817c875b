package io.tidemark.ingest.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.tidemark.ingest.config.IngestSettings;
import io.tidemark.model.templates.StackTemplate;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The Glue job of the deployment stack ({@code deploy/tidemark-stack.json}) passes the ingest job
 * options this command knows, and they configure the run the stack means: raw and state on the lake
 * bucket, the curated table in the Glue catalog with its warehouse on S3, metrics in the
 * catalogue's namespace. Glue's own arguments ({@code --datalake-formats}, {@code --extra-jars},
 * and at run time {@code --JOB_NAME}, {@code --JOB_RUN_ID}...) are the Glue entry point's to drop.
 */
class TestGlueJobArguments {
  private static final Set<String> GLUE_OWN = Set.of("--datalake-formats", "--extra-jars");
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
          "AWS::Region", "eu-west-1");

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
    List<String> args = new ArrayList<>();
    arguments
        .fields()
        .forEachRemaining(
            a -> {
              if (!GLUE_OWN.contains(a.getKey())) {
                args.add(a.getKey());
                args.add(resolve(a.getValue()));
              }
            });
    assertThat(args).contains("--raw-root", "--dataset", "--catalog-property", "--state-root");

    List<IngestSettings> seen = new ArrayList<>();
    StringWriter err = new StringWriter();
    // Stop before Spark: this test is about the options, not the run.
    assertThatThrownBy(
            () ->
                IngestCommand.run(
                    args.toArray(String[]::new),
                    new PrintWriter(new StringWriter(), true),
                    new PrintWriter(err, true),
                    (settings, master) -> {
                      seen.add(settings);
                      throw new IllegalStateException("stop before Spark");
                    }))
        .hasMessage("stop before Spark");
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
  }
}
