package io.tidemark.reconcile.rest;

import com.fasterxml.jackson.annotation.JsonProperty;
import org.eclipse.microprofile.openapi.annotations.media.Schema;

/**
 * The body of {@code POST /api/reconciliations}. Fields are read as text and checked by the
 * resource, so a bad value is refused with the field's name.
 *
 * @param dataset a configured dataset
 * @param mode {@code window} (default) or {@code full}
 * @param from window start, ISO-8601 instant, exclusive; default: the end of the last PASSED run
 * @param to window end, ISO-8601 instant, inclusive; default: now
 * @param waitFor ({@code wait} in JSON) how long to wait for the verdict, an ISO-8601 duration up
 *     to {@code PT15M}; absent: answer at once
 */
public record StartRequest(
    @Schema(required = true, examples = "customers") String dataset,
    @Schema(
            enumeration = {"window", "full"},
            defaultValue = "window")
        String mode,
    @Schema(examples = "2026-03-09T00:00:00Z") String from,
    @Schema(examples = "2026-03-10T00:00:00Z") String to,
    @Schema(
            examples = "PT10M",
            description =
                "Wait up to this long (ISO-8601, at most PT15M) for the verdict: 200 with the"
                    + " finished report when it came in time, 202 with the running one when not")
        @JsonProperty("wait")
        String waitFor) {}
