package io.tidemark.reconcile.lineage;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.openlineage.client.OpenLineageClientUtils;
import io.tidemark.model.report.ReconciliationMode;
import io.tidemark.model.report.ReconciliationReport;
import io.tidemark.model.report.ReconciliationStatus;
import io.tidemark.reconcile.fixtures.Contracts;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A reconciliation that could not check, as OpenLineage reads it. */
class TestReconciliationLineage {
  private static final Instant T = Instant.parse("2026-12-04T10:00:00Z");

  @Test
  void aReconciliationThatCouldNotCheckIsAFailedRunSayingWhy() throws Exception {
    ReconciliationReport error =
        new ReconciliationReport(
            ReconciliationReport.SCHEMA_VERSION,
            "20261204T100000Z-0a1b2c3d",
            "crm",
            "customers",
            ReconciliationMode.WINDOW,
            T.minusSeconds(3600),
            T,
            "athena",
            "schedule",
            ReconciliationStatus.ERROR,
            T,
            T.plusSeconds(5),
            List.of(),
            0,
            0.0,
            "Cannot read curated.customers: table not found",
            null,
            null);
    var event =
        new ReconciliationLineage("crm")
            .event(
                error,
                Contracts.customers(
                    "customers", "s3://acme-lake/raw/customers", "curated.customers"),
                new io.tidemark.model.config.CatalogSpec(
                    "tidemark", java.util.Map.of("warehouse", "s3://acme-lake/warehouse")));
    JsonNode e = new ObjectMapper().readTree(OpenLineageClientUtils.toJson(event));
    assertThat(e.path("eventType").asText()).isEqualTo("FAIL");
    assertThat(e.path("run").path("facets").path("errorMessage").path("message").asText())
        .isEqualTo("Cannot read curated.customers: table not found");
    assertThat(e.path("run").path("facets").path("nominalTime").path("nominalStartTime").asText())
        .startsWith("2026-12-04T09:00");
    assertThat(e.path("inputs").get(0).path("namespace").asText()).isEqualTo("s3://acme-lake");
    assertThat(e.path("inputs").get(0).path("name").asText()).isEqualTo("raw/customers");
    assertThat(e.path("inputs").get(1).path("namespace").asText())
        .isEqualTo("s3://acme-lake/warehouse");
    assertThat(e.path("inputs").get(1).has("inputFacets"))
        .as("no assertions: nothing was checked")
        .isFalse();
    assertThat(e.path("run").path("runId").asText())
        .isEqualTo(ReconciliationLineage.runId("20261204T100000Z-0a1b2c3d").toString());
  }
}
