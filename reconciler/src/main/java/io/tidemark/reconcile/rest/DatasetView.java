package io.tidemark.reconcile.rest;

import io.tidemark.model.config.RuleSpec;
import java.util.List;

/**
 * A configured dataset as {@code GET /api/datasets} shows it.
 *
 * @param name the dataset
 * @param pipeline its pipeline
 * @param keyColumns the business key
 * @param changeMarker the change-marker column
 * @param changeMarkerType TIMESTAMP or LONG
 * @param operationColumn the operation column, or null
 * @param comparedColumns the compared payload columns
 * @param rawLocation where the raw files land
 * @param curatedTable the curated Iceberg table
 * @param engine the engine
 * @param cron the schedule, or {@code off}
 * @param rules the rules evaluated
 * @param runningId the running reconciliation, if one runs
 */
public record DatasetView(
    String name,
    String pipeline,
    List<String> keyColumns,
    String changeMarker,
    String changeMarkerType,
    String operationColumn,
    List<String> comparedColumns,
    String rawLocation,
    String curatedTable,
    String engine,
    String cron,
    List<RuleSpec> rules,
    String runningId) {}
