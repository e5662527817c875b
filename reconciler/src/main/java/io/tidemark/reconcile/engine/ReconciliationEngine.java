package io.tidemark.reconcile.engine;

/**
 * Computes what the rules need by querying the raw and curated layers. Engines differ in where the
 * queries run (embedded DuckDB here; Athena later), never in what they mean: the canonical query
 * shapes live in each engine's dialect class.
 */
public interface ReconciliationEngine {
  /** The engine's name in config and reports. */
  String name();

  /**
   * Observes one dataset. A failure of one measure is recorded in the observations (the matching
   * rules report ERROR); a failure that prevents every measure is thrown.
   *
   * @throws EngineException when nothing could be measured (table missing, files unreadable)
   */
  Observations observe(EngineRequest request);
}
