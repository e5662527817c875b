package io.tidemark.reconcile.rest;

import io.tidemark.model.config.DatasetSpec;
import io.tidemark.reconcile.config.ReconciledDataset;
import io.tidemark.reconcile.config.TidemarkConfig;
import io.tidemark.reconcile.engine.athena.RawTable;
import io.tidemark.reconcile.report.RunReportSource;
import io.tidemark.reconcile.service.InvalidRequestException;
import io.tidemark.reconcile.service.ReconciliationService;
import io.tidemark.reconcile.service.UnknownDatasetException;
import io.tidemark.reconcile.service.Verdict;
import io.tidemark.reconcile.storage.QuarantineCounts;
import io.tidemark.reconcile.storage.RawFiles;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriInfo;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.List;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.enums.SchemaType;
import org.eclipse.microprofile.openapi.annotations.media.Content;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.parameters.Parameter;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

/** The configured datasets. */
@Path("/api/datasets")
@Produces(MediaType.APPLICATION_JSON)
@ReadKeyRequired
@Tag(name = "datasets")
public class DatasetResource {
  private static final String RUNS = "list ingest runs";
  private static final String QUARANTINE = "count quarantined rows";
  private static final String VERDICT = "judge the curated table";

  /**
   * The earliest projection start: the earliest instant a reconciliation window may name, as a
   * date. Athena refuses a projection range from year 0 or before.
   */
  public static final LocalDate PROJECTION_START_MIN =
      LocalDate.ofInstant(ReconciliationResource.EARLIEST, ZoneOffset.UTC);

  private final ReconciliationService service;
  private final TidemarkConfig config;

  public DatasetResource(ReconciliationService service, TidemarkConfig config) {
    this.service = service;
    this.config = config;
  }

  /**
   * The Athena DDL of the dataset's raw table: an external Parquet table over its raw location,
   * partition projection on the date folder (no crawler, no MSCK REPAIR), columns typed as the
   * curated table types them. Run it once in the Glue database the athena engine queries.
   *
   * @param projectionStart the oldest date folder to read ({@code YYYY-MM-DD}); every day from it
   *     on is probed by a query without a date predicate, so a start close to the oldest raw folder
   *     keeps FULL reconciliations cheap. From {@link #PROJECTION_START_MIN} to today (UTC); a
   *     later start projects no folder that exists. Default {@link
   *     RawTable#PROJECTION_START_DEFAULT}.
   */
  @GET
  @Path("/{dataset}/raw-table-ddl")
  @Produces(MediaType.TEXT_PLAIN)
  @Operation(summary = "The Athena DDL of the dataset's raw table, with partition projection")
  public String rawTableDdl(
      @PathParam("dataset") String dataset,
      @QueryParam("projection-start") String projectionStart,
      @Context UriInfo uri) {
    QueryParams.onlyKnown("get the raw table DDL", uri, "projection-start");
    LocalDate start = RawTable.PROJECTION_START_DEFAULT;
    if (projectionStart != null) {
      try {
        start = LocalDate.parse(projectionStart.trim());
      } catch (DateTimeParseException e) {
        throw new InvalidRequestException(
            "get the raw table DDL",
            "projection-start",
            projectionStart,
            "expected a date such as 2024-01-31");
      }
      LocalDate today = LocalDate.now(ZoneOffset.UTC);
      if (start.isBefore(PROJECTION_START_MIN)) {
        throw new InvalidRequestException(
            "get the raw table DDL",
            "projection-start",
            projectionStart,
            "is before " + PROJECTION_START_MIN);
      }
      if (start.isAfter(today)) {
        throw new InvalidRequestException(
            "get the raw table DDL",
            "projection-start",
            projectionStart,
            "is after today (" + today + "): the projection would hold no raw folder");
      }
    }
    ReconciledDataset d = service.datasets().get(dataset);
    if (d == null) {
      throw new UnknownDatasetException(dataset);
    }
    String location = d.contract().raw().location();
    if (!location.contains("://")) {
      location = RawFiles.localPath(location).toAbsolutePath().toUri().toString();
    }
    // The contract's tables, as the stack creates them in Glue (AthenaRawTables): one for most
    // layouts, two for DMS with date folders.
    return RawTable.athenaDdl(
        d.contract(), config.athena().database().orElse(null), location, start);
  }

  /**
   * The dataset's ingest runs, newest first, from the run reports the job wrote.
   *
   * @param limit at most this many, 1..{@value ReconciliationResource#LIMIT_MAX}, default {@value
   *     ReconciliationResource#LIMIT_DEFAULT}
   */
  @GET
  @Path("/{dataset}/runs")
  @Operation(
      summary = "The dataset's ingest runs, newest first",
      description =
          "Status, watermark and its lag, counts and duration of each run, from the ingest job's"
              + " run reports (without their file lists).")
  @APIResponse(
      responseCode = "200",
      description =
          "The runs; a run report that does not parse is left out and named in a Warning header",
      content =
          @Content(schema = @Schema(type = SchemaType.ARRAY, implementation = IngestRunView.class)))
  public Response runs(
      @PathParam("dataset") String dataset,
      @Parameter(description = "At most this many, 1..1000, default 20") @QueryParam("limit")
          String limit,
      @Context UriInfo uri) {
    QueryParams.onlyKnown(RUNS, uri, "limit");
    ReconciliationResource.dataset(service, RUNS, dataset, true);
    int n = ReconciliationResource.limit(RUNS, limit);
    RunReportSource.Listing runs = service.ingestRuns(dataset, n);
    return UnreadableWarnings.ok(
        runs.reports().stream().map(IngestRunView::of).toList(), runs.unreadable());
  }

  /** The rows of the dataset's quarantine table by reason code. */
  @GET
  @Path("/{dataset}/quarantine")
  @Operation(
      summary = "The dataset's quarantined rows by reason code",
      description =
          "Read from the quarantine Iceberg table; exists is false until the ingest job has"
              + " quarantined a row.")
  public QuarantineCounts quarantine(@PathParam("dataset") String dataset, @Context UriInfo uri) {
    QueryParams.onlyKnown(QUARANTINE, uri);
    ReconciliationResource.dataset(service, QUARANTINE, dataset, true);
    return service.quarantine(dataset);
  }

  /**
   * Whether readers of the curated table see proven data now: for an orchestrator's gate before
   * downstream work, or a consumer choosing between main and the verified tag.
   */
  @GET
  @Path("/{dataset}/verdict")
  @Operation(
      summary = "Whether the curated table's current snapshot is proven equal to raw",
      description =
          "verified is true when the latest finished FULL reconciliation passed on the snapshot"
              + " that is current now (read from the catalog at the call). Names the proving run,"
              + " the last proven snapshot (to pin when the current one is not) and where the"
              + " verified tag points.")
  public Verdict verdict(@PathParam("dataset") String dataset, @Context UriInfo uri) {
    QueryParams.onlyKnown(VERDICT, uri);
    ReconciliationResource.dataset(service, VERDICT, dataset, true);
    return service.verdict(dataset);
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
