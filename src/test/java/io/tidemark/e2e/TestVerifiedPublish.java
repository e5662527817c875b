package io.tidemark.e2e;

import io.tidemark.reconcile.report.LocalRunReports;
import io.tidemark.reconcile.service.Reconciler;
import java.nio.file.Path;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Verified publish audited by the embedded engine (DuckDB): see {@link VerifiedPublishScenario}.
 * The reconciler is called in process, as the service's audit endpoint calls it.
 */
@Tag("spark")
class TestVerifiedPublish {
  @TempDir Path work;

  @Test
  void onlyAnAuditedBranchIsPublishedAndAHeldBatchIsRetriedOrDiscarded() {
    Path root = work.resolve("pipeline");
    SparkSession spark = Pipeline.localSpark(root);
    try (Pipeline p = new Pipeline(root, spark)) {
      new VerifiedPublishScenario(p, spark, 31)
          .run(
              pipeline ->
                  Reconciler.builder(work.resolve("auditor"))
                      .dataset(pipeline.contract(), pipeline.catalog())
                      .runReports(new LocalRunReports(pipeline.stateRoot()))
                      .build(),
              "duckdb");
    } finally {
      // A session's catalog is bound to one warehouse: the next class starts its own.
      spark.stop();
    }
  }
}
