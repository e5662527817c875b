/**
 * The Trino-dialect engine: the shared SQL in Athena engine v3's (Trino's) dialect, sent to Amazon
 * Athena in production or to any JDBC Trino (which proves the SQL in tests), with the raw table's
 * DDL and Athena's billing. It depends on the SPI, storage and the shared SQL, never on the
 * embedded engine or on config.
 */
package io.tidemark.reconcile.engine.athena;
