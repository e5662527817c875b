package io.tidemark.reconcile.report;

import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.model.json.Json;
import io.tidemark.model.report.DiscoveryMode;
import io.tidemark.model.report.IngestCounts;
import io.tidemark.model.report.IngestMode;
import io.tidemark.model.report.IngestRunReport;
import io.tidemark.model.report.IngestStatus;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Run reports read from a local state root: by day, each file parsed once until it changes. */
class TestLocalRunReports {
  private static final Instant T = Instant.parse("2026-03-10T02:00:00Z");

  @TempDir Path state;

  private Path land(String dataset, String runId, Instant finishedAt) throws Exception {
    IngestRunReport r =
        IngestRunReport.builder()
            .runId(runId)
            .batchId("batch-" + runId)
            .pipeline("default")
            .dataset(dataset)
            .mode(IngestMode.INCREMENTAL)
            .discoveryMode(DiscoveryMode.FILES)
            .status(IngestStatus.SUCCEEDED)
            .startedAt(finishedAt.minusSeconds(60))
            .finishedAt(finishedAt)
            .watermarkAfter(finishedAt.toString())
            .lookback(Duration.ofHours(1))
            .counts(new IngestCounts(4, 4, 0, 0, 30, 27, 3, 2, 22, 20, 0, 1, 0, 1, 0))
            .snapshotId(1L)
            .build();
    return write(LocalDate.ofInstant(r.startedAt(), ZoneOffset.UTC), runId, Json.write(r));
  }

  private Path write(LocalDate day, String name, String text) throws Exception {
    Path f = state.resolve("_runs").resolve("dt=" + day).resolve(name + ".json");
    Files.createDirectories(f.getParent());
    Files.writeString(f, text);
    return f;
  }

  /** Before this change one truncated report made the dataset's whole history unreadable. */
  @Test
  void aTruncatedReportIsSkippedAndNamedAndTheOthersAreRead() throws Exception {
    land("customers", "good", T);
    String whole = Files.readString(land("customers", "cut", T.plusSeconds(60)));
    Path cut = write(LocalDate.of(2026, 3, 10), "cut", whole.substring(0, whole.length() / 2));
    LocalRunReports reports = new LocalRunReports(state);

    for (RunReportSource.Listing listing :
        List.of(
            reports.read("default", "customers", null, Instant.MAX),
            reports.newest("default", "customers", 20))) {
      assertThat(listing.reports()).extracting(IngestRunReport::runId).containsExactly("good");
      assertThat(listing.unreadable())
          .singleElement()
          .satisfies(
              u -> {
                assertThat(u.location()).isEqualTo(cut.toString());
                assertThat(u.message())
                    .startsWith("Cannot read run report " + cut + ": ")
                    .endsWith("; skipped");
              });
    }
    assertThat(reports.unreadable())
        .extracting(UnreadableReport::location)
        .containsExactly(cut.toString());
  }

  @Test
  void theNewestRunsReadOnlyTheNewestDaysAndEachFileOnce() throws Exception {
    for (int day = 0; day < 30; day++) {
      for (int run = 0; run < 3; run++) {
        land(
            "customers",
            "d" + day + "-r" + run,
            T.minus(Duration.ofDays(day)).plusSeconds(run * 600L));
      }
    }
    LocalRunReports reports = new LocalRunReports(state);

    assertThat(reports.newest("default", "customers", 1).reports())
        .extracting(IngestRunReport::runId)
        .containsExactly("d0-r2");
    assertThat(reports.parsedCount())
        .as("the newest day, and the day before for a run that crossed midnight")
        .isEqualTo(6);
    assertThat(reports.newest("default", "customers", 7).reports()).hasSize(7);
    assertThat(reports.parsedCount()).as("days 0-3 in all").isEqualTo(12);
    assertThat(reports.newest("default", "customers", 7).reports()).hasSize(7);
    assertThat(reports.parsedCount()).as("nothing changed: nothing parsed again").isEqualTo(12);
    assertThat(reports.read("default", "customers", null, Instant.MAX).reports()).hasSize(90);
    assertThat(reports.parsedCount()).isEqualTo(90);
  }

  @Test
  void aReportThatLandsChangesOrGoesIsSeenAtTheNextRead() throws Exception {
    land("customers", "first", T);
    LocalRunReports reports = new LocalRunReports(state);
    assertThat(reports.newest("default", "customers", 5).reports())
        .extracting(IngestRunReport::runId)
        .containsExactly("first");

    Path second = land("customers", "second", T.plusSeconds(60));
    assertThat(reports.newest("default", "customers", 5).reports())
        .extracting(IngestRunReport::runId)
        .containsExactly("second", "first");

    String text = Files.readString(second);
    write(LocalDate.of(2026, 3, 10), "second", "{");
    assertThat(reports.newest("default", "customers", 5).unreadable()).hasSize(1);
    write(LocalDate.of(2026, 3, 10), "second", text);
    assertThat(reports.newest("default", "customers", 5).unreadable()).isEmpty();
    assertThat(reports.unreadable()).isEmpty();

    Files.delete(second);
    assertThat(reports.newest("default", "customers", 5).reports())
        .extracting(IngestRunReport::runId)
        .containsExactly("first");
  }

  @Test
  void otherDatasetsAndHiddenFilesAreNotListed() throws Exception {
    land("customers", "mine", T);
    land("orders", "theirs", T);
    write(LocalDate.of(2026, 3, 10), ".mine.json.tmp", "{partial");
    Files.createDirectories(state.resolve("_runs").resolve("not-a-day"));
    RunReportSource.Listing listing = new LocalRunReports(state).newest("default", "customers", 5);
    assertThat(listing.reports()).extracting(IngestRunReport::runId).containsExactly("mine");
    assertThat(listing.unreadable()).isEmpty();
  }
}
