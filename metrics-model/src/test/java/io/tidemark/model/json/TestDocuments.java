package io.tidemark.model.json;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tidemark.model.config.ChangeMarker;
import io.tidemark.model.config.ChangeMarkerType;
import io.tidemark.model.config.DatasetSpec;
import io.tidemark.model.config.RuleKind;
import io.tidemark.model.config.RuleSpec;
import io.tidemark.model.config.Severity;
import io.tidemark.model.config.ToleranceMode;
import io.tidemark.model.report.IngestRunReport;
import io.tidemark.model.report.ReconciliationMode;
import io.tidemark.model.report.ReconciliationReport;
import io.tidemark.model.report.ReconciliationStatus;
import io.tidemark.model.report.RuleResult;
import io.tidemark.model.testing.Reports;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** JSON round trip of the contract's documents, and the errors a bad document gets. */
class TestDocuments {
  private static final Instant T0 = Instant.parse("2026-10-16T02:00:00Z");

  @Test
  void ingestRunReportRoundTripsAndCarriesItsSchemaVersion() {
    IngestRunReport report = Reports.succeeded(T0);
    String json = Json.write(report);

    assertThat(json)
        .contains(
            "\"schemaVersion\" : 1",
            "\"lookback\" : \"PT48H\"",
            "\"startedAt\" : \"2026-10-16T02:00:00Z\"");
    assertThat(Json.read(json, IngestRunReport.class)).isEqualTo(report);
  }

  @Test
  void ingestRunReportsWrittenBeforeIgnoredPartitionFoldersExistedStillRead() {
    IngestRunReport report = Reports.succeeded(T0);
    String json = Json.write(report);
    assertThat(json).contains("\"ignoredPartitionFolders\" : [ ]");
    String older = json.replaceAll(",\\s*\"ignoredPartitionFolders\" : \\[ \\]", "");
    assertThat(older).doesNotContain("ignoredPartitionFolders");
    assertThat(Json.read(older, IngestRunReport.class).ignoredPartitionFolders()).isEmpty();
  }

  @Test
  void maintenanceEntriesWrittenBeforeRowsRemovedWereCountedReadAsNone() {
    IngestRunReport report =
        Reports.succeeded(T0).toBuilder()
            .maintenance(
                List.of(
                    new io.tidemark.model.report.TableMaintenance(
                        "tidemark.curated.customers_tombstones", 3, 1, 0, 0, 2, 0, 5, 1, 0, 1)))
            .build();
    String json = Json.write(report);
    assertThat(Json.read(json, IngestRunReport.class)).isEqualTo(report);
    String older = json.replaceAll("\\s*\"rowsRemoved\" : 5,", "");
    assertThat(older).doesNotContain("rowsRemoved");
    assertThat(Json.read(older, IngestRunReport.class).maintenance().get(0).rowsRemoved()).isZero();
  }

  @Test
  void ignoredPartitionFoldersRoundTripAndArePublishedAsACount() {
    IngestRunReport r = Reports.succeeded(T0);
    IngestRunReport withFolders =
        r.toBuilder()
            .ignoredPartitionFolders(List.of("INGEST_DATE=2026-10-15", "ingest_date=2026-13-45"))
            .discoveryListCalls(3)
            .build();
    assertThat(Json.read(Json.write(withFolders), IngestRunReport.class)).isEqualTo(withFolders);
    assertThat(io.tidemark.model.metrics.IngestRunMetrics.datums(withFolders))
        .filteredOn(d -> d.metric() == io.tidemark.model.metrics.Metric.PARTITION_FOLDERS_IGNORED)
        .singleElement()
        .satisfies(d -> assertThat(d.value()).isEqualTo(2.0));
  }

