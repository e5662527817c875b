package io.tidemark.reconcile.rest;

import io.tidemark.model.report.ReconciliationMode;
import io.tidemark.model.report.ReconciliationStatus;
import java.time.Instant;

/**
 * The answer to a started reconciliation.
 *
 * @param id the reconciliation's id
 * @param dataset its dataset
 * @param mode window or full
 * @param windowFrom the resolved window start, null for full mode or a first run
 * @param windowTo the resolved window end
 * @param status RUNNING
 * @param location where to follow it
 */
public record StartResponse(
    String id,
    String dataset,
    ReconciliationMode mode,
    Instant windowFrom,
    Instant windowTo,
    ReconciliationStatus status,
    String location) {}
