package io.tidemark.reconcile.rest;

import io.tidemark.model.report.Acknowledgement;
import io.tidemark.reconcile.service.InvalidRequestException;
import io.tidemark.reconcile.service.ReconciliationService;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriInfo;
import java.util.List;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.security.SecurityRequirement;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

/**
 * Acknowledgements of failing rules: a person says "we know, we are on it", and the rule's failure
 * stops alerting (RuleAlerting 0, its alarm and the dataset's composite quiet) for as long as the
 * failure names nothing new. The rule still fails in every report and verdict.
 */
@Path("/api/datasets/{dataset}/acknowledgements")
@Produces(MediaType.APPLICATION_JSON)
@ReadKeyRequired
@Tag(name = "datasets")
public class AcknowledgementResource {
  private static final String ACKNOWLEDGE = "acknowledge a rule";
  private static final String WITHDRAW = "withdraw an acknowledgement";
  private static final String LIST = "list acknowledgements";

  /**
   * What to acknowledge.
   *
   * @param rule the failing rule's id
   * @param by who acknowledges (a name or handle, shown on the status page and in the report)
   * @param note why, e.g. a ticket; optional
   * @param reconciliationId the reconciliation whose failure is acknowledged, as the person saw it;
   *     optional, and refused (409) when it is no longer the dataset's latest
   */
  public record AcknowledgeRequest(String rule, String by, String note, String reconciliationId) {}

  private final ReconciliationService service;

  public AcknowledgementResource(ReconciliationService service) {
    this.service = service;
  }

  @POST
  @ApiKeyRequired
  @Consumes(MediaType.APPLICATION_JSON)
  @SecurityRequirement(name = "apiKey")
  @Operation(
      summary = "Acknowledge a failing rule",
      description =
          "Acknowledges the rule's failure in the dataset's latest finished reconciliation: it"
              + " stops alerting while later failures of the rule observe no more and name no key"
              + " (or run, file, column, commit) it did not. A larger or different failure alerts"
              + " again; a pass clears it.")
  @APIResponse(responseCode = "201", description = "Acknowledged: the acknowledgement")
  @APIResponse(responseCode = "400", description = "No rule or 'by', or a rule the dataset lacks")
  @APIResponse(responseCode = "401", description = "No valid X-API-Key header")
  @APIResponse(responseCode = "404", description = "Unknown dataset")
  @APIResponse(
      responseCode = "409",
      description =
          "The rule does not fail in the latest reconciliation (nothing to acknowledge), or the"
              + " reconciliationId given is not the latest")
  public Response acknowledge(@PathParam("dataset") String dataset, AcknowledgeRequest request) {
    if (request == null) {
      throw new InvalidRequestException(
          ACKNOWLEDGE, "rule", null, "the body must be a JSON object");
    }
    ReconciliationResource.dataset(service, ACKNOWLEDGE, dataset, true);
    if (request.rule() == null || request.rule().isBlank()) {
      throw new InvalidRequestException(ACKNOWLEDGE, "rule", request.rule(), "is required");
    }
    Acknowledgement a =
        service.acknowledge(
            dataset, request.rule(), request.by(), request.note(), request.reconciliationId());
    return Response.status(Response.Status.CREATED).entity(a).build();
  }

  @DELETE
  @Path("/{rule}")
  @ApiKeyRequired
  @SecurityRequirement(name = "apiKey")
  @Operation(
      summary = "Withdraw an acknowledgement",
      description = "The rule's failure alerts again. Answers the acknowledgement withdrawn.")
  @APIResponse(responseCode = "200", description = "Withdrawn")
  @APIResponse(responseCode = "401", description = "No valid X-API-Key header")
  @APIResponse(responseCode = "404", description = "Unknown dataset")
  @APIResponse(responseCode = "409", description = "The rule has no acknowledgement")
  public Acknowledgement withdraw(
      @PathParam("dataset") String dataset, @PathParam("rule") String rule) {
    ReconciliationResource.dataset(service, WITHDRAW, dataset, true);
    return service.withdraw(dataset, rule);
  }

  @GET
  @Operation(
      summary = "The acknowledgements that hold",
      description = "Those of the dataset's latest finished reconciliation, as it stores them.")
  public List<Acknowledgement> list(@PathParam("dataset") String dataset, @Context UriInfo uri) {
    QueryParams.onlyKnown(LIST, uri);
    ReconciliationResource.dataset(service, LIST, dataset, true);
    return service.reconciler().acknowledgements(dataset);
  }
}
