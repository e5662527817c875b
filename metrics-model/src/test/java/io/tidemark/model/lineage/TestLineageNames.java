package io.tidemark.model.lineage;

import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.model.config.CatalogSpec;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Places and runs are named as the OpenLineage specification says, the same for the job's output
 * and the reconciliation's input.
 */
class TestLineageNames {
  @Test
  void placesAreNamedAsTheSpecificationSays() {
    assertThat(LineageNames.location("s3://acme-lake/raw/orders"))
        .isEqualTo(new LineageNames.Name("s3://acme-lake", "raw/orders"));
    assertThat(LineageNames.location("/data/raw/orders"))
        .isEqualTo(new LineageNames.Name("file", "/data/raw/orders"));
    assertThat(LineageNames.location("file:///data/raw/orders"))
        .isEqualTo(new LineageNames.Name("file", "/data/raw/orders"));
  }

  @Test
  void aTableIsNamedInItsWarehouse() {
    assertThat(
            LineageNames.table(
                new CatalogSpec("glue", Map.of("warehouse", "s3://acme-lake/warehouse")),
                "curated.orders"))
        .isEqualTo(new LineageNames.Name("s3://acme-lake/warehouse", "curated.orders"));
    assertThat(
            LineageNames.table(
                new CatalogSpec("tidemark", Map.of("warehouse", "/data/warehouse")),
                "curated.orders"))
        .isEqualTo(new LineageNames.Name("file:///data/warehouse", "curated.orders"));
  }

  @Test
  void aRunIdIsTheSameForTheSameIdAndKindOnly() {
    assertThat(LineageNames.runId("reconciliation", "r1"))
        .isEqualTo(LineageNames.runId("reconciliation", "r1"))
        .isNotEqualTo(LineageNames.runId("ingest-run", "r1"))
        .isNotEqualTo(LineageNames.runId("reconciliation", "r2"));
  }
}
