package io.tidemark.model.config;

import io.tidemark.model.json.Checks;
import io.tidemark.model.json.InvalidDocumentException;
import java.util.List;

/**
 * One configured reconciliation rule.
 *
 * @param id the rule id, unique per dataset; default: the kind's id
 * @param kind what the rule checks
 * @param threshold the rule fails when its observed value is greater; default: the kind's default
 * @param tolerance for {@code count_match} and {@code aggregate_match} only: ABSOLUTE (default) or
 *     RATIO
 * @param severity CRITICAL (default) or WARNING
 * @param sampleSize how many offending keys a result carries, 1..1000, default 20
 * @param dynamic a threshold learned from the rule's history, which replaces {@code threshold} once
 *     enough history exists; null: the static threshold always applies
 * @param columns for {@code aggregate_match}: the compared columns whose aggregates are matched;
 *     null: every compared column the contract does not mark sensitive. For {@code
 *     referential_integrity}, and required there: the columns whose values are keys of the
 *     referenced dataset, one per key column, in its key's order
 * @param aggregates for {@code aggregate_match} only: what is computed of each column; null: what
 *     applies to its type ({@link #defaultAggregates})
 * @param sql for {@code custom_sql} only, and required there: a query of the offending rows over
 *     the relations every engine provides, checked by {@link CustomSql#check}
 * @param references for {@code referential_integrity} only, and required there: the dataset whose
 *     keys {@code columns} hold
 */
public record RuleSpec(
    String id,
    RuleKind kind,
    Double threshold,
    ToleranceMode tolerance,
    Severity severity,
    Integer sampleSize,
    DynamicThreshold dynamic,
    List<String> columns,
    List<Aggregate> aggregates,
    String sql,
    String references) {

  public static final int SAMPLE_SIZE_DEFAULT = 20;
  public static final int SAMPLE_SIZE_MAX = 1000;

  public RuleSpec {
    Checks.required("kind", kind);
    id = Checks.identifier("id", id == null ? kind.id() : id);
    threshold =
        Checks.finiteNonNegative(
            "threshold", threshold == null ? kind.defaultThreshold() : threshold);
    boolean toleranced = kind == RuleKind.COUNT_MATCH || kind == RuleKind.AGGREGATE_MATCH;
    if (tolerance != null && !toleranced) {
      throw new InvalidDocumentException(
          "tolerance", tolerance, "applies to count_match and aggregate_match only");
    }
    tolerance = toleranced && tolerance == null ? ToleranceMode.ABSOLUTE : tolerance;
    boolean referential = kind == RuleKind.REFERENTIAL_INTEGRITY;
    if (columns != null && kind != RuleKind.AGGREGATE_MATCH && !referential) {
      throw new InvalidDocumentException(
          "columns", columns, "applies to aggregate_match and referential_integrity only");
    }
    if (aggregates != null && kind != RuleKind.AGGREGATE_MATCH) {
      throw new InvalidDocumentException(
          "aggregates", aggregates, "applies to aggregate_match only");
    }
    if (referential) {
      if (columns == null || references == null) {
        throw new InvalidDocumentException(
            columns == null ? "columns" : "references",
            null,
            "is required: referential_integrity names the columns that hold keys and the dataset"
                + " those keys belong to");
      }
      references = Checks.name("references", references);
    } else if (references != null) {
      throw new InvalidDocumentException(
          "references", references, "applies to referential_integrity only");
    }
    if (columns != null) {
      columns = Checks.identifiers("columns", columns, true);
    }
    if (kind == RuleKind.CUSTOM_SQL) {
      sql = CustomSql.check("sql", sql);
    } else if (sql != null) {
      throw new InvalidDocumentException("sql", sql, "applies to custom_sql only");
    }
    if (aggregates != null) {
      if (aggregates.isEmpty() || aggregates.stream().anyMatch(java.util.Objects::isNull)) {
        throw new InvalidDocumentException(
            "aggregates", aggregates, "must name at least one aggregate, none null");
      }
      if (aggregates.stream().distinct().count() != aggregates.size()) {
        throw new InvalidDocumentException("aggregates", aggregates, "names an aggregate twice");
      }
      aggregates = List.copyOf(aggregates);
    }
    severity = severity == null ? Severity.CRITICAL : severity;
    sampleSize = sampleSize == null ? SAMPLE_SIZE_DEFAULT : sampleSize;
    if (sampleSize < 1 || sampleSize > SAMPLE_SIZE_MAX) {
      throw new InvalidDocumentException(
          "sampleSize", sampleSize, "must be between 1 and " + SAMPLE_SIZE_MAX);
    }
  }

  /** A rule with a static threshold only. */
  public RuleSpec(
      String id,
      RuleKind kind,
      Double threshold,
      ToleranceMode tolerance,
      Severity severity,
      Integer sampleSize) {
    this(id, kind, threshold, tolerance, severity, sampleSize, null);
  }

  /**
   * A rule that needs nothing declared but its threshold (any kind but {@code aggregate_match},
   * {@code custom_sql} and {@code referential_integrity}, which the contract declares in full).
   */
  public RuleSpec(
      String id,
      RuleKind kind,
      Double threshold,
      ToleranceMode tolerance,
      Severity severity,
      Integer sampleSize,
      DynamicThreshold dynamic) {
    this(id, kind, threshold, tolerance, severity, sampleSize, dynamic, null, null, null, null);
  }

  /** A rule of the given kind with every default. */
  public static RuleSpec of(RuleKind kind) {
    return new RuleSpec(null, kind, null, null, null, null);
  }

  /** The same rule judged by another threshold (a dynamic threshold, once learned). */
  public RuleSpec withThreshold(double learned) {
    return new RuleSpec(
        id,
        kind,
        learned,
        tolerance,
        severity,
        sampleSize,
        dynamic,
        columns,
        aggregates,
        sql,
        references);
  }

  /** The same rule over other columns (the contract's, once resolved). */
  public RuleSpec withColumns(List<String> resolved) {
    return new RuleSpec(
        id,
        kind,
        threshold,
        tolerance,
        severity,
        sampleSize,
        dynamic,
        resolved,
        aggregates,
        sql,
        references);
  }

  /**
   * What {@code aggregate_match} computes of a column with no {@code aggregates} configured: sum,
   * min, max and null count of a number; min, max and null count of a date or timestamp; the null
   * count of anything else (count_distinct only when asked: it is the one aggregate whose cost
   * grows with the values' variety).
   */
  public static List<Aggregate> defaultAggregates(boolean number, boolean ordered) {
    if (number) {
      return List.of(Aggregate.SUM, Aggregate.MIN, Aggregate.MAX, Aggregate.NULL_COUNT);
    }
    return ordered
        ? List.of(Aggregate.MIN, Aggregate.MAX, Aggregate.NULL_COUNT)
        : List.of(Aggregate.NULL_COUNT);
  }

  /**
   * One rule of every kind that needs no configuration, with defaults: what a dataset gets when
   * none are configured ({@code aggregate_match}, {@code custom_sql} and {@code
   * referential_integrity} are declared where wanted).
   */
  public static List<RuleSpec> defaults() {
    return java.util.Arrays.stream(RuleKind.values())
        .filter(RuleKind::byDefault)
        .map(RuleSpec::of)
        .toList();
  }
}
