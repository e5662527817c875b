package io.tidemark.ingest;

import static io.tidemark.ingest.RawFixtures.d;
import static io.tidemark.ingest.RawFixtures.u;
import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.ingest.RawFixtures.Rec;
import io.tidemark.ingest.config.IngestSettings;
import io.tidemark.ingest.kernel.FailurePoint;
import io.tidemark.ingest.kernel.FailurePoints;
import io.tidemark.ingest.run.IngestJob;
import io.tidemark.ingest.run.IngestOutcome;
import io.tidemark.model.report.IngestErrorCode;
import io.tidemark.model.report.IngestRunReport;
import io.tidemark.model.report.IngestStatus;
import io.tidemark.model.testing.raw.RawColumn;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.iceberg.Table;
import org.apache.iceberg.spark.Spark3Util;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Each bad input ends quarantined with its reason, or with its exit code; no valid record lost. */
@Tag("spark")
class TestBadInputs extends SparkTestSupport {
  @TempDir Path dir;

  static Timestamp ts(String s) {
    return Timestamp.from(Instant.parse(s));
  }

  @Test
  void everyKindOfBadRecordAndFileIsQuarantinedWithItsReasonAndGoodRecordsLand() throws Exception {
    IngestSettings s = settings(dir).withMaxInvalidRatio(1.0);
    Path raw = Path.of(s.dataset().raw().location());
    String day = "2024-03-01";
    // Row-level problems in an otherwise good file.
    RawFixtures.write(
        raw,
        day,
        "a-rows.parquet",
        List.of(
            u("G1", "Good", "2024-03-01T10:00:00Z"),
            new Rec(null, "NullKey", null, Instant.parse("2024-03-01T10:00:00Z"), "U"),
            new Rec(" ", "BlankKey", null, Instant.parse("2024-03-01T10:00:00Z"), "U"),
            new Rec("M1", "NoMarker", null, null, "U"),
            u("F1", "Future", "2024-04-01T00:00:00Z"),
            new Rec("O1", "BadOp", null, Instant.parse("2024-03-01T10:00:00Z"), "X"),
            new Rec("N1", "NullOpIsUpsert", null, Instant.parse("2024-03-01T10:00:00Z"), null)));
    // The change marker as text: one parses, one does not.
    List<RawColumn> textMarker =
        List.of(
            RawColumn.of("customer_id", "VARCHAR"),
            RawColumn.of("customer_name", "VARCHAR"),
            RawColumn.of("email", "VARCHAR"),
            RawColumn.of("updated_at", "VARCHAR"),
            RawColumn.of("op", "VARCHAR"));
    RawFixtures.write(
        raw.resolve("ingest_date=" + day).resolve("b-text-marker.parquet"),
        textMarker,
        List.of(
            Arrays.asList("G2", "TextTime", "g2@x", "2024-03-01T11:00:00Z", "U"),
            Arrays.asList("P1", "Yesterday", "p1@x", "yesterday", "U")));
    // A file that is not Parquet at all.
    Files.writeString(raw.resolve("ingest_date=" + day).resolve("c-broken.parquet"), "not parquet");
    // A file missing a contract column.
    List<RawColumn> noEmail =
        List.of(
            RawColumn.of("customer_id", "VARCHAR"),
            RawColumn.of("customer_name", "VARCHAR"),
            RawColumn.of("updated_at", "TIMESTAMPTZ"));
    RawFixtures.write(
        raw.resolve("ingest_date=" + day).resolve("d-no-email.parquet"),
        noEmail,
        List.of(Arrays.asList("X1", "NoEmail", ts("2024-03-01T10:00:00Z"))));
    // A file whose contract column changed type.
    List<RawColumn> intEmail =
        List.of(
            RawColumn.of("customer_id", "VARCHAR"),
            RawColumn.of("customer_name", "VARCHAR"),
            RawColumn.of("email", "INTEGER"),
            RawColumn.of("updated_at", "TIMESTAMPTZ"));
    RawFixtures.write(
        raw.resolve("ingest_date=" + day).resolve("e-int-email.parquet"),
        intEmail,
        List.of(
            Arrays.asList("Y1", "IntEmail", 7, ts("2024-03-01T10:00:00Z")),
            Arrays.asList("Y2", "IntEmail2", 8, ts("2024-03-01T10:00:00Z"))));
    // Extra columns are drift: ignored, reported by name; the file's rows are valid. No op column
    // means every row is an upsert.
    List<RawColumn> extra =
        List.of(
            RawColumn.of("customer_id", "VARCHAR"),
            RawColumn.of("customer_name", "VARCHAR"),
            RawColumn.of("email", "VARCHAR"),
            RawColumn.of("updated_at", "TIMESTAMPTZ"),
            RawColumn.of("loyalty_tier", "VARCHAR"));
    RawFixtures.write(
        raw.resolve("ingest_date=" + day).resolve("f-extra.parquet"),
        extra,
        List.of(Arrays.asList("G3", "Extra", "g3@x", ts("2024-03-01T12:00:00Z"), "gold")));

    IngestOutcome out = new IngestJob(spark, s).run();
    IngestRunReport r = out.report();
    assertThat(r.status()).as(r.error()).isEqualTo(IngestStatus.SUCCEEDED);
    assertThat(out.exitCode()).isZero();

    // Every valid record landed.
    assertThat(curated(s).keySet()).containsExactlyInAnyOrder("G1", "N1", "G2", "G3");
    assertThat(curated(s).get("G2").get(2)).isEqualTo(Instant.parse("2024-03-01T11:00:00Z"));

    // Each bad record or file is in quarantine with its reason, file and batch.
    Map<String, String> reasons = new TreeMap<>();
    for (Row q :
        spark
            .table(s.quarantineSparkName())
            .select("source_file", "row_number", "reason", "batch_id", "original_values")
            .collectAsList()) {
      String file = q.getString(0).substring(q.getString(0).lastIndexOf('/') + 1);
      reasons.put(file + "#" + q.getLong(1), q.getString(2));
      assertThat(q.getString(3)).isEqualTo(r.batchId());
      if (q.getLong(1) >= 0) {
        assertThat(q.getString(4)).startsWith("{").contains("customer_name");
      }
    }
    assertThat(reasons)
        .containsExactlyEntriesOf(
            new TreeMap<>(
                Map.of(
                    "a-rows.parquet#1", "NULL_KEY",
                    "a-rows.parquet#2", "NULL_KEY",
                    "a-rows.parquet#3", "MISSING_CHANGE_MARKER",
                    "a-rows.parquet#4", "FUTURE_CHANGE_MARKER",
                    "a-rows.parquet#5", "UNKNOWN_OPERATION",
                    "b-text-marker.parquet#1", "UNPARSEABLE_CHANGE_MARKER",
                    "c-broken.parquet#-1", "UNREADABLE_FILE",
                    "d-no-email.parquet#0", "MISSING_COLUMN",
                    "e-int-email.parquet#0", "INCOMPATIBLE_TYPE",
                    "e-int-email.parquet#1", "INCOMPATIBLE_TYPE")));
    // The original values are kept for replay, e.g. the marker text that did not parse.
    assertThat(
            spark
                .table(s.quarantineSparkName())
                .filter("reason = 'UNPARSEABLE_CHANGE_MARKER'")
                .first()
                .getAs("original_values")
                .toString())
        .contains("\"updated_at\":\"yesterday\"");

    // The report names the quarantined files and the drift.
    assertThat(r.quarantinedFiles())
        .hasSize(3)
        .anySatisfy(f -> assertThat(f).contains("c-broken.parquet").contains("UNREADABLE_FILE"))
        .anySatisfy(f -> assertThat(f).contains("d-no-email.parquet").contains("[email]"))
        .anySatisfy(f -> assertThat(f).contains("e-int-email.parquet").contains("email is int"));
    assertThat(r.warnings())
        .anySatisfy(w -> assertThat(w).contains("[loyalty_tier]").contains("f-extra.parquet"));
    assertThat(r.counts().filesQuarantined()).isEqualTo(3);
    assertThat(r.counts().recordsInvalid()).isEqualTo(6 + 3);
    assertThat(r.counts().recordsWritten()).isEqualTo(4);
    assertThat(r.counts().accountingErrors()).isEmpty();
  }

