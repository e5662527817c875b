package io.tidemark.model.contract;

import java.util.regex.Pattern;

/**
 * What a valid key value is. Keys are compared as text: a text column as it is, an integer column
 * as its decimal digits (both halves read either; any other type is {@link
 * ReasonCode#INCOMPATIBLE_TYPE}). A key value is
 *
 * <ul>
 *   <li>{@link ReasonCode#NULL_KEY} when it is null, empty, or only white space, control and
 *       invisible format characters ({@code " "}, {@code "\u200b"}, {@code "\0"});
 *   <li>{@link ReasonCode#MALFORMED_KEY} when it holds a control character (Unicode Cc: NUL, tab,
 *       newline…) or an invisible format character (Cf: U+200B zero-width space, U+FEFF…) anywhere,
 *       or starts or ends with white space (Unicode Z): {@code "c1 "} and {@code "c1"} would
 *       otherwise pass as two keys of one customer;
 *   <li>valid otherwise.
 * </ul>
 *
 * The two patterns below are written in the regular-expression subset shared by Java (Spark), RE2
 * (DuckDB) and Trino, so every engine applies the very same rule.
 */
public final class RawKeys {
  /** Matches a key that is {@link ReasonCode#NULL_KEY} (apply it to non-null text). */
  public static final String BLANK_PATTERN = "^[\\p{Z}\\p{Cc}\\p{Cf}]*$";

  /** Finds what makes a non-blank key {@link ReasonCode#MALFORMED_KEY} (a partial match). */
  public static final String MALFORMED_PATTERN = "[\\p{Cc}\\p{Cf}]|^\\p{Z}|\\p{Z}$";

  private static final Pattern BLANK = Pattern.compile(BLANK_PATTERN);
  private static final Pattern MALFORMED = Pattern.compile(MALFORMED_PATTERN);

  private RawKeys() {}

  /** Why a key value (as text) is invalid, or null when it is valid. */
  public static ReasonCode check(String key) {
    if (key == null || BLANK.matcher(key).matches()) {
      return ReasonCode.NULL_KEY;
    }
    return MALFORMED.matcher(key).find() ? ReasonCode.MALFORMED_KEY : null;
  }
}
