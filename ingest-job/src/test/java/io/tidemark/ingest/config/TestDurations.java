package io.tidemark.ingest.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tidemark.model.json.InvalidDocumentException;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class TestDurations {
  @Test
  void readsIsoAndShortForms() {
    assertThat(Durations.parse("lookback", "P2D")).isEqualTo(Duration.ofDays(2));
    assertThat(Durations.parse("lookback", "pt36h")).isEqualTo(Duration.ofHours(36));
    assertThat(Durations.parse("lookback", "2d")).isEqualTo(Duration.ofDays(2));
    assertThat(Durations.parse("lookback", "36h")).isEqualTo(Duration.ofHours(36));
    assertThat(Durations.parse("lookback", "90m")).isEqualTo(Duration.ofMinutes(90));
    assertThat(Durations.parse("lookback", "0s")).isEqualTo(Duration.ZERO);
  }

  @Test
  void rejectsGarbageNamingTheFieldAndValue() {
    assertThatThrownBy(() -> Durations.parse("lookback", "two days"))
        .isInstanceOf(InvalidDocumentException.class)
        .hasMessageStartingWith("field 'lookback' has invalid value 'two days': not a duration");
    assertThatThrownBy(() -> Durations.parse("future-tolerance", "-PT1H"))
        .hasMessage("field 'future-tolerance' has invalid value '-PT1H': must not be negative");
  }

  @Test
  void lookbackCoversWholeDaysRoundedUp() {
    assertThat(Durations.daysCeil(Duration.ofDays(2))).isEqualTo(2);
    assertThat(Durations.daysCeil(Duration.ofHours(36))).isEqualTo(2);
    assertThat(Durations.daysCeil(Duration.ZERO)).isZero();
  }
}
