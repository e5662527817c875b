package io.tidemark.reconcile.rest;

import io.tidemark.model.audit.AuditRequest;
import io.tidemark.model.report.ReconciliationReport;
import io.tidemark.reconcile.service.InvalidRequestException;
import io.tidemark.reconcile.service.ReconciliationService;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.security.SecurityRequirement;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

/**
 * Audits of ingest runs' branches (verified publish): the ingest job asks before it publishes a
 * batch to {@code main}, and publishes only on PASSED. The call waits for the verdict; the audit is
 * answered, not stored.
 */
@Path("/api/datasets/{dataset}/audits")
@Produces(MediaType.APPLICATION_JSON)
@Tag(name = "datasets")
public class AuditResource {
  private static final String AUDIT = "audit a branch";

  private final ReconciliationService service;

  public AuditResource(ReconciliationService service) {
    this.service = service;
  }

  @POST
  @ApiKeyRequired
  @Consumes(MediaType.APPLICATION_JSON)
  @SecurityRequirement(name = "apiKey")
  @Operation(
      summary = "Audit an ingest run's branch before it is published",
      description =
          "Runs the dataset's record-level rules (count_match, missing_keys, unexpected_keys,"
              + " duplicate_keys, stale_versions, value_mismatches) as a FULL comparison of the"
              + " curated snapshot named (the head of the run's branch) against the raw files"
              + " that had arrived by rawArrivedBy, and answers the reconciliation report: PASSED,"
              + " FAILED with the failing rules and sample keys, or ERROR. The report is not"
              + " stored, published as metrics or alarmed on: the batch is not on main.")
  @APIResponse(responseCode = "200", description = "The audit's report")
  @APIResponse(responseCode = "400", description = "A field missing or wrong, named")
  @APIResponse(responseCode = "401", description = "No valid X-API-Key header")
  @APIResponse(responseCode = "404", description = "Unknown dataset")
  public ReconciliationReport audit(@PathParam("dataset") String dataset, AuditRequest request) {
    if (request == null) {
      throw new InvalidRequestException(AUDIT, "runId", null, "the body must be a JSON object");
    }
    ReconciliationResource.dataset(service, AUDIT, dataset, true);
    return service.reconciler().audit(dataset, request);
  }
}
