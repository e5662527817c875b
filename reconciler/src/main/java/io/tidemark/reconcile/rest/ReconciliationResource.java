package io.tidemark.reconcile.rest;

import io.tidemark.model.json.Checks;
import io.tidemark.model.report.ReconciliationMode;
import io.tidemark.model.report.ReconciliationReport;
import io.tidemark.model.report.RuleResult;
import io.tidemark.model.report.ValueDiff;
import io.tidemark.reconcile.report.UnreadableReport;
import io.tidemark.reconcile.service.InvalidRequestException;
import io.tidemark.reconcile.service.ReconciliationService;
import io.tidemark.reconcile.service.UnknownDatasetException;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriInfo;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.enums.SecuritySchemeIn;
import org.eclipse.microprofile.openapi.annotations.enums.SecuritySchemeType;
import org.eclipse.microprofile.openapi.annotations.media.Content;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.parameters.Parameter;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.security.SecurityRequirement;
import org.eclipse.microprofile.openapi.annotations.security.SecurityScheme;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

/** Starts reconciliations and shows their reports. */
@Path("/api/reconciliations")
@Produces(MediaType.APPLICATION_JSON)
@Tag(name = "reconciliations")
@SecurityScheme(
    securitySchemeName = "apiKey",
    type = SecuritySchemeType.APIKEY,
    apiKeyName = ApiKeyFilter.HEADER,
    in = SecuritySchemeIn.HEADER)
public class ReconciliationResource {
  public static final int LIMIT_DEFAULT = 20;
  public static final int LIMIT_MAX = 1000;

  /**
   * The earliest instant a window may name. Raw change markers before the Unix epoch are not
   * plausible, and far older instants overflow the engines' timestamp arithmetic.
   */
  public static final Instant EARLIEST = Instant.EPOCH;

  private static final String START = "start a reconciliation";
  private static final String LIST = "list reconciliations";

  private final ReconciliationService service;

  public ReconciliationResource(ReconciliationService service) {
    this.service = service;
  }

  @POST
  @ApiKeyRequired
  @Consumes(MediaType.APPLICATION_JSON)
  @SecurityRequirement(name = "apiKey")
  @Operation(
      summary = "Start a reconciliation",
      description =
          "Starts a reconciliation of one dataset in the background and answers at once with its"
              + " id; follow it at the Location. One run per dataset at a time. With 'wait', answers"
              + " when the verdict is in or the wait is over, whichever comes first: an"
              + " orchestrator's task gets its verdict in one call.")
  @APIResponse(
      responseCode = "200",
      description =
          "Finished within 'wait': the report, whose status (PASSED, FAILED, ERROR) is the"
              + " verdict",
      content = @Content(schema = @Schema(implementation = ReconciliationReport.class)))
  @APIResponse(
      responseCode = "202",
      description =
          "Started (and, with 'wait', not finished in time: header "
              + WAIT_HEADER
              + " says so); follow it at the Location",
      content = @Content(schema = @Schema(implementation = StartResponse.class)))
  @APIResponse(
      responseCode = "400",
      description = "A field is missing or malformed; the answer names it",
      content = @Content(schema = @Schema(implementation = ApiError.class)))
  @APIResponse(
      responseCode = "401",
      description = "No valid X-API-Key header",
      content = @Content(schema = @Schema(implementation = ApiError.class)))
  @APIResponse(
      responseCode = "404",
      description = "Unknown dataset",
      content = @Content(schema = @Schema(implementation = ApiError.class)))
  @APIResponse(
      responseCode = "409",
      description = "The dataset already has a run going; the answer carries its id",
      content = @Content(schema = @Schema(implementation = ApiError.class)))
  public Response start(StartRequest request) {
    if (request == null) {
      throw new InvalidRequestException("dataset", null, "the body must be a JSON object");
    }
    String dataset = dataset(START, request.dataset(), true);
    ReconciliationMode mode = mode(request.mode());
    Instant now = Instant.now();
    Instant from = instant("from", request.from(), now);
    Instant to = instant("to", request.to(), now);
    if (from != null && to != null && !from.isBefore(to)) {
      throw new InvalidRequestException(
          "from", request.from(), "must be before 'to' (" + request.to() + ")");
    }
    Duration wait = waitFor(request.waitFor());
    ReconciliationService.Launched launched = service.launch(dataset, mode, from, to, "api");
    ReconciliationReport r = launched.running();
    URI location = URI.create("/api/reconciliations/" + r.id());
    if (wait != null) {
      Optional<ReconciliationReport> done = launched.await(wait);
      if (done.isPresent()) {
        return Response.ok(done.get()).location(location).build();
      }
    }
    return Response.accepted(
            new StartResponse(
                r.id(),
                r.dataset(),
                r.mode(),
                r.windowFrom(),
                r.windowTo(),
                r.status(),
                location.toString()))
        .location(location)
        .header(WAIT_HEADER, wait == null ? null : "timed out after " + wait)
        .build();
  }

