package io.tidemark.ingest.commit;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.Map;
import org.apache.iceberg.SnapshotRef;
import org.junit.jupiter.api.Test;

class TestRunBranches {
  static final Instant START = Instant.parse("2024-03-20T00:00:00Z");

  @Test
  void nameCarriesTheRunStartAndASanitisedRunId() {
    String name = RunBranches.name("20240320T000000Z-1A2b3c4d", START);
    assertThat(name).isEqualTo("tidemark_run_1710892800000_20240320t000000z_1a2b3c4d");
    assertThat(RunBranches.startedAt(name)).contains(START);
    assertThat(RunBranches.startedAt("tidemark_run_x_y")).isEmpty();
    assertThat(RunBranches.sparkName("cat.ns.t", name)).isEqualTo("cat.ns.t.branch_" + name);
  }

  @Test
  void onlyRunBranchesOlderThanTheStaleAgeAreStale() {
    Instant now = START.plus(RunBranches.STALE_AFTER).plusMillis(1);
    String old = RunBranches.name("crashed", START);
    String live = RunBranches.name("live", START.plusSeconds(1));
    Map<String, SnapshotRef> refs =
        Map.of(
            SnapshotRef.MAIN_BRANCH,
            SnapshotRef.branchBuilder(1).build(),
            old,
            SnapshotRef.branchBuilder(1).build(),
            live,
            SnapshotRef.branchBuilder(1).build(),
            "audit",
            SnapshotRef.branchBuilder(1).build(),
            RunBranches.name("a-tag", START),
            SnapshotRef.tagBuilder(1).build());
    assertThat(RunBranches.stale(refs, now)).containsExactly(old);
    assertThat(RunBranches.stale(refs, START.plus(RunBranches.STALE_AFTER))).isEmpty();
  }
}
