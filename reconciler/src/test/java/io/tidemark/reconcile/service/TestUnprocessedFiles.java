package io.tidemark.reconcile.service;

import static io.tidemark.reconcile.fixtures.CustomersScenario.NOW;
import static io.tidemark.reconcile.fixtures.CustomersScenario.at;
import static io.tidemark.reconcile.fixtures.CustomersScenario.day;
import static io.tidemark.reconcile.fixtures.CustomersScenario.key;
import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.model.config.RuleKind;
import io.tidemark.model.config.RuleSpec;
import io.tidemark.model.report.IngestStatus;
import io.tidemark.model.report.ReconciliationMode;
import io.tidemark.model.report.RuleResult;
import io.tidemark.model.report.RuleStatus;
import io.tidemark.reconcile.fixtures.CustomersScenario;
import io.tidemark.reconcile.fixtures.RawLayer;
import io.tidemark.reconcile.fixtures.RawRow;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** unprocessed_files names the raw files no committed batch read once they are past the grace. */
class TestUnprocessedFiles {
  @TempDir Path dir;

  /** A partition three days before the fixture's oldest one: beyond the job's lookback. */
  private static final LocalDate OLD = day(at(30)).minusDays(3);

  private static RuleResult unprocessed(
      CustomersScenario s, Instant now, ReconciliationMode mode, Duration grace) {
    Reconciler.Builder b =
        Reconciler.builder(s.stateRoot)
            .dataset(s.contract(List.of(RuleSpec.of(RuleKind.UNPROCESSED_FILES))), s.catalog())
            .clock(Clock.fixed(now, ZoneOffset.UTC));
    if (grace != null) {
      b.unprocessedFileGrace("customers", grace);
    }
    return b.build().run("customers", mode, null, null, "test").results().get(0);
  }

  private static Path lateFile(CustomersScenario s, Instant landed) {
    return RawLayer.landedAt(
        s.raw.write(
            OLD, "late.parquet", List.of(RawRow.upsert(key(21), "late", "k21@example.com", at(1)))),
        landed);
  }

  @Test
  void everyFileOfTheCleanFixtureWasReadByItsCommittedRun() {
    try (CustomersScenario s = CustomersScenario.clean(dir)) {
      RuleResult r = unprocessed(s, NOW, ReconciliationMode.FULL, null);
      assertThat(r.status()).isEqualTo(RuleStatus.PASS);
      assertThat(r.observed()).isZero();
    }
  }

  @Test
  void aFileThatLandedBeyondTheLookbackAfterTheJobRanFailsNamingIt() {
    try (CustomersScenario s = CustomersScenario.clean(dir)) {
      // The job ran at -2 h; the file landed at -1 h; eight hours later it is past the grace.
      lateFile(s, at(1));
      Instant later = NOW.plus(Duration.ofHours(8));
      for (ReconciliationMode mode : ReconciliationMode.values()) {
        RuleResult r = unprocessed(s, later, mode, null);
        assertThat(r.status()).as(mode.name()).isEqualTo(RuleStatus.FAIL);
        assertThat(r.observed()).isEqualTo(1.0);
        assertThat(r.sampleKeys()).containsExactly("ingest_date=" + OLD + "/late.parquet");
        assertThat(r.reason())
            .isEqualTo(
                "1 raw data file(s) older than the grace period PT6H are in no committed ingest"
                    + " batch (no SUCCEEDED or ALREADY_COMMITTED run report lists them):"
                    + " ingest_date="
                    + OLD
                    + "/late.parquet. To pick them up, run the ingest job with --mode sweep (it"
                    + " reads every raw file no committed batch read; see docs/ingest-job.md, \"Sweeping for"
                    + " missed files\"); if files keep landing behind the lookback, widen"
                    + " --lookback or look at the producer");
        assertThat(r.reason()).doesNotContain("planned", "not available");
      }
    }
  }

  @Test
  void aFileYoungerThanTheGracePasses_theGraceIsSetPerDataset() {
    try (CustomersScenario s = CustomersScenario.clean(dir)) {
      lateFile(s, at(1));
      assertThat(unprocessed(s, NOW, ReconciliationMode.FULL, null).status())
          .isEqualTo(RuleStatus.PASS);
      assertThat(unprocessed(s, NOW, ReconciliationMode.FULL, Duration.ofMinutes(30)).sampleKeys())
          .containsExactly("ingest_date=" + OLD + "/late.parquet");
    }
  }

  @Test
  void onlyCommittedBatchesCount_aRetryThatFoundItsBatchCommittedDoes() {
    try (CustomersScenario s = CustomersScenario.clean(dir)) {
      Path late = lateFile(s, at(20));
      List<String> read = List.of("file:" + late.toAbsolutePath());
      s.writeRunReport(
          "run-0002",
          "batch-run-0002",
          IngestStatus.REJECTED,
          at(10),
          CustomersScenario.consistentCounts(),
          read);
      assertThat(unprocessed(s, NOW, ReconciliationMode.FULL, null).sampleKeys())
          .as("a rejected batch committed nothing")
          .containsExactly("ingest_date=" + OLD + "/late.parquet");

      s.writeRunReport(
          "run-0003",
          "batch-run-0002",
          IngestStatus.ALREADY_COMMITTED,
          at(9),
          CustomersScenario.consistentCounts(),
          read);
      assertThat(unprocessed(s, NOW, ReconciliationMode.FULL, null).status())
          .isEqualTo(RuleStatus.PASS);
    }
  }
}
