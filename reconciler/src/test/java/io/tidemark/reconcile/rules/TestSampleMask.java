package io.tidemark.reconcile.rules;

import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.model.config.RuleKind;
import io.tidemark.model.config.RuleSpec;
import io.tidemark.model.report.RuleResult;
import java.util.List;
import org.junit.jupiter.api.Test;

class TestSampleMask {
  private static RuleResult failing(RuleKind kind, String... keys) {
    return RuleResult.evaluate(RuleSpec.of(kind), keys.length, "differs", List.of(keys), 0);
  }

  @Test
  void theKeyColumnsNotListedAreHashedPartByPart() {
    SampleMask mask = new SampleMask(List.of("order_id", "line_nr"), List.of("order_id"));

    List<RuleResult> out = mask.apply(List.of(failing(RuleKind.MISSING_KEYS, "O-1|2", "O-2|1")));

    // SHA-256 of "2" begins d4735e3a265e, of "1" 6b86b273ff34.
    assertThat(out.get(0).sampleKeys())
        .containsExactly("O-1|hash:d4735e3a265e", "O-2|hash:6b86b273ff34");
    assertThat(out.get(0).observed()).isEqualTo(2.0);
  }

  @Test
  void noColumnListedHidesTheWholeKeyAndAValueHoldingTheSeparatorIsHashedWhole() {
    SampleMask hideAll = new SampleMask(List.of("email"), List.of());
    assertThat(hideAll.apply(List.of(failing(RuleKind.UNEXPECTED_KEYS, "a@example.com"))))
        .singleElement()
        .satisfies(
            r ->
                assertThat(r.sampleKeys())
                    .singleElement()
                    .asString()
                    .startsWith(SampleMask.HASH_PREFIX)
                    .doesNotContain("example"));

    SampleMask partly = new SampleMask(List.of("order_id", "line_nr"), List.of("line_nr"));
    assertThat(partly.key("O|7|2"))
        .as("three parts for two columns: which part is which cannot be told")
        .isEqualTo(SampleMask.hash("O|7|2"));
  }

  @Test
  void samplesOfFilesAndEveryKeyShownAreLeftAsTheyAre() {
    SampleMask mask = new SampleMask(List.of("customer_id"), List.of());
    RuleResult files = failing(RuleKind.UNPROCESSED_FILES, "ingest_date=2026-01-01/late.parquet");
    assertThat(mask.apply(List.of(files))).containsExactly(files);

    SampleMask all = new SampleMask(List.of("customer_id"), List.of("customer_id"));
    RuleResult keys = failing(RuleKind.MISSING_KEYS, "k10");
    assertThat(all.showsEverything()).isTrue();
    assertThat(all.apply(List.of(keys))).containsExactly(keys);
  }
}
