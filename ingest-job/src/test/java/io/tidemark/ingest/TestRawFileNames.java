package io.tidemark.ingest;

import static io.tidemark.ingest.RawFixtures.u;
import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.ingest.config.IngestSettings;
import io.tidemark.ingest.run.IngestJob;
import io.tidemark.ingest.run.IngestOutcome;
import io.tidemark.model.report.IngestRunReport;
import io.tidemark.model.report.IngestStatus;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Raw file names are S3 keys chosen by the source: any character may appear, and every file is read
 * as itself, never as a pattern that matches other files.
 */
@Tag("spark")
class TestRawFileNames extends SparkTestSupport {
  @TempDir Path dir;

  @Test
  void namesWithGlobCharactersAreReadLiterallySoEveryRowLandsExactlyOnce() throws Exception {
    IngestSettings s = settings(dir);
    Path raw = Path.of(s.dataset().raw().location());
    String day = "2024-03-01";
    // Each pattern-like name sits beside the names its pattern would match.
    Map<String, String> keyByFile = new TreeMap<>();
    keyByFile.put("a[1].parquet", "K-bracket");
    keyByFile.put("a1.parquet", "K-a1");
    keyByFile.put("b{x,y}.parquet", "K-brace");
    keyByFile.put("bx.parquet", "K-bx");
    keyByFile.put("by.parquet", "K-by");
    keyByFile.put("q?.parquet", "K-question");
    keyByFile.put("qa.parquet", "K-qa");
    keyByFile.put("s*.parquet", "K-star");
    keyByFile.put("st.parquet", "K-st");
    keyByFile.put("back\\slash.parquet", "K-backslash");
    keyByFile.forEach(
        (file, key) ->
            RawFixtures.write(raw, day, file, List.of(u(key, key, "2024-03-01T10:00:00Z"))));

    IngestOutcome out = new IngestJob(spark, s).run();
    IngestRunReport r = out.report();

    assertThat(r.status()).as(r.error()).isEqualTo(IngestStatus.SUCCEEDED);
    assertThat(r.quarantinedFiles()).isEmpty();
    assertThat(r.counts().filesNew()).isEqualTo(keyByFile.size());
    // One row per file: a file read as a pattern would bring in its neighbours' rows too.
    assertThat(r.counts().recordsRead()).isEqualTo(keyByFile.size());
    assertThat(r.counts().recordsSuperseded()).isZero();
    assertThat(curated(s).keySet()).containsExactlyInAnyOrderElementsOf(keyByFile.values());
    assertThat(r.inputFiles())
        .hasSize(keyByFile.size())
        .allSatisfy(f -> assertThat(keyByFile).containsKey(f.substring(f.lastIndexOf('/') + 1)));
  }

  @Test
  void namesWithColonsAreOrdinaryKeysAndAreReadEvenBesideGlobCharacters() throws Exception {
    IngestSettings s = settings(dir);
    Path raw = Path.of(s.dataset().raw().location());
    String day = "2024-03-01";
    Map<String, String> keyByFile = new TreeMap<>();
    keyByFile.put("export-2024-03-01T10:00:00.parquet", "K-colon");
    keyByFile.put("export-2024-03-01T11:00:00*.parquet", "K-colon-star");
    keyByFile.put("export-2024-03-01T12:00:00?.parquet", "K-colon-question");
    keyByFile.put("plain.parquet", "K-plain");
    keyByFile.forEach(
        (file, key) ->
            RawFixtures.write(raw, day, file, List.of(u(key, key, "2024-03-01T10:00:00Z"))));

    IngestOutcome out = new IngestJob(spark, s).run();
    IngestRunReport r = out.report();

    assertThat(r.status()).as(r.error()).isEqualTo(IngestStatus.SUCCEEDED);
    assertThat(r.quarantinedFiles()).isEmpty();
    assertThat(r.counts().recordsRead()).isEqualTo(keyByFile.size());
    assertThat(curated(s).keySet()).containsExactlyInAnyOrderElementsOf(keyByFile.values());

    // The checkpoint remembers them by name: the next run skips them all.
    IngestRunReport again = new IngestJob(spark, s).run().report();
    assertThat(again.status()).isEqualTo(IngestStatus.NOTHING_TO_DO);
    assertThat(again.counts().filesSkipped()).isEqualTo(keyByFile.size());
  }
}
