/**
 * A dataset's raw layer as the tables Athena (and Trino's Hive connector) read: the one definition
 * of "the Athena raw table of a contract" ({@link AthenaRawTables}) that the stack generator writes
 * into CloudFormation and the reconciler writes as Athena and Trino DDL and queries. Names, columns
 * with their Hive types, partition keys with their projections, the location template and DMS's
 * second table are decided here, so the table the stack creates is the table the reconciler reads.
 */
package io.tidemark.model.contract.athena;