  @Test
  void reconciliationReportRoundTrips() {
    RuleSpec missing = RuleSpec.of(RuleKind.MISSING_KEYS);
    ReconciliationReport report =
        new ReconciliationReport(
            ReconciliationReport.SCHEMA_VERSION,
            "rec-1",
            "crm",
            "customers",
            ReconciliationMode.WINDOW,
            T0.minusSeconds(86400),
            T0,
            "duckdb",
            "schedule",
            ReconciliationStatus.FAILED,
            T0,
            T0.plusSeconds(3),
            List.of(
                RuleResult.evaluate(missing, 2, "2 keys missing", List.of("C1", "C7"), 1024),
                RuleResult.error(RuleSpec.of(RuleKind.FRESHNESS), "curated table has no snapshot")),
            1024,
            0.0,
            null,
            new io.tidemark.model.report.CuratedSnapshot(8_954_597_067_493_422_955L, T0),
            null);

    ReconciliationReport back = Json.read(Json.write(report), ReconciliationReport.class);

    assertThat(back).isEqualTo(report);
    assertThat(back.results().get(0).sampleKeys()).containsExactly("C1", "C7");
    assertThat(Json.write(report)).contains("\"kind\" : \"missing_keys\"");
  }

  @Test
  void datasetSpecFillsDefaultsAndRoundTrips() {
    String json =
        """
        {"name": "customers", "keyColumns": ["customer_id"], "operationColumn": "op",
         "changeMarker": {"column": "updated_at"},
         "comparedColumns": ["customer_name", "email"],
         "raw": {"location": "s3://lake/raw/customers"}, "curatedTable": "curated.customers"}
        """;
    DatasetSpec spec = Json.read(json, DatasetSpec.class);

    assertThat(spec.pipeline()).isEqualTo("default");
    assertThat(spec.changeMarker().type()).isEqualTo(ChangeMarkerType.TIMESTAMP);
    assertThat(spec.raw().partitionColumn()).isEqualTo("ingest_date");
    assertThat(spec.quarantineTable()).isEqualTo("curated.customers_quarantine");
    assertThat(spec.contractColumns())
        .containsExactly("customer_id", "updated_at", "op", "customer_name", "email");
    assertThat(Json.read(Json.write(spec), DatasetSpec.class)).isEqualTo(spec);
  }

  @Test
  void aDatasetWithoutAChangeMarkerIsRefusedNotGivenTheDemosColumn() {
    String json =
        """
        {"name": "orders", "keyColumns": ["order_id"],
         "raw": {"location": "s3://lake/raw/orders"}, "curatedTable": "curated.orders"}
        """;

    assertThatThrownBy(() -> Json.read(json, DatasetSpec.class))
        .hasRootCauseInstanceOf(InvalidDocumentException.class)
        .rootCause()
        .hasMessageContaining("changeMarker")
        .hasMessageContaining("is required");
    assertThatThrownBy(() -> ChangeMarker.timestamp(null))
        .isInstanceOf(InvalidDocumentException.class)
        .hasMessageContaining("column");
  }

  @Test
  void ruleSpecDefaultsComeFromItsKind() {
    RuleSpec count = Json.read("{\"kind\": \"count_match\"}", RuleSpec.class);
    RuleSpec fresh =
        Json.read("{\"kind\": \"freshness\", \"severity\": \"WARNING\"}", RuleSpec.class);

    assertThat(count)
        .isEqualTo(
            new RuleSpec(
                "count_match",
                RuleKind.COUNT_MATCH,
                0.0,
                ToleranceMode.ABSOLUTE,
                Severity.CRITICAL,
                20));
    assertThat(fresh.threshold()).isEqualTo(129_600.0);
    assertThat(fresh.tolerance()).isNull();
  }

  @Test
  void aHostileKeyColumnIsRejectedNamingFieldAndValue() {
    String json =
        """
        {"name": "customers", "keyColumns": ["id; DROP TABLE x"],
         "raw": {"location": "/raw"}, "curatedTable": "curated.customers"}
        """;
    assertThatThrownBy(() -> Json.read(json, DatasetSpec.class))
        .isInstanceOf(InvalidDocumentException.class)
        .hasMessage(
            "Cannot read DatasetSpec: field 'keyColumns[0]' has invalid value 'id; DROP TABLE x':"
                + " not an identifier (letters, digits, '_'; not starting with a digit)");
  }