  @Test
  void aBatchAboveTheInvalidRatioIsRejectedWithExitFourAndNothingCommitted() throws Exception {
    IngestSettings s = settings(dir);
    Path raw = Path.of(s.dataset().raw().location());
    RawFixtures.write(
        raw, "2024-03-01", "a.parquet", List.of(u("A", "Ada", "2024-03-01T10:00:00Z")));
    assertThat(new IngestJob(spark, s).run().report().status()).isEqualTo(IngestStatus.SUCCEEDED);
    Table table = Spark3Util.loadIcebergTable(spark, s.curatedSparkName());
    long before = table.currentSnapshot().snapshotId();
    long quarantineBefore = count(s.quarantineSparkName());

    RawFixtures.write(
        raw,
        "2024-03-02",
        "a.parquet",
        List.of(
            u("B", "Bo", "2024-03-02T10:00:00Z"),
            new Rec(null, "x", null, Instant.parse("2024-03-02T10:00:00Z"), "U"),
            new Rec("C", "y", null, Instant.parse("2024-03-02T10:00:00Z"), "?")));
    IngestOutcome rejected = new IngestJob(spark, s).run();
    assertThat(rejected.exitCode()).isEqualTo(4);
    assertThat(rejected.report().status()).isEqualTo(IngestStatus.REJECTED);
    assertThat(rejected.report().errorCode()).isEqualTo(IngestErrorCode.BATCH_REJECTED);
    assertThat(rejected.report().error())
        .contains("invalid ratio 0.6667 (2 of 3 candidate records) is above the limit 0.1000")
        .contains("by reason {NULL_KEY=1, UNKNOWN_OPERATION=1};")
        .contains("nothing was committed");
    assertThat(rejected.report().counts().accountingErrors()).isEmpty();
    table.refresh();
    assertThat(table.currentSnapshot().snapshotId()).isEqualTo(before);
    assertThat(count(s.quarantineSparkName())).isEqualTo(quarantineBefore);
    assertThat(curated(s).keySet()).containsExactly("A");

    // With the limit raised, the same files go through: nothing was lost by the rejection.
    IngestOutcome accepted = new IngestJob(spark, s.withMaxInvalidRatio(0.7)).run();
    assertThat(accepted.report().status()).isEqualTo(IngestStatus.SUCCEEDED);
    assertThat(curated(s).keySet()).containsExactlyInAnyOrder("A", "B");
    assertThat(count(s.quarantineSparkName())).isEqualTo(2);
  }

