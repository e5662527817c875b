package io.tidemark.ingest;

import static io.tidemark.ingest.RawFixtures.u;
import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.ingest.RawFixtures.Rec;
import io.tidemark.ingest.config.IngestSettings;
import io.tidemark.ingest.run.IngestJob;
import io.tidemark.model.report.IngestRunReport;
import io.tidemark.model.report.IngestStatus;
import io.tidemark.model.testing.raw.RawColumn;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerJobStart;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A batch of many one-row files: every record lands or is quarantined with its own file and row,
 * every bad file is quarantined whole with its reason, and the files are read together rather than
 * one Spark job or scan per file.
 */
@Tag("spark")
class TestManySmallFiles extends SparkTestSupport {
  static final int FILES_PER_DAY = 200;
  static final List<String> DAYS = List.of("2024-03-01", "2024-03-02");

  @TempDir Path dir;

  @Test
  void hundredsOfOneRowFilesAreReadTogetherWithEveryPerFileFactKept() throws Exception {
    IngestSettings s = settings(dir).withMaxInvalidRatio(1.0);
    Path raw = Path.of(s.dataset().raw().location());
    Map<String, Map<String, List<Rec>>> files = new LinkedHashMap<>();
    TreeSet<String> validKeys = new TreeSet<>();
    TreeSet<String> nullKeyFiles = new TreeSet<>();
    int n = 0;
    for (String day : DAYS) {
      Map<String, List<Rec>> byName = new LinkedHashMap<>();
      for (int i = 0; i < FILES_PER_DAY; i++, n++) {
        String name = String.format("part-%04d.parquet", i);
        if (n % 50 == 7) {
          // One row without a key: quarantined with this file's name and row 0.
          byName.put(
              name, List.of(new Rec(null, "Nobody", null, Instant.parse(day + "T10:00:00Z"), "U")));
          nullKeyFiles.add(day + "/" + name);
        } else {
          String key = "K" + n;
          byName.put(name, List.of(u(key, "Name " + n, day + "T10:00:00Z")));
          validKeys.add(key);
        }
      }
      files.put(day, byName);
    }
    RawFixtures.writeMany(raw, files);
    Path day1 = raw.resolve("ingest_date=" + DAYS.get(0));
    // Among them: a file that is not Parquet, one missing a contract column, one whose data pages
    // are corrupt behind a readable footer.
    Files.writeString(day1.resolve("x-broken.parquet"), "not parquet");
    RawFixtures.write(
        day1.resolve("x-no-email.parquet"),
        List.of(
            RawColumn.of("customer_id", "VARCHAR"),
            RawColumn.of("customer_name", "VARCHAR"),
            RawColumn.of("updated_at", "TIMESTAMPTZ")),
        List.<List<Object>>of(
            Arrays.asList(
                "E1", "No email", java.sql.Timestamp.from(Instant.parse("2024-03-01T10:00:00Z")))));
    List<Rec> many = new ArrayList<>();
    for (int i = 0; i < 200; i++) {
      many.add(u("C" + i, "Customer number " + i, "2024-03-01T10:00:00Z"));
    }
    Path corrupt = RawFixtures.write(raw, DAYS.get(0), "x-corrupt.parquet", many);
    byte[] bytes = Files.readAllBytes(corrupt);
    for (int i = 4; i < 200; i++) {
      bytes[i] = (byte) 0xA5;
    }
    Files.write(corrupt, bytes);
    int total = DAYS.size() * FILES_PER_DAY + 3;

    AtomicInteger jobs = new AtomicInteger();
    SparkListener counter =
        new SparkListener() {
          @Override
          public void onJobStart(SparkListenerJobStart jobStart) {
            jobs.incrementAndGet();
          }
        };
    spark.sparkContext().addSparkListener(counter);
    IngestRunReport r;
    try {
      r = new IngestJob(spark, s).run().report();
    } finally {
      spark.sparkContext().removeSparkListener(counter);
    }

    assertThat(r.status()).as(r.error()).isEqualTo(IngestStatus.SUCCEEDED);
    assertThat(r.counts().accountingErrors()).isEmpty();
    assertThat(r.counts().filesNew()).isEqualTo(total);
    assertThat(r.inputFiles()).hasSize(total);
    assertThat(r.counts().filesQuarantined()).isEqualTo(3);
    assertThat(r.counts().recordsInserted()).isEqualTo(validKeys.size());
    assertThat(curated(s).keySet()).containsExactlyInAnyOrderElementsOf(validKeys);
    // Every quarantine row names its own file and row.
    Map<String, String> quarantined = new TreeMap<>();
    for (Row q :
        spark
            .table(s.quarantineSparkName())
            .select("source_file", "row_number", "reason")
            .collectAsList()) {
      String file = q.getString(0);
      String rel = file.substring(file.indexOf("ingest_date=") + "ingest_date=".length());
      assertThat(quarantined.put(rel + "#" + q.getLong(1), q.getString(2))).isNull();
    }
    Map<String, String> expected = new TreeMap<>();
    nullKeyFiles.forEach(f -> expected.put(f + "#0", "NULL_KEY"));
    expected.put(DAYS.get(0) + "/x-broken.parquet#-1", "UNREADABLE_FILE");
    expected.put(DAYS.get(0) + "/x-corrupt.parquet#-1", "UNREADABLE_FILE");
    expected.put(DAYS.get(0) + "/x-no-email.parquet#0", "MISSING_COLUMN");
    assertThat(quarantined).isEqualTo(expected);
    assertThat(r.quarantinedFiles())
        .hasSize(3)
        .anySatisfy(f -> assertThat(f).contains("x-broken.parquet: UNREADABLE_FILE ("))
        .anySatisfy(f -> assertThat(f).contains("x-corrupt.parquet: UNREADABLE_FILE ("))
        .anySatisfy(f -> assertThat(f).contains("x-no-email.parquet: MISSING_COLUMN ("));
    // Read together: a few jobs per step (and a halving search for the corrupt file), not one or
    // more per file.
    assertThat(jobs.get())
        .as("Spark jobs the run started for %s files", total)
        .isLessThan(total / 4);
  }
}