  @Test
  void nestedErrorsNameTheFullPath() {
    String json =
        """
        {"name": "customers", "keyColumns": ["customer_id"],
         "raw": {"location": "  "}, "curatedTable": "curated.customers"}
        """;
    assertThatThrownBy(() -> Json.read(json, DatasetSpec.class))
        .hasMessage(
            "Cannot read DatasetSpec: field 'raw.location' has invalid value '  ': must not be blank");
  }

  @Test
  void unknownFieldsAndBadEnumsAreNamed() {
    assertThatThrownBy(
            () -> Json.read("{\"kind\": \"missing_keys\", \"treshold\": 3}", RuleSpec.class))
        .hasMessageStartingWith("Cannot read RuleSpec: unknown field 'treshold'");
    assertThatThrownBy(() -> Json.read("{\"kind\": \"row_count\"}", RuleSpec.class))
        .hasMessageStartingWith(
            "Cannot read RuleSpec: field 'kind' has invalid value 'row_count': unknown rule kind");
    assertThatThrownBy(
            () ->
                Json.read("{\"kind\": \"missing_keys\", \"tolerance\": \"RATIO\"}", RuleSpec.class))
        .hasMessage(
            "Cannot read RuleSpec: field 'tolerance' has invalid value 'RATIO': applies to count_match and"
                + " aggregate_match only");
    assertThatThrownBy(
            () -> Json.read("{\"kind\": \"missing_keys\", \"threshold\": -1}", RuleSpec.class))
        .hasMessage(
            "Cannot read RuleSpec: field 'threshold' has invalid value '-1.0': must be a finite number >= 0");
  }

  @Test
  void reportsFromAnotherSchemaVersionOrWithImpossibleCountsAreRejected() {
    String json = Json.write(Reports.succeeded(T0));
    assertThatThrownBy(
            () ->
                Json.read(
                    json.replace("\"schemaVersion\" : 1", "\"schemaVersion\" : 9"),
                    IngestRunReport.class))
        .hasMessage(
            "Cannot read IngestRunReport: field 'schemaVersion' has invalid value '9': this reader understands version 1");
    assertThatThrownBy(
            () ->
                Json.read(
                    json.replace("\"recordsInvalid\" : 10", "\"recordsInvalid\" : -10"),
                    IngestRunReport.class))
        .hasMessage(
            "Cannot read IngestRunReport: field 'counts.recordsInvalid' has invalid value '-10': must not be negative");
    assertThatThrownBy(
            () ->
                Json.read(json.replace("2026-10-15T23:58:00Z", "yesterday"), IngestRunReport.class))
        .hasMessage(
            "Cannot read IngestRunReport: field 'watermarkAfter' has invalid value 'yesterday': not a TIMESTAMP watermark");
    assertThatThrownBy(() -> Json.read("{not json", IngestRunReport.class))
        .hasMessageStartingWith("Cannot read IngestRunReport: malformed JSON");
  }

  @Test
  void aFailedRunMustSayWhy() {
    String json = Json.write(Reports.succeeded(T0)).replace("\"SUCCEEDED\"", "\"FAILED\"");
    assertThatThrownBy(() -> Json.read(json, IngestRunReport.class))
        .hasMessage(
            "Cannot read IngestRunReport: field 'error' has invalid value null: a FAILED run must say why");
  }

  @Test
  void atomicWritesLeaveOnlyTheFinishedDocument(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("_runs/dt=2026-10-16/run-1.json");
    Json.writeAtomically(file, Reports.succeeded(T0));
    Json.writeAtomically(file, Reports.succeeded(T0.plusSeconds(1)));

    assertThat(Json.read(file, IngestRunReport.class).startedAt()).isEqualTo(T0.plusSeconds(1));
    try (var files = Files.list(file.getParent())) {
      assertThat(files).containsExactly(file);
    }
  }

  @Test
  void readingAFileNamesTheFile(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("rules.json");
    Files.writeString(file, "{\"kind\": \"nope\"}");
    assertThatThrownBy(() -> Json.read(file, RuleSpec.class))
        .hasMessageStartingWith(
            file + ": Cannot read RuleSpec: field 'kind' has invalid value 'nope'");
  }
}
