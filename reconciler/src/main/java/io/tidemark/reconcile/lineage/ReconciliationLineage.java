package io.tidemark.reconcile.lineage;

import io.openlineage.client.OpenLineage;
import io.tidemark.model.config.CatalogSpec;
import io.tidemark.model.contract.DatasetContract;
import io.tidemark.model.lineage.LineageNames;
import io.tidemark.model.report.ReconciliationReport;
import io.tidemark.model.report.ReconciliationStatus;
import io.tidemark.model.report.RuleResult;
import io.tidemark.model.report.RuleStatus;
import java.net.URI;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.List;
import java.util.UUID;

/**
 * A finished reconciliation as an OpenLineage run event: the job {@code
 * reconcile.<pipeline>.<dataset>} in the configured namespace reads the raw layer and the curated
 * table, and the curated table's input carries a {@code dataQualityAssertions} facet with one
 * assertion per rule (its id, whether it passed). A run that checked (PASSED or FAILED) is
 * COMPLETE: the verdict is in its assertions; one that could not check (ERROR) is FAIL, with an
 * {@code errorMessage} facet. The run id is derived from the reconciliation id, so a consumer can
 * find the report from it and back.
 */
public final class ReconciliationLineage {
  /** The producer every event names. */
  public static final URI PRODUCER = URI.create("urn:tidemark:reconciler");

  private final OpenLineage ol = new OpenLineage(PRODUCER);
  private final String namespace;

  /**
   * @param namespace the jobs' namespace, e.g. {@code tidemark} or a deployment's name
   */
  public ReconciliationLineage(String namespace) {
    this.namespace = namespace;
  }

  /** The run id of a reconciliation: a name-based UUID of its id. */
  public static UUID runId(String reconciliationId) {
    return LineageNames.runId("reconciliation", reconciliationId);
  }

  /** The job's name for a dataset. */
  public static String jobName(String pipeline, String dataset) {
    return "reconcile." + pipeline + "." + dataset;
  }

  /** The event of a finished reconciliation of the dataset the contract declares. */
  public OpenLineage.RunEvent event(
      ReconciliationReport r, DatasetContract contract, CatalogSpec catalog) {
    boolean checked = r.status() != ReconciliationStatus.ERROR;
    OpenLineage.RunFacet tidemark = ol.newRunFacet();
    tidemark.getAdditionalProperties().put("reconciliationId", r.id());
    tidemark.getAdditionalProperties().put("mode", r.mode().name());
    tidemark.getAdditionalProperties().put("status", r.status().name());
    if (r.curatedSnapshot() != null) {
      tidemark.getAdditionalProperties().put("curatedSnapshot", r.curatedSnapshot().id());
    }
    OpenLineage.RunFacetsBuilder runFacets = ol.newRunFacetsBuilder().put("tidemark", tidemark);
    if (r.windowTo() != null) {
      runFacets.nominalTime(
          ol.newNominalTimeRunFacetBuilder()
              .nominalStartTime(r.windowFrom() == null ? null : utc(r.windowFrom()))
              .nominalEndTime(utc(r.windowTo()))
              .build());
    }
    if (!checked) {
      runFacets.errorMessage(
          ol.newErrorMessageRunFacetBuilder()
              .message(r.error() == null ? "the reconciliation could not check" : r.error())
              .programmingLanguage("JAVA")
              .build());
    }
    List<OpenLineage.DataQualityAssertionsDatasetFacetAssertions> assertions =
        r.results().stream().map(this::assertion).toList();
    LineageNames.Name raw = LineageNames.location(contract.raw().location());
    OpenLineage.InputDataset rawInput =
        ol.newInputDatasetBuilder().namespace(raw.namespace()).name(raw.name()).build();
    LineageNames.Name table = LineageNames.table(catalog, contract.curatedTable());
    OpenLineage.InputDataset curated =
        ol.newInputDatasetBuilder()
            .namespace(table.namespace())
            .name(table.name())
            .inputFacets(
                assertions.isEmpty()
                    ? null
                    : ol.newInputDatasetInputFacetsBuilder()
                        .dataQualityAssertions(
                            ol.newDataQualityAssertionsDatasetFacetBuilder()
                                .assertions(assertions)
                                .build())
                        .build())
            .build();
    return ol.newRunEventBuilder()
        .eventType(
            checked ? OpenLineage.RunEvent.EventType.COMPLETE : OpenLineage.RunEvent.EventType.FAIL)
        .eventTime(utc(r.finishedAt()))
        .run(ol.newRunBuilder().runId(runId(r.id())).facets(runFacets.build()).build())
        .job(
            ol.newJobBuilder()
                .namespace(namespace)
                .name(jobName(r.pipeline(), r.dataset()))
                .facets(
                    ol.newJobFacetsBuilder()
                        .jobType(
                            ol.newJobTypeJobFacetBuilder()
                                .processingType("BATCH")
                                .integration("TIDEMARK")
                                .jobType("RECONCILIATION")
                                .build())
                        .build())
                .build())
        .inputs(List.of(rawInput, curated))
        .outputs(List.of())
        .build();
  }

  private OpenLineage.DataQualityAssertionsDatasetFacetAssertions assertion(RuleResult r) {
    return ol.newDataQualityAssertionsDatasetFacetAssertionsBuilder()
        .assertion(r.ruleId())
        .success(r.status() == RuleStatus.PASS)
        .build();
  }

  private static ZonedDateTime utc(Instant i) {
    return i.atZone(ZoneOffset.UTC);
  }
}
