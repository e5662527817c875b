package io.tidemark.model.contract;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class TestRawKeys {
  @Test
  void blankKeysAreNullKeys() {
    assertThat(RawKeys.check(null)).isEqualTo(ReasonCode.NULL_KEY);
    assertThat(RawKeys.check("")).isEqualTo(ReasonCode.NULL_KEY);
    assertThat(RawKeys.check("   ")).isEqualTo(ReasonCode.NULL_KEY);
    assertThat(RawKeys.check("\u200b")).isEqualTo(ReasonCode.NULL_KEY);
    assertThat(RawKeys.check("\0")).isEqualTo(ReasonCode.NULL_KEY);
    assertThat(RawKeys.check("\u00a0\t\ufeff")).isEqualTo(ReasonCode.NULL_KEY);
  }

  @Test
  void invisibleOrSurroundingCharactersMakeAKeyMalformed() {
    assertThat(RawKeys.check("c1 ")).isEqualTo(ReasonCode.MALFORMED_KEY);
    assertThat(RawKeys.check(" c1")).isEqualTo(ReasonCode.MALFORMED_KEY);
    assertThat(RawKeys.check("c1\u00a0")).isEqualTo(ReasonCode.MALFORMED_KEY);
    assertThat(RawKeys.check("c\u200b1")).isEqualTo(ReasonCode.MALFORMED_KEY);
    assertThat(RawKeys.check("c1\0")).isEqualTo(ReasonCode.MALFORMED_KEY);
    assertThat(RawKeys.check("c1\n")).isEqualTo(ReasonCode.MALFORMED_KEY);
    assertThat(RawKeys.check("\ufeffc1")).isEqualTo(ReasonCode.MALFORMED_KEY);
  }

  @Test
  void ordinaryKeysAreValid() {
    assertThat(RawKeys.check("c1")).isNull();
    assertThat(RawKeys.check("customer 1")).isNull();
    assertThat(RawKeys.check("Zoë-Ünal/42")).isNull();
    assertThat(RawKeys.check("12345")).isNull();
    assertThat(RawKeys.check("客户-7")).isNull();
  }

  @Test
  void patternsCompileAsPlainJavaRegexSoSparkAppliesTheSameRule() {
    // Spark's rlike is a find() with java.util.regex: the blank pattern is anchored on both ends.
    assertThat(Pattern.compile(RawKeys.BLANK_PATTERN).matcher("\u200b ").find()).isTrue();
    assertThat(Pattern.compile(RawKeys.BLANK_PATTERN).matcher("a\u200b").find()).isFalse();
    assertThat(Pattern.compile(RawKeys.MALFORMED_PATTERN).matcher("a b").find()).isFalse();
  }
}
