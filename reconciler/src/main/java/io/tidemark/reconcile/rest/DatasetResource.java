package io.tidemark.reconcile.rest;

import io.tidemark.model.config.DatasetSpec;
import io.tidemark.reconcile.config.ReconciledDataset;
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

/** The configured datasets. */
@Path("/api/datasets")
@Produces(MediaType.APPLICATION_JSON)
@ReadKeyRequired
@Tag(name = "datasets")
public class DatasetResource {
  private final ReconciliationService service;

  public DatasetResource(ReconciliationService service) {
    this.service = service;
  }

  @GET
  @Operation(summary = "The configured datasets, their rules, schedule and running reconciliation")
  public List<DatasetView> list(@Context UriInfo uri) {
    QueryParams.onlyKnown("list datasets", uri);
    return service.datasets().values().stream().map(this::view).toList();
  }

  private DatasetView view(ReconciledDataset d) {
    DatasetSpec s = d.spec();
    return new DatasetView(
        s.name(),
        s.pipeline(),
        s.keyColumns(),
        s.changeMarker().column(),
        s.changeMarker().type().name(),
        s.operationColumn(),
        s.comparedColumns(),
        s.raw().location(),
        s.curatedTable(),
        d.engine(),
        d.cron(),
        d.rules(),
        service.running(s.name()).orElse(null));
  }
}