  @Test
  void aMissingRawRootIsAConfigErrorNamingThePath() {
    IngestSettings s = settings(dir);
    IngestOutcome out = new IngestJob(spark, s).run();
    assertThat(out.exitCode()).isEqualTo(2);
    assertThat(out.report().status()).isEqualTo(IngestStatus.FAILED);
    assertThat(out.report().errorCode()).isEqualTo(IngestErrorCode.RAW_ROOT_NOT_FOUND);
    assertThat(out.report().error())
        .isEqualTo(
            "Cannot list raw root file:" + s.dataset().raw().location() + ": it does not exist");
    assertThat(out.reportLocation()).isNotNull();
  }

  @Test
  void aFileWithCorruptDataPagesIsQuarantinedWholeAndTheBatchGoesOn() throws Exception {
    IngestSettings s = settings(dir);
    Path raw = Path.of(s.dataset().raw().location());
    String day = "2024-03-01";
    RawFixtures.write(raw, day, "a-good.parquet", List.of(u("A", "Ada", "2024-03-01T10:00:00Z")));
    List<Rec> many = new java.util.ArrayList<>();
    for (int i = 0; i < 200; i++) {
      many.add(u("C" + i, "Customer number " + i, "2024-03-01T10:00:00Z"));
    }
    Path corrupt = RawFixtures.write(raw, day, "b-corrupt.parquet", many);
    // The footer (at the end) stays intact, so the file's schema reads; its first pages do not.
    byte[] bytes = Files.readAllBytes(corrupt);
    for (int i = 4; i < 200; i++) {
      bytes[i] = (byte) 0xA5;
    }
    Files.write(corrupt, bytes);
    RawFixtures.write(raw, day, "c-good.parquet", List.of(u("B", "Bo", "2024-03-01T11:00:00Z")));

    IngestOutcome out = new IngestJob(spark, s).run();
    IngestRunReport r = out.report();

    assertThat(r.status()).as(r.error()).isEqualTo(IngestStatus.SUCCEEDED);
    assertThat(out.exitCode()).isZero();
    assertThat(curated(s).keySet()).containsExactlyInAnyOrder("A", "B");
    assertThat(r.quarantinedFiles())
        .singleElement()
        .satisfies(f -> assertThat(f).contains("b-corrupt.parquet: UNREADABLE_FILE ("));
    assertThat(
            spark
                .table(s.quarantineSparkName())
                .filter("reason = 'UNREADABLE_FILE' AND source_file LIKE '%b-corrupt.parquet'")
                .count())
        .isEqualTo(1);
    assertThat(r.counts().filesQuarantined()).isEqualTo(1);
    assertThat(r.counts().accountingErrors()).isEmpty();

    // The file is processed (quarantined): a rerun has nothing to do rather than failing again.
    assertThat(new IngestJob(spark, s).run().report().status())
        .isEqualTo(IngestStatus.NOTHING_TO_DO);
  }