  /** The header of a 202 that answers a wait that ran out before the verdict. */
  public static final String WAIT_HEADER = "Tidemark-Wait";

  /** The longest wait a start may ask for. */
  public static final Duration WAIT_MAX = Duration.ofMinutes(15);

  /** A {@code wait}: an ISO-8601 duration above zero, up to {@link #WAIT_MAX}; null if absent. */
  private static Duration waitFor(String value) {
    if (value == null || value.isBlank()) {
      return null;
    }
    Duration d;
    try {
      d = Duration.parse(value.trim());
    } catch (java.time.format.DateTimeParseException e) {
      throw new InvalidRequestException(
          "wait", value, "not an ISO-8601 duration such as PT10M or PT30S");
    }
    if (d.isNegative() || d.isZero() || d.compareTo(WAIT_MAX) > 0) {
      throw new InvalidRequestException(
          "wait", value, "must be above zero and at most " + WAIT_MAX);
    }
    return d;
  }

  @GET
  @ReadKeyRequired
  @Operation(summary = "List reconciliations", description = "Newest first.")
  @APIResponse(
      responseCode = "200",
      description =
          "The reports; one that does not parse is left out and named in a Warning header",
      content =
          @Content(
              schema =
                  @Schema(
                      type = org.eclipse.microprofile.openapi.annotations.enums.SchemaType.ARRAY,
                      implementation = ReconciliationReport.class)))
  @APIResponse(
      responseCode = "400",
      description = "A malformed dataset or limit",
      content = @Content(schema = @Schema(implementation = ApiError.class)))
  @APIResponse(
      responseCode = "404",
      description = "Unknown dataset",
      content = @Content(schema = @Schema(implementation = ApiError.class)))
  public Response list(
      @Parameter(description = "Only this dataset's reconciliations") @QueryParam("dataset")
          String dataset,
      @Parameter(description = "At most this many, 1..1000, default 20") @QueryParam("limit")
          String limit,
      @Context UriInfo uri) {
    QueryParams.onlyKnown(LIST, uri, "dataset", "limit");
    Optional<String> ds =
        dataset == null ? Optional.empty() : Optional.of(dataset(LIST, dataset, true));
    List<ReconciliationReport> reports = service.list(ds, limit(LIST, limit));
    return UnreadableWarnings.ok(
        reports,
        service.unreadableReports().stream()
            .filter(u -> u.kind().equals(UnreadableReport.RECONCILIATION))
            .toList());
  }

  @GET
  @ReadKeyRequired
  @Path("/{id}")
  @Operation(summary = "One reconciliation: status, rule results and sample keys")
  @APIResponse(
      responseCode = "200",
      description = "The report",
      content = @Content(schema = @Schema(implementation = ReconciliationReport.class)))
  @APIResponse(
      responseCode = "404",
      description = "No such reconciliation",
      content = @Content(schema = @Schema(implementation = ApiError.class)))
  public ReconciliationReport get(@PathParam("id") String id, @Context UriInfo uri) {
    QueryParams.onlyKnown("read a reconciliation", uri);
    if (!Checks.NAME.matcher(id).matches()) {
      throw new ReconciliationNotFoundException(id);
    }
    return service.find(id).orElseThrow(() -> new ReconciliationNotFoundException(id));
  }

