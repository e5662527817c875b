/**
 * The reconciliation written once: {@link io.tidemark.reconcile.engine.sql.ReconciliationSql}
 * renders every statement both SQL engines run over a small {@link
 * io.tidemark.reconcile.engine.sql.SqlDialect} holding only what differs between DuckDB and
 * Trino/Athena, with the version order packed from the contract's {@code VersionOrder}; the engines
 * also share here which raw files a request reads ({@link
 * io.tidemark.reconcile.engine.sql.RawReadPlan}), how count-and-sample rows become findings ({@link
 * io.tidemark.reconcile.engine.sql.KeySamples}) and how freshness is measured ({@link
 * io.tidemark.reconcile.engine.sql.FreshnessMeasure}). It depends on the SPI, storage and the
 * kernel, never on an engine.
 */
package io.tidemark.reconcile.engine.sql;
