package io.tidemark.reconcile.storage;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * What a foreign commit's snapshot summary says of it, read as engines write it: the summaries here
 * are copied from real commits (Spark 4.1 on Iceberg 1.11, merge-on-read).
 */
class TestForeignCommitSummaries {
  /** A 3-row DELETE: the writer rewrote the delete files it touched. */
  private static final Map<String, String> SPARK_DELETE =
      Map.of(
          "added-delete-files", "2",
          "removed-delete-files", "2",
          "added-position-deletes", "14086",
          "removed-position-deletes", "14083",
          "total-records", "216482",
          "total-data-files", "23",
          "engine-name", "spark",
          "engine-version", "4.1.1",
          "app-name", "nightly-fix",
          "app-id", "local-1796334169115");

  @Test
  void rowsRemovedAreTheDeletesAddedNetOfThoseDropped() {
    assertThat(IcebergTables.removed(SPARK_DELETE)).isEqualTo(3);
    assertThat(IcebergTables.removed(Map.of("deleted-records", "5", "total-records", "9")))
        .as("copy-on-write: records of removed files")
        .isEqualTo(5);
    assertThat(IcebergTables.removed(Map.of("added-records", "1", "total-records", "9")))
        .as("an append removes nothing")
        .isZero();
    assertThat(IcebergTables.removed(Map.of())).as("a summary that says nothing").isEqualTo(-1);
  }

  @Test
  void theWriterIsNamedByEngineAppOrQuery() {
    assertThat(IcebergTables.writer(SPARK_DELETE))
        .isEqualTo("spark 4.1.1, app nightly-fix (local-1796334169115)");
    assertThat(IcebergTables.writer(Map.of("trino_query_id", "q1"))).isEqualTo("trino (query q1)");
    assertThat(IcebergTables.writer(Map.of())).isEqualTo("an unnamed writer");
  }

  @Test
  void compactionsAndCommitsOfNoFileAreNotForeign_aSummaryWithoutTotalsIs() {
    assertThat(IcebergTables.isForeign("delete", SPARK_DELETE)).isTrue();
    assertThat(IcebergTables.isForeign("replace", Map.of("added-data-files", "1"))).isFalse();
    assertThat(IcebergTables.isForeign("append", Map.of("total-data-files", "3"))).isFalse();
    assertThat(IcebergTables.isForeign("append", Map.of())).isTrue();
    assertThat(
            IcebergTables.isForeign(
                "overwrite", Map.of("added-data-files", "1", "tidemark.run-id", "r1")))
        .as("the job's own")
        .isFalse();
  }
}
