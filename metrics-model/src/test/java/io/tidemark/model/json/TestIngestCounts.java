package io.tidemark.model.json;

import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.model.report.IngestCounts;
import io.tidemark.model.testing.Reports;
import org.junit.jupiter.api.Test;

/** The accounting identities the reconciler's run-accounting rule relies on. */
class TestIngestCounts {
  @Test
  void aConsistentRunHasNoAccountingErrors() {
    IngestCounts c = Reports.counts();
    assertThat(c.accountingErrors()).isEmpty();
    assertThat(c.invalidRatio()).isEqualTo(0.01);
    assertThat(c.recordsApplied()).isEqualTo(930);
  }

  @Test
  void everyBrokenIdentityIsNamedWithItsNumbers() {
    // 1000 changed but only 900 written + 10 invalid + 50 superseded; one file unaccounted for.
    IngestCounts c = new IngestCounts(12, 3, 8, 0, 1000, 1000, 10, 50, 900, 600, 300, 30, 8, 2, 7);
    assertThat(c.accountingErrors())
        .containsExactly(
            "filesDiscovered 12 != filesNew 3 + filesSkipped 8",
            "recordsChanged 1000 != recordsWritten 900 + recordsInvalid 10 + recordsSuperseded 50",
            "recordsWritten 900 != inserted 600 + updated 300 + deleted 30 + unchanged 8 + deletesOfUnknownKeys 2");
  }

  @Test
  void anEmptyRunHasAZeroInvalidRatio() {
    assertThat(IngestCounts.ZERO.invalidRatio()).isZero();
    assertThat(IngestCounts.ZERO.accountingErrors()).isEmpty();
  }
}