  @Test
  void aFileWithTwoColumnsDifferingOnlyInCaseIsQuarantinedWholeAndTheBatchGoesOn()
      throws Exception {
    IngestSettings s = settings(dir);
    Path raw = Path.of(s.dataset().raw().location());
    String day = "2024-03-01";
    RawFixtures.write(raw, day, "a-good.parquet", List.of(u("A", "Ada", "2024-03-01T10:00:00Z")));
    // DuckDB's column names ignore case, so this one file is written by Spark told to mind case.
    Path written = dir.resolve("two-emails-out");
    spark.conf().set("spark.sql.caseSensitive", "true");
    try {
      spark
          .sql(
              "SELECT 'X' AS customer_id, 'Xu' AS customer_name, 'x@example.com' AS email,"
                  + " TIMESTAMP '2024-03-01 10:00:00' AS updated_at, 'U' AS op,"
                  + " 'X@EXAMPLE.COM' AS EMAIL")
          .coalesce(1)
          .write()
          .parquet(written.toString());
    } finally {
      spark.conf().set("spark.sql.caseSensitive", "false");
    }
    try (java.util.stream.Stream<Path> parts = Files.list(written)) {
      Path part = parts.filter(p -> p.toString().endsWith(".parquet")).findFirst().orElseThrow();
      Files.move(part, raw.resolve("ingest_date=" + day).resolve("b-two-emails.parquet"));
    }

    IngestOutcome out = new IngestJob(spark, s).run();
    IngestRunReport r = out.report();

    assertThat(r.status()).as(r.error()).isEqualTo(IngestStatus.SUCCEEDED);
    assertThat(curated(s).keySet()).containsExactly("A");
    assertThat(r.quarantinedFiles())
        .singleElement()
        .satisfies(
            f ->
                assertThat(f)
                    .endsWith(
                        "b-two-emails.parquet: DUPLICATE_COLUMN (columns 'email' and 'EMAIL'"
                            + " differ only in case)"));
    assertThat(r.counts().accountingErrors()).isEmpty();
  }

