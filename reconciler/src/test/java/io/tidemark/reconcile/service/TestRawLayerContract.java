package io.tidemark.reconcile.service;

import static io.tidemark.reconcile.fixtures.CustomersScenario.NOW;
import static io.tidemark.reconcile.fixtures.CustomersScenario.day;
import static io.tidemark.reconcile.fixtures.RawRow.upsert;
import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.model.config.RuleKind;
import io.tidemark.model.config.RuleSpec;
import io.tidemark.model.report.ReconciliationMode;
import io.tidemark.model.report.ReconciliationReport;
import io.tidemark.model.report.ReconciliationStatus;
import io.tidemark.model.report.RuleResult;
import io.tidemark.model.report.RuleStatus;
import io.tidemark.reconcile.fixtures.CuratedTable;
import io.tidemark.reconcile.fixtures.CustomersScenario;
import io.tidemark.reconcile.fixtures.RawRow;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The reconciler reads the raw layer under the shared contract, as the ingest job does: files by
 * their literal names, {@code .parquet} in any case, the operation column optional, integer keys as
 * text, blank and malformed keys invalid, stray folders named. Each fixture adds raw files to the
 * clean customers fixture and puts into curated exactly what the job would write for them, so every
 * rule must pass; reading the raw layer any other way fails a rule.
 */
class TestRawLayerContract {
  @TempDir Path dir;
  private CustomersScenario s;
  private Instant at;
  private LocalDate partition;

  @BeforeEach
  void clean() {
    s = CustomersScenario.clean(dir);
    at = s.ago(4);
    partition = day(at);
  }

  @AfterEach
  void close() {
    s.close();
  }

  private ReconciliationReport reconcile() {
    return Reconciler.builder(s.stateRoot)
        .dataset(s.contract(RuleSpec.defaults()), s.catalog())
        .clock(Clock.fixed(NOW, ZoneOffset.UTC))
        .build()
        .run("customers", ReconciliationMode.FULL, null, null, "test");
  }

  private static Map<RuleKind, RuleResult> byKind(ReconciliationReport report) {
    return report.results().stream().collect(Collectors.toMap(RuleResult::kind, r -> r));
  }

  private static void assertEveryRulePasses(ReconciliationReport report) {
    assertThat(report.results())
        .allSatisfy(
            r ->
                assertThat(r.status())
                    .as("%s: %s", r.kind(), r.reason())
                    .isEqualTo(RuleStatus.PASS));
    assertThat(report.status()).isEqualTo(ReconciliationStatus.PASSED);
  }

  private CuratedTable.Row row(String key) {
    return new CuratedTable.Row(key, "n-" + key, key + "@example.com", at);
  }

  private RawRow raw(String key) {
    return upsert(key, "n-" + key, key + "@example.com", at);
  }

  @Test
  void filesAreReadByTheirLiteralNamesWhateverCharactersTheyHold() {
    List<String> names =
        List.of(
            "a1.parquet",
            "a[1].parquet",
            "q1.parquet",
            "q?.parquet",
            "s*.parquet",
            "b{x,y}.parquet",
            "bx.parquet",
            "export-2026-03-06T10:00:00.parquet",
            "UPPER.PARQUET");
    List<CuratedTable.Row> curated = new ArrayList<>();
    for (int i = 0; i < names.size(); i++) {
      String key = "lit-" + i;
      s.raw.write(partition, names.get(i), List.of(raw(key)));
      curated.add(row(key));
    }
    s.curated.append(curated);

    ReconciliationReport report = reconcile();

    assertEveryRulePasses(report);
    assertThat(byKind(report).get(RuleKind.COUNT_MATCH).reason()).isNull();
  }

  @Test
  void aFileWithoutTheOperationColumnHoldsUpsertsAndIntegerKeysAreText() {
    s.raw.writeQuery(
        partition,
        "no-op.parquet",
        "SELECT 'noop-1' AS customer_id, 'n-noop-1' AS customer_name,"
            + " 'noop-1@example.com' AS email, TIMESTAMP '"
            + at.toString().replace("T", " ").replace("Z", "")
            + "' AS updated_at");
    s.raw.writeQuery(
        partition,
        "int-key.parquet",
        "SELECT 4242::BIGINT AS customer_id, 'n-4242' AS customer_name,"
            + " '4242@example.com' AS email, TIMESTAMP '"
            + at.toString().replace("T", " ").replace("Z", "")
            + "' AS updated_at, 'U' AS op");
    s.curated.append(List.of(row("noop-1"), row("4242")));

    ReconciliationReport report = reconcile();

    assertEveryRulePasses(report);
    assertThat(byKind(report).get(RuleKind.COUNT_MATCH).reason()).isNull();
  }

