package io.tidemark.reconcile.engine;

import io.tidemark.reconcile.engine.duckdb.DuckDbEngine;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

/** Makes the engines available to the service; each is found by its {@code name()}. */
public class EngineProducer {
  @Produces
  @Singleton
  ReconciliationEngine duckDb() {
    return new DuckDbEngine();
  }
}
