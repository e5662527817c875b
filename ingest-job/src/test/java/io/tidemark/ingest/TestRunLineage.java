package io.tidemark.ingest;

import static io.tidemark.ingest.RawFixtures.u;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.tidemark.ingest.config.IngestSettings;
import io.tidemark.ingest.metrics.RunLineage;
import io.tidemark.ingest.run.IngestJob;
import io.tidemark.ingest.run.IngestOutcome;
import io.tidemark.model.lineage.LineageNames;
import io.tidemark.model.report.IngestStatus;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every ingest run is an OpenLineage run event (here through the client's file transport): raw in,
 * with the rows and files read; the curated table (and the quarantine, when records were
 * quarantined) out, with the rows written, named as the reconciler names its inputs; a rejected
 * batch is a FAIL saying why and writes nothing.
 */
@Tag("spark")
class TestRunLineage extends SparkTestSupport {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dir;

  private static List<JsonNode> events(Path file) throws Exception {
    List<JsonNode> out = new ArrayList<>();
    for (String line : Files.readAllLines(file)) {
      out.add(JSON.readTree(line));
    }
    return out;
  }

  @Test
  void eachRunIsALineageRunFromRawToTheCuratedTable() throws Exception {
    Path file = dir.resolve("lineage.jsonl");
    IngestSettings s =
        settings(dir).withLineage(RunLineage.Settings.file(file.toString()).withNamespace("crm"));
    Path raw = Path.of(s.dataset().raw().location());
    RawFixtures.write(
        raw,
        "2024-03-01",
        "a.parquet",
        List.of(
            u("A", "Ada", "2024-03-01T10:00:00Z"),
            u("B", "Bo", "2024-03-01T10:00:00Z"),
            new RawFixtures.Rec(null, "x", null, Instant.parse("2024-03-01T10:00:00Z"), "U")));
    s = s.withMaxInvalidRatio(0.5);
    IngestOutcome ok = new IngestJob(spark, s).run();
    assertThat(ok.report().status()).isEqualTo(IngestStatus.SUCCEEDED);

    JsonNode e = events(file).get(0);
    assertThat(e.path("eventType").asText()).isEqualTo("COMPLETE");
    assertThat(e.path("producer").asText()).isEqualTo("urn:tidemark:ingest-job");
    assertThat(e.path("job").path("namespace").asText()).isEqualTo("crm");
    assertThat(e.path("job").path("name").asText()).isEqualTo("ingest.default.customers");
    assertThat(e.path("run").path("runId").asText())
        .isEqualTo(LineageNames.runId("ingest-run", ok.report().runId()).toString());
    assertThat(e.path("run").path("facets").path("tidemark").path("snapshotId").asLong())
        .isEqualTo(ok.report().snapshotId());
    JsonNode in = e.path("inputs").get(0);
    assertThat(in.path("namespace").asText()).isEqualTo("file");
    assertThat(in.path("name").asText()).isEqualTo(raw.toString());
    assertThat(in.path("inputFacets").path("inputStatistics").path("rowCount").asLong())
        .isEqualTo(3);
    assertThat(in.path("inputFacets").path("inputStatistics").path("fileCount").asLong())
        .isEqualTo(1);
    JsonNode curated = e.path("outputs").get(0);
    assertThat(curated.path("namespace").asText())
        .isEqualTo(LineageNames.table(s.catalog(), s.dataset().curatedTable()).namespace());
    assertThat(curated.path("name").asText()).isEqualTo("curated.customers");
    assertThat(curated.path("outputFacets").path("outputStatistics").path("rowCount").asLong())
        .isEqualTo(2);
    JsonNode quarantine = e.path("outputs").get(1);
    assertThat(quarantine.path("name").asText()).isEqualTo(s.dataset().quarantineTable());
    assertThat(quarantine.path("outputFacets").path("outputStatistics").path("rowCount").asLong())
        .isEqualTo(1);

    // Two of three records invalid now: rejected, nothing written.
    RawFixtures.write(
        raw,
        "2024-03-02",
        "a.parquet",
        List.of(
            u("C", "Cy", "2024-03-02T10:00:00Z"),
            new RawFixtures.Rec(null, "x", null, Instant.parse("2024-03-02T10:00:00Z"), "U"),
            new RawFixtures.Rec("D", "y", null, Instant.parse("2024-03-02T10:00:00Z"), "?")));
    IngestOutcome rejected = new IngestJob(spark, s.withMaxInvalidRatio(0.1)).run();
    assertThat(rejected.report().status()).isEqualTo(IngestStatus.REJECTED);
    JsonNode fail = events(file).get(1);
    assertThat(fail.path("eventType").asText()).isEqualTo("FAIL");
    assertThat(fail.path("run").path("facets").path("errorMessage").path("message").asText())
        .startsWith("BATCH_REJECTED: Cannot commit batch ")
        .contains("invalid ratio");
    assertThat(fail.path("outputs")).as("nothing written").isEmpty();
  }
}
