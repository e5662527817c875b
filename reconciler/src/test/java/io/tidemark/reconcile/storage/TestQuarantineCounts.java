package io.tidemark.reconcile.storage;

import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.model.config.CatalogSpec;
import io.tidemark.reconcile.fixtures.QuarantineTable;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.catalog.Catalog;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Quarantine counts as the status page shows them: what is still quarantined, by reason. */
class TestQuarantineCounts {
  @TempDir Path dir;

  private CatalogSpec warehouse() {
    try {
      return CatalogSpec.localJdbc(
          java.nio.file.Files.createDirectories(dir.resolve("wh")).toString());
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  @Test
  void replayedRowsAreKeptForAuditButNotCountedAsQuarantined() {
    CatalogSpec spec = warehouse();
    QuarantineTable.writeWithReplays(
        spec,
        "curated.customers_quarantine",
        Instant.parse("2024-03-20T00:00:00Z"),
        List.of("FUTURE_CHANGE_MARKER", "FUTURE_CHANGE_MARKER", "FUTURE_CHANGE_MARKER", "NULL_KEY"),
        2);
    Catalog catalog = IcebergTables.catalog(spec);
    try {
      QuarantineCounts c = QuarantineCounts.read(catalog, "curated.customers_quarantine");
      assertThat(c.exists()).isTrue();
      assertThat(c.byReason()).isEqualTo(Map.of("FUTURE_CHANGE_MARKER", 1L, "NULL_KEY", 1L));
      assertThat(c.total()).isEqualTo(2);
      assertThat(c.replayed()).isEqualTo(2);
    } finally {
      IcebergTables.close(catalog);
    }
  }

  @Test
  void aTableWrittenBeforeReplaysCountsEveryRow() {
    CatalogSpec spec = warehouse();
    QuarantineTable.write(
        spec,
        "curated.customers_quarantine",
        "run-1",
        Instant.parse("2024-03-20T00:00:00Z"),
        List.of("NULL_KEY", "UNKNOWN_OPERATION"));
    Catalog catalog = IcebergTables.catalog(spec);
    try {
      QuarantineCounts c = QuarantineCounts.read(catalog, "curated.customers_quarantine");
      assertThat(c.total()).isEqualTo(2);
      assertThat(c.replayed()).isZero();
    } finally {
      IcebergTables.close(catalog);
    }
  }
}
