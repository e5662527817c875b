/**
 * The raw-layer contract, stated once for both halves: which files and folders of the raw layer
 * hold data ({@link RawLayout}), which columns a file must have and which types they may take
 * ({@link RawSchema}), what a valid key is ({@link RawKeys}), which version of a key wins ({@link
 * VersionOrder}), why a record or file is rejected ({@link ReasonCode}), where reports go ({@link
 * StateLayout}) and the defaults both halves share ({@link ContractDefaults}).
 *
 * <p>The ingest job (Spark) and the reconciler (DuckDB, Athena) each translate these rules into
 * their own engine; nothing here depends on an engine. The end-to-end suite checks that the two
 * halves agree key by key on the same raw files.
 */
package io.tidemark.model.contract;
