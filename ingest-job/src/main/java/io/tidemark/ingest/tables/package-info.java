/**
 * The job's three output tables (curated, quarantine, remembered deletes): loading them, checking
 * the curated table against the contract, creating them and evolving the quarantine table, and the
 * statements that make and read them. Planning reads them and the commit writes them; this package
 * does neither.
 */
package io.tidemark.ingest.tables;
