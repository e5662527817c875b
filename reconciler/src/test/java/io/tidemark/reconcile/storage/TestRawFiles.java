package io.tidemark.reconcile.storage;

import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.reconcile.fixtures.Contracts;
import io.tidemark.reconcile.fixtures.RawLayer;
import io.tidemark.reconcile.fixtures.RawRow;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDate;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TestRawFiles {
  @TempDir Path dir;

  private static final Instant WINDOW_START = Instant.parse("2026-03-10T06:00:00Z");

  @Test
  void olderPartitionsContributeOnlyTheFilesThatArrivedSinceTheWindowStart() {
    RawLayer raw = new RawLayer(dir.resolve("customers"));
    List<RawRow> rows = List.of(RawRow.upsert("k1", "n", "e", WINDOW_START));
    LocalDate old = LocalDate.parse("2026-03-06");
    RawLayer.landedAt(raw.write(old, "early.parquet", rows), Instant.parse("2026-03-06T01:00:00Z"));
    RawLayer.landedAt(raw.write(old, "late.parquet", rows), WINDOW_START);
    RawLayer.landedAt(
        raw.write(LocalDate.parse("2026-03-09"), "recent.parquet", rows),
        Instant.parse("2026-03-09T01:00:00Z"));

    RawFiles.Listing listing =
        RawFiles.list(
            Contracts.customers("customers", raw.root().toString(), "curated.customers"),
            LocalDate.parse("2026-03-09"),
            WINDOW_START);

    assertThat(listing.files())
        .extracting(f -> raw.root().relativize(Path.of(f.path())).toString())
        .containsExactly(
            "ingest_date=2026-03-06/late.parquet", "ingest_date=2026-03-09/recent.parquet");
    assertThat(listing.files().get(0).arrived()).isEqualTo(WINDOW_START);
    assertThat(
            RawFiles.list(
                    Contracts.customers("customers", raw.root().toString(), "curated.customers"),
                    null)
                .files())
        .hasSize(3);
  }
}