  @Test
  void anyExceptionEvenACheckedOneThrownUndeclaredEndsInAFailedRunWithAReport() throws Exception {
    IngestSettings s = settings(dir);
    Path raw = Path.of(s.dataset().raw().location());
    RawFixtures.write(
        raw, "2024-03-01", "a.parquet", List.of(u("A", "Ada", "2024-03-01T10:00:00Z")));
    FailurePoints hook =
        point -> {
          if (point == FailurePoint.AFTER_READ) {
            throwUnchecked(new java.util.concurrent.TimeoutException("the executor went away"));
          }
        };

    IngestOutcome out = new IngestJob(spark, s, hook).run();

    assertThat(out.exitCode()).isEqualTo(1);
    assertThat(out.report().status()).isEqualTo(IngestStatus.FAILED);
    assertThat(out.report().errorCode()).isEqualTo(IngestErrorCode.INTERNAL_ERROR);
    assertThat(out.report().error())
        .startsWith("Cannot ingest dataset customers into " + s.curatedSparkName())
        .contains("TimeoutException: the executor went away");
    assertThat(out.reportLocation()).isNotNull();
    assertThat(Path.of(out.reportLocation())).exists();
  }

  @Test
  void aStateRootThatCannotBeWrittenFailsTheRunBeforeItCommitsAndARerunRepairsIt()
      throws Exception {
    IngestSettings s = settings(dir);
    Path raw = Path.of(s.dataset().raw().location());
    RawFixtures.write(
        raw, "2024-03-01", "a.parquet", List.of(u("A", "Ada", "2024-03-01T10:00:00Z")));
    // A file where the state folder should be: nothing can be written under it.
    Path state = Path.of(s.stateRoot());
    Files.writeString(state, "not a folder");

    IngestOutcome out = new IngestJob(spark, s).run();

    assertThat(out.exitCode()).isEqualTo(1);
    assertThat(out.reportLocation()).isNull();
    assertThat(out.report().status()).isEqualTo(IngestStatus.FAILED);
    assertThat(out.report().errorCode()).isEqualTo(IngestErrorCode.IO_FAILED);
    assertThat(out.report().error())
        .startsWith(
            "Cannot commit batch "
                + out.report().batchId()
                + ": its run report cannot be written under the state root "
                + s.stateRoot())
        .endsWith("; nothing was committed");
    // Data and reports agree: no report, and no batch in the table either.
    assertThat(spark.catalog().tableExists(s.curatedSparkName())).isFalse();

    Files.delete(state);
    IngestOutcome rerun = new IngestJob(spark, s).run();
    assertThat(rerun.report().status()).isEqualTo(IngestStatus.SUCCEEDED);
    assertThat(rerun.report().batchId()).isEqualTo(out.report().batchId());
    assertThat(rerun.reportLocation()).isNotNull();
    assertThat(Path.of(rerun.reportLocation())).exists();
    assertThat(curated(s).keySet()).containsExactly("A");
  }

  @Test
  void aDayFolderOfTheReportsThatCannotBeWrittenFailsTheRunBeforeItCommits() throws Exception {
    IngestSettings s = settings(dir);
    Path raw = Path.of(s.dataset().raw().location());
    RawFixtures.write(
        raw, "2024-03-01", "a.parquet", List.of(u("A", "Ada", "2024-03-01T10:00:00Z")));
    // _runs/ can be written, but the run's day folder, where its report goes, cannot: a file
    // stands where the folder should be.
    Path day = Path.of(s.stateRoot(), "_runs", "dt=" + NOW.toString().substring(0, 10));
    Files.createDirectories(day.getParent());
    Files.writeString(day, "not a folder");

    IngestOutcome out = new IngestJob(spark, s).run();

    assertThat(out.report().status()).as(out.report().error()).isEqualTo(IngestStatus.FAILED);
    assertThat(out.exitCode()).isEqualTo(1);
    assertThat(out.report().errorCode()).isEqualTo(IngestErrorCode.IO_FAILED);
    assertThat(out.report().error())
        .startsWith(
            "Cannot commit batch "
                + out.report().batchId()
                + ": its run report cannot be written under the state root "
                + s.stateRoot())
        .contains(day.toString())
        .endsWith("; nothing was committed");
    assertThat(spark.catalog().tableExists(s.curatedSparkName())).isFalse();

    Files.delete(day);
    IngestOutcome rerun = new IngestJob(spark, s).run();
    assertThat(rerun.report().status()).isEqualTo(IngestStatus.SUCCEEDED);
    assertThat(rerun.report().batchId()).isEqualTo(out.report().batchId());
    assertThat(Path.of(rerun.reportLocation())).exists();
    // The probe leaves nothing beside the report.
    try (var files = Files.list(day)) {
      assertThat(files.map(f -> f.getFileName().toString()))
          .containsExactly(rerun.report().runId() + ".json");
    }
    assertThat(curated(s).keySet()).containsExactly("A");
  }

