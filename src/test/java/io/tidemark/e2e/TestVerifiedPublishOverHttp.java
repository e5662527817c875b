package io.tidemark.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.bench.ServiceProcess;
import io.tidemark.ingest.audit.HttpBranchAudit;
import io.tidemark.ingest.audit.VerifiedPublish;
import io.tidemark.ingest.config.IngestSettings;
import io.tidemark.ingest.kernel.FailurePoints;
import io.tidemark.ingest.run.IngestJob;
import io.tidemark.ingest.run.IngestOutcome;
import io.tidemark.model.report.IngestErrorCode;
import io.tidemark.model.report.IngestRunReport;
import io.tidemark.model.report.IngestStatus;
import io.tidemark.model.report.ReconciliationStatus;
import io.tidemark.model.testing.raw.CustomerScenario;
import io.tidemark.model.testing.raw.Delivery;
import io.tidemark.model.testing.raw.ExpectedState;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.List;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Tags;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Verified publish as deployed: the job's HTTP client asks the packaged reconciler service, started
 * as {@code bin/reconciler} starts it, over loopback with its API key.
 */
@Tags({@Tag("spark"), @Tag("packaged")})
class TestVerifiedPublishOverHttp {
  @TempDir Path work;

  @Test
  void theJobPublishesOnTheServicesPassAndNothingWithoutItsKey() throws Exception {
    Path root = work.resolve("pipeline");
    SparkSession spark = Pipeline.localSpark(root);
    List<Delivery> days = new CustomerScenario(200, 5, LocalDate.now(ZoneOffset.UTC)).deliveries();
    try (Pipeline p = new Pipeline(root, spark)) {
      p.land(days.get(0));
      assertThat(p.ingest(FailurePoints.none()).report().status())
          .isEqualTo(IngestStatus.SUCCEEDED);
      try (ServiceProcess service = ServiceProcess.start(root, work.resolve("service.log"))) {
        // Without the service's key: 401, no verdict, nothing published, no branch left.
        p.land(days.get(1));
        long before = p.snapshotCount();
        String wrongKey = "not-the-key-" + Long.toHexString(System.nanoTime());
        IngestOutcome refused = run(spark, p, service, wrongKey);
        assertThat(refused.exitCode()).isEqualTo(1);
        assertThat(refused.report().errorCode()).isEqualTo(IngestErrorCode.AUDIT_UNAVAILABLE);
        assertThat(refused.report().error())
            .contains("answered HTTP 401", "nothing was published")
            .doesNotContain(wrongKey);
        assertThat(p.snapshotCount()).as("main did not move").isEqualTo(before);
        assertThat(
                spark
                    .sql(
                        "SELECT count(*) FROM "
                            + p.sparkTable()
                            + ".refs WHERE type = 'BRANCH' AND name <> 'main'")
                    .first()
                    .getLong(0))
            .as("no branch left behind")
            .isZero();

        // With it: the service audits the branch, PASSED, and the batch is published.
        IngestRunReport published = run(spark, p, service, service.apiKey()).report();
        assertThat(published.status()).as(published.error()).isEqualTo(IngestStatus.SUCCEEDED);
        assertThat(published.audit().status()).isEqualTo(ReconciliationStatus.PASSED);
        assertThat(published.audit().engine()).isEqualTo("duckdb");
        assertThat(published.audit().reconciliationId()).startsWith("audit-");
        assertThat(published.audit().snapshotId()).isEqualTo(published.snapshotId());
        assertThat(p.curated())
            .isEqualTo(
                ExpectedState.of(p.landed(), Instant.now(), p.ingestSettings().futureTolerance()));
      }
    } finally {
      // A session's catalog is bound to one warehouse: the next class starts its own.
      spark.stop();
    }
  }

  private static IngestOutcome run(
      SparkSession spark, Pipeline p, ServiceProcess service, String key) {
    IngestSettings settings =
        p.ingestSettings()
            .withPublish(
                VerifiedPublish.by(
                    new HttpBranchAudit(service.base(), key, Duration.ofMinutes(2)),
                    service.base().toString()));
    return new IngestJob(spark, settings).run();
  }
}
