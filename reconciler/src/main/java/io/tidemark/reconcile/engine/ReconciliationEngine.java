package io.tidemark.reconcile.engine;

import io.tidemark.model.contract.DatasetContract;
import io.tidemark.reconcile.kernel.EngineException;
import io.tidemark.reconcile.storage.RawFiles;

/**
 * Computes what the rules need by querying the raw and curated layers. Engines differ in where the
 * queries run (embedded DuckDB, or Amazon Athena), never in what they mean: the canonical query
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

  /**
   * Every raw file of a dataset (all partitions, none read), listed where this engine reads them:
   * local folders for the embedded engine, S3 for Athena. The unprocessed-files rule holds it
   * against the run reports.
   */
  default RawFiles.Listing listRawFiles(DatasetContract contract) {
    return RawFiles.list(contract, null);
  }
}
