package io.tidemark.reconcile.rest;

import io.tidemark.reconcile.alarms.AlarmStatus;
import io.tidemark.reconcile.service.ReconciliationService;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.UriInfo;
import java.util.List;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.parameters.Parameter;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

/** The alarms of {@code alerts/}, evaluated locally against the metrics the service produced. */
@Path("/api/alarms")
@Produces(MediaType.APPLICATION_JSON)
@ReadKeyRequired
@Tag(name = "alarms")
public class AlarmResource {
  private static final String LIST = "list alarms";

  private final ReconciliationService service;

  public AlarmResource(ReconciliationService service) {
    this.service = service;
  }

  @GET
  @Operation(
      summary = "Every alarm's state: OK, ALARM or INSUFFICIENT_DATA, with the reason",
      description =
          "Evaluated now, with CloudWatch's semantics (threshold, M out of N datapoints, missing"
              + " data), from the same definitions CloudFormation deploys.")
  public List<AlarmStatus> list(
      @Parameter(description = "Only this dataset's alarms") @QueryParam("dataset") String dataset,
      @Context UriInfo uri) {
    QueryParams.onlyKnown(LIST, uri, "dataset");
    if (dataset != null) {
      ReconciliationResource.dataset(service, LIST, dataset, true);
    }
    List<AlarmStatus> all = service.alarms();
    return dataset == null ? all : all.stream().filter(a -> a.dataset().equals(dataset)).toList();
  }
}
