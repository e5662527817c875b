/**
 * The reconciliation rules: turn an engine's observations, the run reports and the raw listing into
 * rule results. Pure logic over the SPI's values and the shared contract.
 */
package io.tidemark.reconcile.rules;
