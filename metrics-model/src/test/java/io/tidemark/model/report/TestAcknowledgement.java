package io.tidemark.model.report;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tidemark.model.config.RuleKind;
import io.tidemark.model.json.InvalidDocumentException;
import io.tidemark.model.json.Json;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * An acknowledgement holds while the rule's failure observes no more and names nothing it did not,
 * and never for a pass or an error.
 */
class TestAcknowledgement {
  private static final Instant T = Instant.parse("2026-12-04T10:00:00Z");

  private static RuleResult result(RuleStatus status, Double observed, List<String> keys) {
    return new RuleResult(
        "missing_keys",
        RuleKind.MISSING_KEYS,
        null,
        observed,
        0,
        status,
        status == RuleStatus.PASS ? null : "keys missing",
        keys,
        0,
        null);
  }

  private static Acknowledgement ack() {
    return new Acknowledgement("missing_keys", "r1", "ana", "TICKET-12", T, 2, List.of("k1", "k2"));
  }

  @Test
  void itHoldsForTheSameFailureOrLessAndForNothingMore() {
    Acknowledgement a = ack();
    assertThat(a.covers(result(RuleStatus.FAIL, 2.0, List.of("k1", "k2")))).isTrue();
    assertThat(a.covers(result(RuleStatus.FAIL, 1.0, List.of("k2")))).as("partly fixed").isTrue();
    assertThat(a.covers(result(RuleStatus.FAIL, 2.0, List.of("k1", "k3"))))
        .as("a key it did not name")
        .isFalse();
    assertThat(a.covers(result(RuleStatus.FAIL, 3.0, List.of("k1", "k2"))))
        .as("more than it observed, though the samples are the same")
        .isFalse();
    assertThat(a.covers(result(RuleStatus.PASS, 0.0, List.of()))).isFalse();
    assertThat(a.covers(result(RuleStatus.ERROR, null, List.of()))).isFalse();
    assertThat(a.whyNot(result(RuleStatus.FAIL, 2.0, List.of("k1", "k3"))))
        .isEqualTo("it now names [k3], not acknowledged");
    assertThat(a.whyNot(result(RuleStatus.FAIL, 3.0, List.of("k1"))))
        .isEqualTo("it now observes 3.0, more than the 2.0 acknowledged");
  }

  /**
   * A failure larger than its sample: repairing some keys shifts the sample to keys that were
   * failing all along, which is no new failure; only what it observes counts.
   */
  @Test
  void aFailureLargerThanItsSampleIsComparedByWhatItObserves() {
    Acknowledgement a =
        new Acknowledgement("missing_keys", "r1", "ana", "", T, 40, List.of("k01", "k02"));
    assertThat(a.covers(result(RuleStatus.FAIL, 38.0, List.of("k03", "k04")))).isTrue();
    assertThat(a.covers(result(RuleStatus.FAIL, 41.0, List.of("k01", "k02")))).isFalse();
  }

  @Test
  void aFreshnessFailureHoldsHoweverLongItLasts() {
    Acknowledgement a =
        new Acknowledgement("freshness", "r1", "ana", "the export is paused", T, 7200, List.of());
    RuleResult later =
        new RuleResult(
            "freshness",
            RuleKind.FRESHNESS,
            null,
            90000.0,
            129600,
            RuleStatus.FAIL,
            "behind",
            List.of(),
            0,
            null);
    assertThat(a.covers(later)).isTrue();
  }

  @Test
  void onlySomeoneCanAcknowledgeAFailureInOneLineOfText() {
    assertThatThrownBy(
            () -> new Acknowledgement("missing_keys", "r1", "  ", "", T, 1, List.of("k1")))
        .isInstanceOf(InvalidDocumentException.class)
        .hasMessageContaining("must say who acknowledges");
    assertThatThrownBy(
            () -> new Acknowledgement("missing_keys", "r1", "ana", "a\nb", T, 1, List.of("k1")))
        .isInstanceOf(InvalidDocumentException.class)
        .hasMessageContaining("one line");
    assertThatThrownBy(
            () ->
                new Acknowledgement("missing_keys", "r1", "a".repeat(501), "", T, 1, List.of("k1")))
        .isInstanceOf(InvalidDocumentException.class)
        .hasMessageContaining("at most 500");
  }

  @Test
  void aReportAlertsOnAFailureNoAcknowledgementHoldsForAndKeepsItsAcknowledgementsAsJson() {
    RuleResult same = result(RuleStatus.FAIL, 2.0, List.of("k1"));
    ReconciliationReport report =
        new ReconciliationReport(
                ReconciliationReport.SCHEMA_VERSION,
                "r2",
                "default",
                "customers",
                ReconciliationMode.FULL,
                null,
                T,
                "duckdb",
                "api",
                ReconciliationStatus.FAILED,
                T,
                T,
                List.of(same),
                0,
                0.0,
                null,
                null,
                null)
            .withAcknowledgements(List.of(ack()));
    assertThat(report.alerting(same)).isFalse();
    assertThat(report.alerting(result(RuleStatus.FAIL, 2.0, List.of("k9")))).isTrue();
    ReconciliationReport read = Json.read(Json.write(report), ReconciliationReport.class);
    assertThat(read).isEqualTo(report);
    assertThat(Json.write(report.withAcknowledgements(List.of())))
        .as("left out when empty, for readers from before the field")
        .doesNotContain("acknowledgements");
    assertThat(read.acknowledgement("missing_keys")).contains(ack());
  }
}