  @Test
  void aReplayedDeleteIsUnchangedAndOnlyDeletesOfKeysNeverSeenAreWarnedAbout() throws Exception {
    IngestSettings s = settings(dir);
    Path raw = Path.of(s.dataset().raw().location());
    RawFixtures.write(
        raw,
        "2024-03-01",
        "a.parquet",
        List.of(u("A", "Ada", "2024-03-01T10:00:00Z"), u("B", "Bo", "2024-03-01T10:00:00Z")));
    assertThat(new IngestJob(spark, s).run().report().status()).isEqualTo(IngestStatus.SUCCEEDED);
    List<Rec> deletes = List.of(d("A", "2024-03-02T10:00:00Z"), d("Z", "2024-03-02T10:00:00Z"));
    RawFixtures.write(raw, "2024-03-02", "deletes.parquet", deletes);

    IngestRunReport day2 = new IngestJob(spark, s).run().report();
    assertThat(day2.counts().recordsDeleted()).isEqualTo(1);
    assertThat(day2.counts().deletesOfUnknownKeys()).isEqualTo(1);
    assertThat(day2.warnings())
        .contains(
            "1 delete(s) of keys never seen: neither the table nor its remembered deletes held"
                + " them");

    // The source re-delivers the same deletes: both keys are already deleted, nothing changes.
    RawFixtures.write(raw, "2024-03-03", "deletes-again.parquet", deletes);
    IngestRunReport day3 = new IngestJob(spark, s).run().report();
    assertThat(day3.status()).as(day3.error()).isEqualTo(IngestStatus.SUCCEEDED);
    assertThat(day3.counts().recordsUnchanged()).isEqualTo(2);
    assertThat(day3.counts().deletesOfUnknownKeys()).isZero();
    assertThat(day3.counts().recordsDeleted()).isZero();
    assertThat(day3.counts().accountingErrors()).isEmpty();
    assertThat(day3.warnings()).noneSatisfy(w -> assertThat(w).contains("delete(s)"));

    // A newer delete of a deleted key changes nothing either, but is remembered: a version older
    // than it, arriving later, must not bring the key back.
    RawFixtures.write(
        raw, "2024-03-04", "newer-delete.parquet", List.of(d("A", "2024-03-04T10:00:00Z")));
    IngestRunReport day4 = new IngestJob(spark, s).run().report();
    assertThat(day4.counts().recordsUnchanged()).isEqualTo(1);
    assertThat(day4.counts().deletesOfUnknownKeys()).isZero();
    RawFixtures.write(
        raw, "2024-03-05", "late-upsert.parquet", List.of(u("A", "Ada3", "2024-03-03T10:00:00Z")));
    IngestRunReport day5 = new IngestJob(spark, s).run().report();
    assertThat(day5.counts().recordsUnchanged()).isEqualTo(1);
    assertThat(curated(s).keySet()).containsExactly("B");
  }

  /** Throws a checked exception from code that does not declare it, as Scala code does. */
  @SuppressWarnings("unchecked")
  private static <E extends Throwable> void throwUnchecked(Throwable e) throws E {
    throw (E) e;
  }
}
