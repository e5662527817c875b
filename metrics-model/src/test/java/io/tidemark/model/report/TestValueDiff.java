package io.tidemark.model.report;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tidemark.model.config.RuleKind;
import io.tidemark.model.json.InvalidDocumentException;
import io.tidemark.model.json.Json;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A failing rule's difference is kept in its report as written, and only a failure carries one. */
class TestValueDiff {
  private static ValueDiff diff() {
    Map<String, String> raw = new LinkedHashMap<>();
    raw.put("email", "a@example.com");
    raw.put("customer_name", null);
    Map<String, String> curated = new LinkedHashMap<>();
    curated.put("email", "b@example.com");
    curated.put("customer_name", null);
    return new ValueDiff(
        3,
        Map.of("email", 3L),
        List.of(
            new ValueDiff.KeyDiff(
                "C1",
                new ValueDiff.RawVersion(
                    "s3://raw/dt=2026-12-01/a.parquet", 4L, "2026-12-01T10:00:00Z", false, raw),
                new ValueDiff.CuratedRow(
                    "s3://lake/data/b.parquet",
                    42L,
                    null,
                    "overwrite",
                    "spark 4.1.1",
                    "2026-12-01T10:00:00Z",
                    curated),
                List.of("email"))));
  }

  private static RuleResult failing(ValueDiff d) {
    return new RuleResult(
        "value_mismatches",
        RuleKind.VALUE_MISMATCHES,
        null,
        3.0,
        0,
        RuleStatus.FAIL,
        "3 keys differ",
        List.of("C1"),
        0,
        null,
        d);
  }

  @Test
  void aDifferenceReadsBackAsWrittenNullValuesIncluded() {
    RuleResult r = failing(diff());

    String json = Json.write(r);
    RuleResult back = Json.read(json, RuleResult.class);

    assertThat(back).isEqualTo(r);
    assertThat(back.diff().samples().get(0).raw().values())
        .containsEntry("customer_name", null)
        .containsKeys("email", "customer_name");
    assertThat(json).contains("\"customer_name\" : null");
  }

  @Test
  void aResultWithoutADifferenceIsWrittenAsBeforeAndReadBackWithNone() {
    RuleResult r = failing(null);

    String json = Json.write(r);

    assertThat(json).doesNotContain("\"diff\"");
    assertThat(Json.read(json, RuleResult.class).diff()).isNull();
  }

  @Test
  void onlyAFailureShowsADifferenceAndNoColumnDiffersOnMoreKeysThanCounted() {
    assertThatThrownBy(
            () ->
                new RuleResult(
                    "value_mismatches",
                    RuleKind.VALUE_MISMATCHES,
                    null,
                    0.0,
                    0,
                    RuleStatus.PASS,
                    null,
                    List.of(),
                    0,
                    null,
                    diff()))
        .isInstanceOf(InvalidDocumentException.class)
        .hasMessageContaining("diff");
    assertThatThrownBy(() -> new ValueDiff(1, Map.of("email", 2L), List.of()))
        .isInstanceOf(InvalidDocumentException.class)
        .hasMessageContaining("differingKeys.email");
  }
}
