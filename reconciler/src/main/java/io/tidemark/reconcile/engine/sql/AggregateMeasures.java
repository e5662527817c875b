package io.tidemark.reconcile.engine.sql;

import io.tidemark.model.config.Aggregate;
import io.tidemark.model.config.RuleKind;
import io.tidemark.model.config.RuleSpec;
import io.tidemark.model.contract.ColumnType;
import io.tidemark.model.contract.DatasetContract;
import io.tidemark.model.contract.DatasetSpecs;
import io.tidemark.reconcile.engine.AggregateFinding;
import io.tidemark.reconcile.engine.sql.ReconciliationSql.AggregateOf;
import io.tidemark.reconcile.engine.sql.ReconciliationSql.AggregateType;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Computes what the contract's {@code aggregate_match} rules compare, for every engine: one query
 * ({@link ReconciliationSql#aggregates}) over {@code raw_valued} and {@code curated_valued}, the
 * union of the rules' columns and aggregates, both sides in one row.
 */
public final class AggregateMeasures {
  private AggregateMeasures() {}

  /** Whether any rule of the contract matches aggregates: otherwise nothing is computed. */
  public static boolean wanted(DatasetContract contract) {
    return contract.reconcile().rules().stream()
        .anyMatch(r -> r.kind() == RuleKind.AGGREGATE_MATCH);
  }

  /**
   * The aggregates of the checked keys on both sides; {@link AggregateFinding#NONE} when no rule
   * asks for any. A query that fails is an error of the finding: the rules that read it say ERROR.
   *
   * @param whole every key not in flight (FULL) rather than the {@code checked} keys (WINDOW)
   */
  public static AggregateFinding measure(
      ReconciliationSql sql,
      DatasetContract contract,
      Sql cap,
      boolean whole,
      ValueDiffs.Rows rows) {
    if (!wanted(contract)) {
      return AggregateFinding.NONE;
    }
    List<AggregateOf> wanted = plan(contract);
    try {
      List<List<String>> result =
          rows.run("aggregates", sql.aggregates(DatasetSpecs.of(contract), cap, wanted, whole));
      if (result.size() != 1) {
        return AggregateFinding.failed(
            "Cannot match aggregates: the query returned " + result.size() + " rows, not 1");
      }
      List<String> row = result.get(0);
      List<AggregateFinding.Value> values = new ArrayList<>();
      for (int i = 0; i < wanted.size(); i++) {
        AggregateOf a = wanted.get(i);
        values.add(
            new AggregateFinding.Value(
                a.column(), a.aggregate(), unit(a), row.get(2 * i), row.get(2 * i + 1)));
      }
      return AggregateFinding.of(values);
    } catch (Exception e) {
      return AggregateFinding.failed("Cannot match aggregates: " + e.getMessage());
    }
  }

  /** The union of the aggregate_match rules' columns and aggregates, in the contract's order. */
  static List<AggregateOf> plan(DatasetContract contract) {
    Map<String, Set<Aggregate>> byColumn = new LinkedHashMap<>();
    for (RuleSpec rule : contract.reconcile().rules()) {
      if (rule.kind() != RuleKind.AGGREGATE_MATCH) {
        continue;
      }
      for (String column : rule.columns()) {
        byColumn
            .computeIfAbsent(column, c -> new LinkedHashSet<>())
            .addAll(contract.aggregates(rule, column));
      }
    }
    List<AggregateOf> out = new ArrayList<>();
    for (Map.Entry<String, Set<Aggregate>> e : byColumn.entrySet()) {
      ColumnType type = contract.columns().get(e.getKey());
      AggregateType t =
          switch (type.kind()) {
            case INT, LONG, DECIMAL -> AggregateType.NUMBER;
            case DATE -> AggregateType.DATE;
            case TIMESTAMP -> AggregateType.TIMESTAMP;
            default -> AggregateType.OTHER;
          };
      int scale = type.kind() == ColumnType.Kind.DECIMAL ? type.scale() : 0;
      int index = contract.comparedColumns().indexOf(e.getKey());
      for (Aggregate a : e.getValue()) {
        out.add(new AggregateOf(e.getKey(), index, t, scale, a));
      }
    }
    return out;
  }

  private static AggregateFinding.Unit unit(AggregateOf a) {
    if (a.aggregate() == Aggregate.COUNT_DISTINCT || a.aggregate() == Aggregate.NULL_COUNT) {
      return AggregateFinding.Unit.COUNT;
    }
    return switch (a.type()) {
      case DATE -> AggregateFinding.Unit.DAYS;
      case TIMESTAMP -> AggregateFinding.Unit.SECONDS;
      default -> AggregateFinding.Unit.NUMBER;
    };
  }
}
