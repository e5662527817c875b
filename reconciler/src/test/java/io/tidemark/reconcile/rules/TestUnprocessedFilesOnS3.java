package io.tidemark.reconcile.rules;

import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.reconcile.storage.RawFiles;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Unprocessed files on S3 are named as locally, relative to the dataset's raw location: the name
 * the finding shows and the one the run reports' input files are matched on.
 */
class TestUnprocessedFilesOnS3 {
  private static final Instant NOW = Instant.parse("2026-03-10T12:00:00Z");

  @Test
  void filesOnS3AreNamedRelativeToTheRawLocation() {
    LocalDate day = LocalDate.parse("2026-03-08");
    String root = "s3://lake/raw/customers";
    List<RawFiles.RawFile> files =
        List.of(
            new RawFiles.RawFile(
                root + "/ingest_date=2026-03-08/b.parquet", day, 10, NOW.minusSeconds(86_400)),
            new RawFiles.RawFile(
                root + "/ingest_date=2026-03-08/a.parquet", day, 10, NOW.minusSeconds(86_400)),
            // Within the grace period: the next run may still take it.
            new RawFiles.RawFile(root + "/ingest_date=2026-03-08/c.parquet", day, 10, NOW));

    UnprocessedFiles.Outcome outcome =
        UnprocessedFiles.check(root + "/", files, List.of(), List.of(), Duration.ofHours(6), NOW);

    assertThat(outcome.files())
        .containsExactly("ingest_date=2026-03-08/a.parquet", "ingest_date=2026-03-08/b.parquet");
  }
}
