package io.tidemark.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.ingest.run.IngestJob;
import io.tidemark.ingest.run.IngestOutcome;
import io.tidemark.model.report.IngestMode;
import io.tidemark.model.report.IngestStatus;
import io.tidemark.model.report.ReconciliationMode;
import io.tidemark.model.report.ReconciliationReport;
import io.tidemark.model.report.RuleResult;
import io.tidemark.model.report.RuleStatus;
import io.tidemark.model.testing.raw.RawFile;
import io.tidemark.model.testing.raw.RawFileWriter;
import io.tidemark.model.testing.raw.RawRecord;
import io.tidemark.reconcile.service.Reconciler;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Both halves on one late file: the reconciler finds the raw file no batch read and names the sweep
 * as the fix; the job's sweep reads it; the next reconciliation passes.
 */
@Tag("spark")
class TestSweepClosesTheLoop {
  @TempDir Path work;

  @Test
  void aFileBeyondTheLookbackIsNamedByTheReconcilerAndPickedUpByTheSweep() throws Exception {
    SparkSession spark = Pipeline.localSpark(work.resolve("pipeline"));
    try (Pipeline p = TestFaultInjection.ingestAll(work.resolve("pipeline"), 21L, spark)) {
      Reconciler r = TestFaultInjection.reconciler(p, work.resolve("reports"));
      // Filed the day after the initial export, far behind the job's lookback, landed seven
      // hours ago (past the unprocessed-file grace); its key is new and its change recent.
      Instant at = Instant.now().minus(Duration.ofHours(3)).truncatedTo(ChronoUnit.SECONDS);
      Path file;
      try (RawFileWriter writer = new RawFileWriter()) {
        file =
            writer.write(
                p.rawRoot().resolve("customers"),
                new RawFile(
                    p.oldestPartition().plusDays(1),
                    "resent-late.parquet",
                    List.of(new RawRecord("C9999901", "Late", "late@example.com", at, "U"))));
      }
      Files.setLastModifiedTime(file, FileTime.from(Instant.now().minus(Duration.ofHours(7))));
      assertThat(p.ingest(io.tidemark.ingest.kernel.FailurePoints.none()).report().status())
          .as("the nightly run does not list that partition")
          .isEqualTo(IngestStatus.NOTHING_TO_DO);

      ReconciliationReport before = r.run("customers", ReconciliationMode.FULL, null, null, "t");
      RuleResult unprocessed = result(before, "unprocessed_files");
      assertThat(unprocessed.status()).isEqualTo(RuleStatus.FAIL);
      assertThat(unprocessed.reason()).contains("--mode sweep");
      assertThat(unprocessed.sampleKeys())
          .singleElement()
          .satisfies(f -> assertThat(f).endsWith("/resent-late.parquet"));
      assertThat(result(before, "missing_keys").sampleKeys()).containsExactly("C9999901");

      IngestOutcome sweep =
          new IngestJob(spark, p.ingestSettings().withMode(IngestMode.SWEEP)).run();
      assertThat(sweep.report().status())
          .as(sweep.report().error())
          .isEqualTo(IngestStatus.SUCCEEDED);
      assertThat(sweep.report().filesMissedByLookback()).isEqualTo(1);
      assertThat(sweep.report().counts().recordsInserted()).isEqualTo(1);

      ReconciliationReport after = r.run("customers", ReconciliationMode.FULL, null, null, "t");
      assertThat(TestFaultInjection.failing(after)).isEmpty();
      assertThat(after.results()).extracting(RuleResult::status).containsOnly(RuleStatus.PASS);
    } finally {
      spark.stop();
    }
  }

  private static RuleResult result(ReconciliationReport r, String rule) {
    return r.results().stream().filter(x -> x.ruleId().equals(rule)).findFirst().orElseThrow();
  }
}
