package io.tidemark.reconcile.rest;

import io.tidemark.reconcile.report.UnreadableReport;
import io.tidemark.reconcile.service.ReconciliationService;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.UriInfo;
import java.util.List;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

/** The stored reports left out of every answer because they do not parse. */
@Path("/api/unreadable-reports")
@Produces(MediaType.APPLICATION_JSON)
@ReadKeyRequired
@Tag(name = "reports")
public class UnreadableReportResource {
  private final ReconciliationService service;

  public UnreadableReportResource(ReconciliationService service) {
    this.service = service;
  }

  @GET
  @Operation(
      summary = "Stored reports that do not parse",
      description =
          "Run reports and reconciliation reports left out of the answers, each with its location"
              + " and the parser's reason; they stay where they are for a person. Run reports are"
              + " those of the day folders read so far (every reconciliation reads them all).")
  public List<UnreadableReport> list(@Context UriInfo uri) {
    QueryParams.onlyKnown("list unreadable reports", uri);
    return service.unreadableReports();
  }
}
