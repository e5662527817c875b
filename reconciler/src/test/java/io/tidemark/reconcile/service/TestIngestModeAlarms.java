package io.tidemark.reconcile.service;

import static io.tidemark.reconcile.fixtures.CustomersScenario.NOW;
import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.model.config.RuleSpec;
import io.tidemark.model.report.DiscoveryMode;
import io.tidemark.model.report.IngestMode;
import io.tidemark.model.report.IngestRunReport;
import io.tidemark.model.report.IngestStatus;
import io.tidemark.reconcile.alarms.AlarmState;
import io.tidemark.reconcile.alarms.AlarmStatus;
import io.tidemark.reconcile.fixtures.CustomersScenario;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The ingest alarms the service evaluates from run reports each watch one mode: a failed backfill
 * does not fire the nightly run-failed alarm, a failed sweep fires the sweep's, and a sweep that
 * found files the lookback missed fires FilesMissedByLookback.
 */
class TestIngestModeAlarms {
  @TempDir Path dir;
  private CustomersScenario scenario;

  @BeforeEach
  void clean() {
    scenario = CustomersScenario.clean(dir);
  }

  @AfterEach
  void close() {
    scenario.close();
  }

  private Map<String, AlarmStatus> alarms() {
    Reconciler r =
        Reconciler.builder(scenario.stateRoot)
            .dataset(scenario.contract(RuleSpec.defaults()), scenario.catalog())
            .clock(Clock.fixed(NOW, ZoneOffset.UTC))
            .build();
    return r.alarms().stream().collect(Collectors.toMap(AlarmStatus::logicalId, a -> a));
  }

  private void run(String id, IngestMode mode, IngestStatus status, Integer missed) {
    Instant end = NOW.minusSeconds(60);
    boolean ok = status.successful();
    scenario.writeRunReport(
        IngestRunReport.builder()
            .runId(id)
            .batchId("batch-" + id)
            .pipeline("default")
            .dataset("customers")
            .mode(mode)
            .discoveryMode(DiscoveryMode.FILES)
            .status(status)
            .startedAt(end.minusSeconds(30))
            .finishedAt(end)
            .lookback(Duration.ofHours(1))
            .counts(CustomersScenario.consistentCounts())
            .snapshotId(ok ? 2L : null)
            .errorCode(ok ? null : CustomersScenario.failureCode(status))
            .error(ok ? null : "Cannot commit batch batch-" + id + ": run " + status)
            .discoveryListCalls(1)
            .filesMissedByLookback(missed)
            .build());
  }

  @Test
  void aSweepThatFoundMissedFilesFiresItsAlarm_theNightlyAlarmsStayQuiet() {
    assertThat(alarms().get("FilesMissedByLookback").state()).isEqualTo(AlarmState.OK);

    run("sweep-1", IngestMode.SWEEP, IngestStatus.SUCCEEDED, 3);

    Map<String, AlarmStatus> alarms = alarms();
    AlarmStatus missed = alarms.get("FilesMissedByLookback");
    assertThat(missed.state()).as(missed.reason()).isEqualTo(AlarmState.ALARM);
    assertThat(missed.alarmName()).isEqualTo("tidemark-default-customers-files-missed-by-lookback");
    assertThat(missed.reason()).contains("Maximum > 0.0").contains("latest Maximum 3.0");
    assertThat(alarms.get("SweepRunFailed").state()).isEqualTo(AlarmState.OK);
    // The clean fixture's incremental run still answers for the nightly health.
    assertThat(alarms.get("NoSuccessfulIngestRun").state()).isEqualTo(AlarmState.OK);
    assertThat(alarms.get("IngestRunFailed").state()).isEqualTo(AlarmState.OK);
  }

  @Test
  void aFailedRunFiresItsOwnModesAlarmOnly() {
    run("backfill-1", IngestMode.BACKFILL, IngestStatus.FAILED, null);
    Map<String, AlarmStatus> alarms = alarms();
    AlarmStatus backfill = alarms.get("BackfillRunFailed");
    assertThat(backfill.state()).as(backfill.reason()).isEqualTo(AlarmState.ALARM);
    assertThat(backfill.alarmName()).isEqualTo("tidemark-default-customers-backfill-run-failed");
    assertThat(alarms.get("FullRefreshRunFailed").state()).isEqualTo(AlarmState.OK);
    assertThat(alarms.get("ReplayQuarantineRunFailed").state()).isEqualTo(AlarmState.OK);
    assertThat(alarms.get("IngestRunFailed").state()).isEqualTo(AlarmState.OK);
    assertThat(alarms.get("SweepRunFailed").state()).isEqualTo(AlarmState.OK);

    run("refresh-1", IngestMode.FULL_REFRESH, IngestStatus.FAILED, null);
    assertThat(alarms().get("FullRefreshRunFailed").state()).isEqualTo(AlarmState.ALARM);

    run("sweep-2", IngestMode.SWEEP, IngestStatus.FAILED, null);
    alarms = alarms();
    assertThat(alarms.get("SweepRunFailed").state()).isEqualTo(AlarmState.ALARM);
    assertThat(alarms.get("IngestRunFailed").state()).isEqualTo(AlarmState.OK);
    assertThat(alarms.get("FilesMissedByLookback").state()).isEqualTo(AlarmState.OK);
    assertThat(alarms.get("MaintainRunFailed").state()).isEqualTo(AlarmState.OK);

    run("maintain-1", IngestMode.MAINTAIN, IngestStatus.FAILED, null);
    alarms = alarms();
    AlarmStatus maintain = alarms.get("MaintainRunFailed");
    assertThat(maintain.state()).as(maintain.reason()).isEqualTo(AlarmState.ALARM);
    assertThat(maintain.alarmName()).isEqualTo("tidemark-default-customers-maintain-run-failed");
    assertThat(alarms.get("IngestRunFailed").state()).isEqualTo(AlarmState.OK);

    run("incr-2", IngestMode.INCREMENTAL, IngestStatus.FAILED, null);
    assertThat(alarms().get("IngestRunFailed").state()).isEqualTo(AlarmState.ALARM);
  }
}