  @Test
  void blankAndMalformedKeysAreInvalidAsTheJobQuarantinesThem() {
    s.raw.write(
        partition,
        "odd-keys.parquet",
        List.of(
            raw("\u200b"),
            raw("\0"),
            raw("odd-1 "),
            raw(" odd-1"),
            raw("odd\u200b-1"),
            raw("odd-1\n"),
            raw("odd-1")));
    s.curated.append(List.of(row("odd-1")));

    ReconciliationReport report = reconcile();

    assertEveryRulePasses(report);
  }

  @Test
  void aFileWithColumnsDifferingOnlyInCaseIsExcludedAsTheJobQuarantinesIt() throws Exception {
    // DuckDB renames such a column when it reads the file (EMAIL -> EMAIL_1) and would take the
    // file; written here through Iceberg's Parquet writer, which keeps both names.
    org.apache.iceberg.Schema twoEmails =
        new org.apache.iceberg.Schema(
            org.apache.iceberg.types.Types.NestedField.optional(
                1, "customer_id", org.apache.iceberg.types.Types.StringType.get()),
            org.apache.iceberg.types.Types.NestedField.optional(
                2, "customer_name", org.apache.iceberg.types.Types.StringType.get()),
            org.apache.iceberg.types.Types.NestedField.optional(
                3, "email", org.apache.iceberg.types.Types.StringType.get()),
            org.apache.iceberg.types.Types.NestedField.optional(
                4, "EMAIL", org.apache.iceberg.types.Types.StringType.get()),
            org.apache.iceberg.types.Types.NestedField.optional(
                5, "updated_at", org.apache.iceberg.types.Types.TimestampType.withZone()));
    Path file = s.raw.root().resolve("ingest_date=" + partition).resolve("two-emails.parquet");
    org.apache.iceberg.data.GenericRecord rec =
        org.apache.iceberg.data.GenericRecord.create(twoEmails);
    rec.setField("customer_id", "dup-1");
    rec.setField("customer_name", "n");
    rec.setField("email", "a@example.com");
    rec.setField("EMAIL", "b@example.com");
    rec.setField("updated_at", java.time.OffsetDateTime.ofInstant(at, ZoneOffset.UTC));
    try (org.apache.iceberg.io.FileAppender<org.apache.iceberg.data.Record> w =
        new org.apache.iceberg.data.GenericAppenderFactory(twoEmails)
            .newAppender(
                org.apache.iceberg.Files.localOutput(file.toFile()),
                org.apache.iceberg.FileFormat.PARQUET)) {
      w.add(rec);
    }

    ReconciliationReport report = reconcile();

    assertEveryRulePasses(report);
    assertThat(byKind(report).get(RuleKind.COUNT_MATCH).reason())
        .isEqualTo(
            "1 raw file(s) excluded, as the ingest job quarantines them: file:"
                + file.toAbsolutePath()
                + " (DUPLICATE_COLUMN: columns 'email' and 'EMAIL' differ only in case)");
  }

  @Test
  void strayFoldersAndFilesAreNamedInTheCountResultAndFailUnprocessedFiles() {
    s.raw.write("ingest_date=garbage", "part-0.parquet", List.of(raw("stray-1")));
    s.raw.write("ingest_date=2026-13-45", "part-0.parquet", List.of(raw("stray-2")));
    s.raw.write("INGEST_DATE=" + partition, "part-0.parquet", List.of(raw("stray-3")));
    s.raw.write("_staging", "part-0.parquet", List.of(raw("hidden-1")));
    s.raw.write(".", "loose.parquet", List.of(raw("stray-4")));

    ReconciliationReport report = reconcile();

    // Never silently green: what the layout cannot place, no batch will ever read.
    assertThat(report.results())
        .filteredOn(r -> r.kind() != RuleKind.UNPROCESSED_FILES)
        .allSatisfy(r -> assertThat(r.status()).as("%s", r.kind()).isEqualTo(RuleStatus.PASS));
    RuleResult unprocessed = byKind(report).get(RuleKind.UNPROCESSED_FILES);
    assertThat(unprocessed.status()).isEqualTo(RuleStatus.FAIL);
    assertThat(unprocessed.sampleKeys())
        .containsExactly(
            "INGEST_DATE="
                + partition
                + " (the partition column is 'ingest_date' (names are case-sensitive))",
            "ingest_date=2026-13-45 ('2026-13-45' is not a date YYYY-MM-DD)",
            "ingest_date=garbage ('garbage' is not a date YYYY-MM-DD)",
            "loose.parquet (a file outside any partition folder)");
    String root = s.raw.root().toAbsolutePath().toString();
    assertThat(byKind(report).get(RuleKind.COUNT_MATCH).reason())
        .isEqualTo(
            "4 stray entries under the raw root, read by neither the job nor the reconciler: "
                + root
                + "/INGEST_DATE="
                + partition
                + " (the partition column is 'ingest_date' (names are case-sensitive)); "
                + root
                + "/ingest_date=2026-13-45 ('2026-13-45' is not a date YYYY-MM-DD); "
                + root
                + "/ingest_date=garbage ('garbage' is not a date YYYY-MM-DD); "
                + root
                + "/loose.parquet (a file outside any partition folder)");
  }
}
