package io.tidemark.e2e.trino;

import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.e2e.Pipeline;
import io.tidemark.e2e.TestFaultInjection;
import io.tidemark.model.report.ReconciliationMode;
import java.nio.file.Path;
import java.time.Duration;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Athena engine's SQL on a real Trino must observe a pipeline exactly as the embedded DuckDB
 * engine does ({@link EngineAgreement}).
 */
class TestAthenaSqlOnTrino {
  @TempDir static Path work;

  @Test
  void theAthenaSqlOnTrinoObservesTheCleanPipelineAsDuckDbDoes() {
    SparkSession spark = Pipeline.localSpark(work.resolve("agreement"));
    try (Pipeline pipeline = TestFaultInjection.ingestAll(work.resolve("agreement"), 7, spark);
        EngineAgreement agreement = new EngineAgreement(pipeline, work)) {
      Duration tolerance = Duration.ofHours(1);
      assertThat(
              agreement.disagreements(agreement.request(ReconciliationMode.FULL, null, tolerance)))
          .as("FULL")
          .isEmpty();
    } finally {
      spark.stop();
    }
  }
}
