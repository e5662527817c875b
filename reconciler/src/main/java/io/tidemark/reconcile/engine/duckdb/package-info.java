/**
 * The embedded engine: one in-memory DuckDB per reconciliation over the raw Parquet files and the
 * curated table's live files, with DuckDB's dialect of the shared SQL. It depends on the SPI,
 * storage and the shared SQL, never on the Athena engine or on config.
 */
package io.tidemark.reconcile.engine.duckdb;
