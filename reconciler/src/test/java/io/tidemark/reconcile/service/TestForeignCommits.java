package io.tidemark.reconcile.service;

import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.model.config.RuleKind;
import io.tidemark.model.config.RuleSpec;
import io.tidemark.model.report.ReconciliationMode;
import io.tidemark.model.report.RuleResult;
import io.tidemark.model.report.RuleStatus;
import io.tidemark.reconcile.fixtures.CuratedTable;
import io.tidemark.reconcile.fixtures.CustomersScenario;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Set;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * foreign_commits names the commits on the curated table's main history that no Tidemark run made
 * (the snapshot summary has no {@code tidemark.run-id}), with what their snapshots say of them, and
 * leaves the job's commits, compactions and commits that change no file alone. The scenario's
 * commits are the job's, as the job tags them.
 */
class TestForeignCommits {
  @TempDir Path dir;
  private CustomersScenario s;
  private Instant now;

  @BeforeEach
  void clean() {
    // Iceberg stamps commits with the wall clock: "now" is a few minutes after it.
    now = Instant.now().plus(Duration.ofMinutes(5)).truncatedTo(ChronoUnit.SECONDS);
    s = CustomersScenario.clean(dir, now);
  }

  @AfterEach
  void close() {
    s.close();
  }

  private RuleResult foreignCommits(ReconciliationMode mode, Instant from) {
    return Reconciler.builder(s.stateRoot)
        .dataset(s.contract(List.of(RuleSpec.of(RuleKind.FOREIGN_COMMITS))), s.catalog())
        .clock(Clock.fixed(now, ZoneOffset.UTC))
        .build()
        .run("customers", mode, from, mode == ReconciliationMode.FULL ? null : now, "test")
        .results()
        .get(0);
  }

  private Snapshot current() {
    return s.curated.table().currentSnapshot();
  }

  @Test
  void theJobsOwnCommitsAreNotForeign() {
    RuleResult r = foreignCommits(ReconciliationMode.FULL, null);

    assertThat(r.status()).as(r.reason()).isEqualTo(RuleStatus.PASS);
    assertThat(r.observed()).isZero();
  }

  @Test
  void aDeleteByAnotherWriterIsNamedWithItsSnapshotWriterAndRows() {
    s.curated
        .withSummary("engine-name", "spark")
        .withSummary("engine-version", "4.1.0")
        .withSummary("app-id", "local-1")
        .delete(List.of(CustomersScenario.key(19)));
    long foreign = current().snapshotId();

    RuleResult r = foreignCommits(ReconciliationMode.FULL, null);

    assertThat(r.status()).isEqualTo(RuleStatus.FAIL);
    assertThat(r.observed()).isEqualTo(1.0);
    assertThat(r.sampleKeys()).hasSize(1);
    assertThat(r.sampleKeys().get(0))
        .startsWith("snapshot " + foreign + " at ")
        .contains(": delete by spark 4.1.0 (local-1)")
        .endsWith(", 1 removed");
    assertThat(r.reason())
        .startsWith("1 commit(s) on the curated table's main history were made by no Tidemark run")
        .contains("snapshot " + foreign);
  }

  @Test
  void aWriteByTrinoOrAthenaIsNamedByItsQueryAndUser() {
    s.curated
        .withSummary("trino_query_id", "20261203_101010_00007_abcde")
        .withSummary("trino_user", "analyst")
        .upsert(
            List.of(
                new CuratedTable.Row(
                    CustomersScenario.key(20), "changed by hand", "x@example.com", s.ago(1))));

    RuleResult r = foreignCommits(ReconciliationMode.FULL, null);

    assertThat(r.sampleKeys())
        .singleElement()
        .asString()
        .contains(
            ": overwrite by trino (query 20261203_101010_00007_abcde, user analyst), 1 row(s)"
                + " added, 1 removed");
  }

  @Test
  void aWindowLooksAtTheCommitsMadeInItAndFullAtTheWholeHistory() {
    s.curated.upsert(
        List.of(
            new CuratedTable.Row(
                CustomersScenario.key(20), "changed by hand", "x@example.com", s.ago(1))));
    Instant committed = Instant.ofEpochMilli(current().timestampMillis());

    assertThat(foreignCommits(ReconciliationMode.WINDOW, committed.minusSeconds(1)).status())
        .as("a window holding the commit")
        .isEqualTo(RuleStatus.FAIL);
    assertThat(foreignCommits(ReconciliationMode.WINDOW, committed.plusSeconds(1)).status())
        .as("a window after it")
        .isEqualTo(RuleStatus.PASS);
    assertThat(foreignCommits(ReconciliationMode.FULL, null).status())
        .as("FULL")
        .isEqualTo(RuleStatus.FAIL);
  }

  @Test
  void aCompactionAndACommitOfNoFileAreNotForeign() throws Exception {
    Table t = s.curated.table();
    // A compaction as a maintenance engine makes it: the same rows in a new file, as "replace".
    DataFile before = t.currentSnapshot().addedDataFiles(t.io()).iterator().next();
    Path copy = Path.of(java.net.URI.create(before.location()).getPath() + ".compacted.parquet");
    Files.copy(Path.of(java.net.URI.create(before.location()).getPath()), copy);
    DataFile after =
        DataFiles.builder(t.spec()).copy(before).withPath(copy.toUri().toString()).build();
    t.newRewrite()
        .validateFromSnapshot(t.currentSnapshot().snapshotId())
        .rewriteFiles(Set.of(before), Set.of(after))
        .commit();
    assertThat(s.curated.table().currentSnapshot().operation()).isEqualTo("replace");
    s.curated.table().newFastAppend().commit();

    RuleResult r = foreignCommits(ReconciliationMode.FULL, null);

    assertThat(r.status()).as(r.reason()).isEqualTo(RuleStatus.PASS);
  }

  @Test
  void aHistoryThatCannotBeReadIsAnErrorNamingTheRule() throws Exception {
    // The table's metadata files are gone: its history cannot be read.
    try (var files = Files.walk(dir)) {
      for (Path f :
          files.filter(p -> p.getFileName().toString().endsWith(".metadata.json")).toList()) {
        Files.delete(f);
      }
    }

    RuleResult r = foreignCommits(ReconciliationMode.FULL, null);

    assertThat(r.status()).isEqualTo(RuleStatus.ERROR);
    assertThat(r.reason()).startsWith("Cannot check foreign commits: ");
  }
}
