package io.tidemark.reconcile.rules;

import io.tidemark.model.report.RuleResult;
import io.tidemark.model.report.ValueDiff;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * What a failing rule's sample keys show: the key columns the contract lists in {@code
 * reconcile.sample-columns} in clear, the others as {@code hash:} and the first 12 hex digits of
 * the value's SHA-256. A difference's keys are masked alike, and the values of the columns the
 * contract lists in {@code reconcile.sensitive-columns} are hashed the same way (a NULL stays
 * NULL), on both sides, so that equal values still look equal. Applied to the results before they
 * are stored, so reports, the REST API and the status page never hold a hidden value. Pure: no I/O.
 */
public final class SampleMask {
  /** What a hidden value starts with. */
  public static final String HASH_PREFIX = "hash:";

  private static final String SEPARATOR = "|";
  private static final int HEX_DIGITS = 12;

  private final List<String> keyColumns;
  private final List<String> shown;
  private final List<String> sensitive;

  /**
   * @param keyColumns the dataset's key columns, in the order sample keys join them
   * @param shown the key columns shown in clear
   */
  public SampleMask(List<String> keyColumns, List<String> shown) {
    this(keyColumns, shown, List.of());
  }

  /**
   * @param keyColumns the dataset's key columns, in the order sample keys join them
   * @param shown the key columns shown in clear
   * @param sensitive the compared columns whose values a difference shows hashed
   */
  public SampleMask(List<String> keyColumns, List<String> shown, List<String> sensitive) {
    this.keyColumns = List.copyOf(keyColumns);
    this.shown = List.copyOf(shown);
    this.sensitive = List.copyOf(sensitive);
  }

  /** The mask a dataset's contract asks for. */
  public static SampleMask of(io.tidemark.model.contract.DatasetContract contract) {
    return new SampleMask(
        contract.keyColumns(),
        contract.reconcile().sampleColumns(),
        contract.reconcile().sensitiveColumns());
  }

  /** Whether every key column is shown and no value is hidden: the mask changes nothing. */
  public boolean showsEverything() {
    return shown.containsAll(keyColumns) && sensitive.isEmpty();
  }

  /** The results with their sample keys masked; unchanged when every key column is shown. */
  public List<RuleResult> apply(List<RuleResult> results) {
    if (showsEverything()) {
      return results;
    }
    return results.stream().map(this::apply).toList();
  }

  private RuleResult apply(RuleResult r) {
    if (r.sampleKeys().isEmpty() || !r.kind().samplesKeys()) {
      return r;
    }
    RuleResult masked = r.withSampleKeys(r.sampleKeys().stream().map(this::shownKey).toList());
    return r.diff() == null ? masked : masked.withDiff(diff(r.diff()));
  }

  private String shownKey(String sample) {
    return shown.containsAll(keyColumns) ? sample : key(sample);
  }

  /** A difference with its keys masked as sample keys are and its sensitive values hashed. */
  ValueDiff diff(ValueDiff d) {
    List<ValueDiff.KeyDiff> samples =
        d.samples().stream()
            .map(
                k ->
                    new ValueDiff.KeyDiff(
                        shownKey(k.key()),
                        k.raw() == null
                            ? null
                            : new ValueDiff.RawVersion(
                                k.raw().file(),
                                k.raw().position(),
                                k.raw().changeMarker(),
                                k.raw().delete(),
                                values(k.raw().values())),
                        k.curated() == null
                            ? null
                            : new ValueDiff.CuratedRow(
                                k.curated().dataFile(),
                                k.curated().snapshotId(),
                                k.curated().runId(),
                                k.curated().operation(),
                                k.curated().engine(),
                                k.curated().changeMarker(),
                                values(k.curated().values())),
                        k.differingColumns()))
            .toList();
    return new ValueDiff(d.keys(), d.differingKeys(), samples);
  }

  private Map<String, String> values(Map<String, String> values) {
    Map<String, String> out = new LinkedHashMap<>();
    values.forEach(
        (column, v) -> out.put(column, v == null || !sensitive.contains(column) ? v : hash(v)));
    return out;
  }

  /**
   * One sample key masked part by part. A key whose parts cannot be told apart (a value holding the
   * separator) is hashed whole, as no part of it can be shown safely.
   */
  String key(String sample) {
    String[] parts = sample.split(Pattern.quote(SEPARATOR), -1);
    if (parts.length != keyColumns.size()) {
      return hash(sample);
    }
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < parts.length; i++) {
      if (i > 0) {
        out.append(SEPARATOR);
      }
      out.append(shown.contains(keyColumns.get(i)) ? parts[i] : hash(parts[i]));
    }
    return out.toString();
  }

  static String hash(String value) {
    try {
      byte[] digest =
          MessageDigest.getInstance("SHA-256").digest(value.getBytes(StandardCharsets.UTF_8));
      return HASH_PREFIX + HexFormat.of().formatHex(digest).substring(0, HEX_DIGITS);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is part of every Java runtime", e);
    }
  }
}
