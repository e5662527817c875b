package io.tidemark.model.contract;

import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.model.contract.VersionOrder.Version;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class TestVersionOrder {
  @Test
  void newestMarkerThenDeleteThenFirstDelivered() {
    Version older = new Version(10, true, "ingest_date=2026-11-01/a.parquet", 0);
    Version upsertLate = new Version(20, false, "ingest_date=2026-11-02/a.parquet", 0);
    Version upsertEarly = new Version(20, false, "ingest_date=2026-11-01/z.parquet", 5);
    Version upsertEarlyFirstRow = new Version(20, false, "ingest_date=2026-11-01/z.parquet", 1);
    Version delete = new Version(20, true, "ingest_date=2026-11-03/a.parquet", 9);
    List<Version> versions =
        new ArrayList<>(List.of(older, upsertLate, upsertEarly, delete, upsertEarlyFirstRow));
    versions.sort(VersionOrder.WINNER_FIRST);
    assertThat(versions)
        .containsExactly(delete, upsertEarlyFirstRow, upsertEarly, upsertLate, older);
  }

  @Test
  void pathsCompareAsUtf8BytesLikeSqlEngines() {
    // U+FF5E (3 UTF-8 bytes, one UTF-16 unit) sorts before U+1F600 (4 bytes, a surrogate pair)
    // by code point, but after it by UTF-16 units.
    assertThat(VersionOrder.compareUtf8("\uff5e", "\ud83d\ude00")).isNegative();
    assertThat("\uff5e".compareTo("\ud83d\ude00")).isPositive();
    assertThat(VersionOrder.compareUtf8("a", "ab")).isNegative();
  }

  @Test
  void sqlOrderByListsTheSameKeys() {
    assertThat(VersionOrder.sqlOrderBy("marker", "is_delete", "src", "pos"))
        .isEqualTo("marker DESC, is_delete DESC, src ASC, pos ASC");
  }
}
