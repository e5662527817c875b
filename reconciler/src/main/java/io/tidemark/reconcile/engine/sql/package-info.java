/**
 * What the SQL engines share: SQL text with bound values ({@link
 * io.tidemark.reconcile.engine.sql.Sql}) and which raw files a request reads. It depends on the SPI
 * and storage, never on an engine.
 */
package io.tidemark.reconcile.engine.sql;
