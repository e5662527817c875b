package io.tidemark.reconcile.engine;

/** The engines a dataset can name. */
public final class EngineNames {
  /** The embedded engine: DuckDB over local raw Parquet and the curated table's live files. */
  public static final String DUCKDB = "duckdb";

  /** Amazon Athena over the raw external table and the curated table in the Glue catalog. */
  public static final String ATHENA = "athena";

  private EngineNames() {}
}
