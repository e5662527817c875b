package io.tidemark.e2e.trino;

import io.tidemark.e2e.Pipeline;
import io.tidemark.e2e.VerifiedPublishScenario;
import io.tidemark.reconcile.config.ReconciledDataset;
import io.tidemark.reconcile.engine.EngineNames;
import io.tidemark.reconcile.report.LocalRunReports;
import io.tidemark.reconcile.service.Reconciler;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Tags;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Verified publish audited by the Athena engine's SQL, run on Trino: the same scenario as on the
 * embedded engine ({@link VerifiedPublishScenario}), the same verdicts, failing rules and keys.
 */
@Tags({@Tag("spark"), @Tag("trino")})
class TestVerifiedPublishOnTrino {
  @TempDir Path work;

  @Test
  void onlyAnAuditedBranchIsPublishedWhenTheAthenaSqlAudits() {
    Path root = work.resolve("pipeline");
    SparkSession spark = Pipeline.localSpark(root);
    List<EngineAgreement> started = new ArrayList<>();
    try (Pipeline p = new Pipeline(root, spark)) {
      new VerifiedPublishScenario(p, spark, 31)
          .run(
              pipeline -> {
                EngineAgreement trino = new EngineAgreement(pipeline, work);
                started.add(trino);
                return Reconciler.builder(work.resolve("auditor"))
                    .engine(trino.sqlEngine(EngineNames.ATHENA, runner -> runner, 2))
                    .dataset(
                        new ReconciledDataset(
                            pipeline.contract(), pipeline.catalog(), EngineNames.ATHENA))
                    .runReports(new LocalRunReports(pipeline.stateRoot()))
                    .build();
              },
              EngineNames.ATHENA);
    } finally {
      started.forEach(EngineAgreement::close);
      // A session's catalog is bound to one warehouse: the next class starts its own.
      spark.stop();
    }
  }
}
