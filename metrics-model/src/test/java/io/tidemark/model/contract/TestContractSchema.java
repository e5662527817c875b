package io.tidemark.model.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.SpecVersion;
import com.networknt.schema.ValidationMessage;
import io.tidemark.model.testing.ProjectFiles;
import java.io.InputStream;
import java.nio.file.Files;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The JSON Schema editors complete contract files with says what the loader says: the shipped
 * contracts pass both, and each mistake below fails both.
 */
class TestContractSchema {
  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
  private static JsonSchema schema;

  @BeforeAll
  static void load() throws Exception {
    try (InputStream in = ContractFile.class.getResourceAsStream(ContractFile.SCHEMA_RESOURCE)) {
      assertThat(in).as(ContractFile.SCHEMA_RESOURCE).isNotNull();
      schema = JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V202012).getSchema(in);
    }
  }

  private static Set<ValidationMessage> validate(String yaml) throws Exception {
    JsonNode doc = YAML.readTree(yaml);
    return schema.validate(doc);
  }

  @Test
  void theShippedContractsAreValid() throws Exception {
    for (String f : List.of("examples/demo/tidemark.yaml", "examples/orders/tidemark.yaml")) {
      String text = Files.readString(ProjectFiles.root().resolve(f));
      assertThat(validate(text)).as(f).isEmpty();
      ContractFile.parse(f, text, "/tmp");
    }
  }

  @Test
  void mistakesFailTheSchemaAndTheLoaderAlike() throws Exception {
    String good = Files.readString(ProjectFiles.root().resolve("examples/orders/tidemark.yaml"));
    List<String[]> mistakes =
        List.of(
            new String[] {"layout: {kind: dms}", "layout: {kind: flat}"},
            new String[] {"amount: decimal(12,2)", "amount: double"},
            new String[] {"type: sequence}", "type: lsn}"},
            new String[] {"key-columns:", "keys:"},
            new String[] {
              "curated:\n      table: curated.orders", "curated:\n      name: curated.orders"
            },
            new String[] {"version: 1", "version: 2"},
            new String[] {"delete: [D]", "delete: []"},
            new String[] {"freshness: {threshold: 172800}", "freshness: {threshold: -5}"},
            new String[] {"layout: {kind: dms}", "layout: {kind: hive}"});
    for (String[] m : mistakes) {
      assertThat(good).as(m[0]).contains(m[0]);
      String bad = good.replace(m[0], m[1]);
      assertThat(validate(bad)).as("schema on " + m[1]).isNotEmpty();
      assertThatThrownBy(() -> ContractFile.parse("orders.yaml", bad, "/tmp"))
          .as("loader on " + m[1])
          .isInstanceOf(ContractException.class);
    }
  }
}
