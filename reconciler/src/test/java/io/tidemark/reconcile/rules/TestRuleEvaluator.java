package io.tidemark.reconcile.rules;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** How a reason shows a change marker. */
class TestRuleEvaluator {
  @Test
  void aTimestampMarkerIsShownAsAnInstantToTheMicrosecond() {
    assertThat(RuleEvaluator.marker(1.796169569893506E9, true))
        .isEqualTo("2026-12-01T23:59:29.893506Z");
  }

  @Test
  void aSequenceMarkerIsShownAsItsInteger() {
    assertThat(RuleEvaluator.marker(1.0E10, false)).isEqualTo("10000000000");
  }
}
