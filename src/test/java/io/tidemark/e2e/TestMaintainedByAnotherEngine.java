package io.tidemark.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.model.report.ReconciliationMode;
import io.tidemark.model.report.ReconciliationReport;
import io.tidemark.model.report.ReconciliationStatus;
import io.tidemark.model.report.RuleStatus;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two weeks of daily runs on a table that another engine compacts every seven days and whose
 * snapshots it expires at five (what AWS Glue's optimizers do), with a six-day outage of the source
 * in the middle: every incremental run succeeds without a full refresh (the one after the outage
 * from the tagged checkpoint, a snapshot expiry would otherwise have removed), the table's delete
 * files and snapshots stay bounded, and the reconciler passes, FULL and WINDOW, with no rule
 * tripped by the rewrites or the expired history. {@code bin/bench --soak} runs the same for a
 * year.
 */
@Tag("spark")
class TestMaintainedByAnotherEngine {
  @TempDir static Path work;
  private static SparkSession spark;
  private static Pipeline pipeline;

  @BeforeAll
  static void start() {
    spark = Pipeline.localSpark(work);
    pipeline = new Pipeline(work, spark);
  }

  @AfterAll
  static void stop() {
    if (pipeline != null) {
      pipeline.close();
    }
    if (spark != null) {
      spark.stop();
    }
  }

  @Test
  void dailyRunsAndReconciliationsSurviveCompactionAndExpiryByAnotherEngine() {
    List<String> log = new ArrayList<>();
    MaintenanceSoak.Result soak =
        new MaintenanceSoak(pipeline, spark, 400, 7, 5, day -> day >= 8 && day <= 13)
            .run(15, log::add);
    log.forEach(System.out::println);

    assertThat(soak.problems()).as(String.join("\n", log)).isEmpty();
    assertThat(soak.runsFromTheTag()).as("runs that found the checkpoint by its tag").isPositive();
    assertThat(soak.months()).hasSize(1);
    MaintenanceSoak.Month end = soak.months().get(0);
    // Expiry at five days of one batch (and its commits) a day, plus the tagged checkpoint.
    assertThat(end.snapshots()).as(log.toString()).isLessThanOrEqualTo(5 * 4 + 2);
    // Compaction on day 14 merged the delete files of the days before it: day 15's are left.
    assertThat(end.deleteFiles()).as(log.toString()).isLessThanOrEqualTo(3);

    Instant lastDay =
        LocalDate.now(ZoneOffset.UTC).minusDays(3).atStartOfDay(ZoneOffset.UTC).toInstant();
    ReconciliationReport window =
        pipeline.reconciler().run(Pipeline.DATASET, ReconciliationMode.WINDOW, lastDay, null, "t");
    assertThat(window.status()).as(window.error()).isEqualTo(ReconciliationStatus.PASSED);
    assertThat(window.results()).allMatch(r -> r.status() == RuleStatus.PASS);
  }
}
