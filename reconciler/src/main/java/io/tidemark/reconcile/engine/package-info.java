/**
 * The engine SPI: what the service asks an engine ({@link
 * io.tidemark.reconcile.engine.ReconciliationEngine}, {@link
 * io.tidemark.reconcile.engine.EngineRequest}) and the values it gets back ({@link
 * io.tidemark.reconcile.engine.Observations}, {@link io.tidemark.reconcile.engine.Finding}, {@link
 * io.tidemark.reconcile.engine.Freshness}, {@link io.tidemark.reconcile.engine.ExcludedFile}). It
 * knows no engine: the rules, metrics and service depend on it, the engines implement it, and the
 * wiring picks them.
 */
package io.tidemark.reconcile.engine;
