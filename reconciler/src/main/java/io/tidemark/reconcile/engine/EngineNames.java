package io.tidemark.reconcile.engine;

/** The engines a dataset can name. */
public final class EngineNames {
  /** The embedded engine: DuckDB over local raw Parquet and the curated table's live files. */
  public static final String DUCKDB = "duckdb";

  private EngineNames() {}
}
