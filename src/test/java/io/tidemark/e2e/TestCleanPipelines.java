package io.tidemark.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.model.report.ReconciliationMode;
import io.tidemark.model.report.ReconciliationReport;
import io.tidemark.model.report.RuleResult;
import io.tidemark.model.report.RuleStatus;
import io.tidemark.reconcile.alarms.AlarmState;
import io.tidemark.reconcile.service.Reconciler;
import java.nio.file.Path;
import java.util.List;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The control of {@link TestFaultInjection}: pipelines the job built from clean exports, over
 * several seeds, fail no rule in FULL or WINDOW mode and raise no alarm. A false alarm costs as
 * much trust as a missed fault.
 */
@Tag("spark")
class TestCleanPipelines {
  @TempDir Path work;

  @Test
  void cleanPipelinesFailNoRuleAndRaiseNoAlarmWhateverTheSeed() {
    for (long seed : List.of(11L, 12L, 13L)) {
      Path root = work.resolve("clean-" + seed);
      // One session per pipeline: a session's catalog is bound to one warehouse.
      SparkSession spark = Pipeline.localSpark(root);
      try (Pipeline p = TestFaultInjection.ingestAll(root, seed, spark)) {
        Reconciler r = TestFaultInjection.reconciler(p, work.resolve("reports-" + seed));
        ReconciliationReport full = r.run("customers", ReconciliationMode.FULL, null, null, "t");
        // A window over the last day of changes, not the empty one the FULL run leaves behind.
        ReconciliationReport window =
            r.run(
                "customers",
                ReconciliationMode.WINDOW,
                TestFaultInjection.lastDayOfChanges(p),
                null,
                "t");
        assertThat(TestFaultInjection.failing(full)).as("seed %d FULL", seed).isEmpty();
        assertThat(TestFaultInjection.failing(window)).as("seed %d WINDOW", seed).isEmpty();
        assertThat(full.results()).extracting(RuleResult::status).containsOnly(RuleStatus.PASS);
        assertThat(r.alarms())
            .as("seed %d alarms", seed)
            .noneMatch(a -> a.state() == AlarmState.ALARM);
      } finally {
        spark.stop();
      }
    }
  }
}