  @GET
  @ReadKeyRequired
  @Path("/{id}/rules/{rule}/diff")
  @Operation(
      summary =
          "What a failing key rule's keys hold on each side: per compared column how many keys"
              + " differ, and each sample key's raw version beside its curated row, with the"
              + " commit that wrote the row")
  @APIResponse(
      responseCode = "200",
      description = "The difference",
      content = @Content(schema = @Schema(implementation = ValueDiff.class)))
  @APIResponse(
      responseCode = "404",
      description =
          "No such reconciliation, no such rule in it, or a rule that shows no difference (it"
              + " passed, errored, or does not sample keys of both layers)",
      content = @Content(schema = @Schema(implementation = ApiError.class)))
  public Response diff(
      @PathParam("id") String id, @PathParam("rule") String rule, @Context UriInfo uri) {
    ReconciliationReport report = get(id, uri);
    Optional<RuleResult> result =
        report.results().stream().filter(r -> r.ruleId().equals(rule)).findFirst();
    if (result.isEmpty()) {
      return ApiError.of(
              ErrorCode.NOT_FOUND,
              "Reconciliation '" + report.id() + "' has no rule '" + shorten(rule) + "'")
          .toResponse();
    }
    RuleResult r = result.get();
    if (r.diff() == null) {
      return ApiError.of(
              ErrorCode.NOT_FOUND,
              "Rule '"
                  + r.ruleId()
                  + "' of reconciliation '"
                  + report.id()
                  + "' shows no difference: it is "
                  + r.status()
                  + (r.status() == io.tidemark.model.report.RuleStatus.FAIL
                      ? " on " + r.kind().id() + ", which shows none"
                      : ""))
          .toResponse();
    }
    return Response.ok(r.diff()).build();
  }

  private static String shorten(String s) {
    return s.length() > 100 ? s.substring(0, 100) + "..." : s;
  }

  /** A dataset name: refused as malformed before it is looked up, and looked up before use. */
  private String dataset(String action, String value, boolean mustExist) {
    return dataset(service, action, value, mustExist);
  }

  static String dataset(
      ReconciliationService service, String action, String value, boolean mustExist) {
    if (value == null || value.isBlank()) {
      throw new InvalidRequestException(action, "dataset", value, "is required");
    }
    if (!Checks.NAME.matcher(value).matches()) {
      throw new InvalidRequestException(
          action, "dataset", value, "not a dataset name (letters, digits, '_', '.', '-')");
    }
    if (mustExist && !service.datasets().containsKey(value)) {
      throw new UnknownDatasetException(value);
    }
    return value;
  }

  private static ReconciliationMode mode(String value) {
    if (value == null || value.isBlank()) {
      return ReconciliationMode.WINDOW;
    }
    return switch (value.trim().toLowerCase(Locale.ROOT)) {
      case "window" -> ReconciliationMode.WINDOW;
      case "full" -> ReconciliationMode.FULL;
      default -> throw new InvalidRequestException("mode", value, "expected 'window' or 'full'");
    };
  }

  /** A window bound: an ISO-8601 instant from {@link #EARLIEST} to now. */
  private static Instant instant(String field, String value, Instant now) {
    if (value == null || value.isBlank()) {
      return null;
    }
    Instant i;
    try {
      i = Instant.parse(value.trim());
    } catch (DateTimeParseException e) {
      throw new InvalidRequestException(
          field, value, "not an ISO-8601 instant such as 2026-03-10T00:00:00Z");
    }
    if (i.isBefore(EARLIEST)) {
      throw new InvalidRequestException(field, value, "is before " + EARLIEST);
    }
    if (i.isAfter(now)) {
      throw new InvalidRequestException(field, value, "is in the future (now is " + now + ")");
    }
    return i;
  }

  /** A {@code limit} query parameter: 1..{@value #LIMIT_MAX}, {@value #LIMIT_DEFAULT} if absent. */
  static int limit(String action, String value) {
    if (value == null || value.isBlank()) {
      return LIMIT_DEFAULT;
    }
    try {
      int n = Integer.parseInt(value.trim());
      if (n >= 1 && n <= LIMIT_MAX) {
        return n;
      }
    } catch (NumberFormatException e) {
      // Reported below with the field's name.
    }
    throw new InvalidRequestException(
        action, "limit", value, "must be a whole number 1.." + LIMIT_MAX);
  }
}
