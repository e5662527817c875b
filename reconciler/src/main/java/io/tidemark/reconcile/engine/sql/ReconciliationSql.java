package io.tidemark.reconcile.engine.sql;

import io.tidemark.model.config.Aggregate;
import io.tidemark.model.config.ChangeMarkerType;
import io.tidemark.model.config.CustomSql;
import io.tidemark.model.config.DatasetSpec;
import io.tidemark.model.contract.ColumnType;
import io.tidemark.model.contract.DatasetContract;
import io.tidemark.model.contract.DatasetSpecs;
import io.tidemark.model.contract.OperationMapping;
import io.tidemark.model.contract.RawKeys;
import io.tidemark.model.contract.VersionOrder;
import io.tidemark.reconcile.kernel.EngineException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * Every statement of a reconciliation, written once over a {@link SqlDialect}. Identifiers come
 * only from the validated data contract and pass the dialect's {@code quote}; every value (window
 * bounds, operation codes, sample sizes) is a bound parameter.
 *
 * <p>Both layers are first normalised into canonical relations, then the same rule queries run over
 * them:
 *
 * <ul>
 *   <li>{@code raw_versions(key, marker, is_delete, row_hash, src, [src_ord, pos,] part_date)}:
 *       valid raw rows only under the contract (every key valid per {@link RawKeys}, a parseable
 *       change marker, an operation the contract's mapping names or null, or no operation column, a
 *       timestamp marker no later than the future limit);
 *   <li>{@code curated_rows(key, marker, row_hash)}: the curated table's live rows;
 *   <li>{@code expected}: each key's winning version up to the window end ({@link #expected});
 *       {@code in_flight}: keys changed again after it; {@code checked}: the keys compared; {@code
 *       exp}, {@code cur_rows} and {@code cur}: the checked slices of both sides.
 * </ul>
 *
 * {@code key} is the key columns cast to text and joined by U+001F; {@code marker} is epoch
 * microseconds for timestamp markers (at the dialect's precision) and the value for sequences;
 * {@code row_hash} is a hash of the compared columns, normalised so that integer widths, float
 * widths, timestamp units and zones hash alike on both sides.
 *
 * <p>How an engine holds these relations (temporary tables and views, or one {@code WITH} prelude
 * per query) is the engine's choice; the statements are the same.
 */
public final class ReconciliationSql {
  /** Between the key columns of a composite key. */
  public static final String KEY_SEPARATOR = "chr(31)";

  /** Stands for a NULL compared value in the hash. */
  public static final String NULL_TOKEN = "chr(30)";

  /** Between the key columns of a composite key in a sample. */
  public static final String DISPLAY_SEPARATOR = "|";

  /** Buckets a key falls in; the layers are summed bucket by bucket before rows are compared. */
  public static final int BUCKETS = 4096;

  private final SqlDialect d;
  private final boolean exactWinner;

  public ReconciliationSql(SqlDialect dialect) {
    this.d = dialect;
    this.exactWinner = dialect.rowPositionColumn().isPresent();
  }

  // ---- expressions over one source row ----

  /** The key columns as one text. */
  public String key(DatasetSpec spec, Map<String, String> types) {
    List<String> parts = new ArrayList<>();
    for (String k : spec.keyColumns()) {
      requireColumn(types, k, "key");
      parts.add(text(d.column(k)));
    }
    return joined(parts);
  }

  /** Texts as one, {@link #KEY_SEPARATOR} between them, as a composite key is joined. */
  private static String joined(List<String> parts) {
    return parts.size() == 1
        ? parts.get(0)
        : "concat_ws(" + KEY_SEPARATOR + ", " + String.join(", ", parts) + ")";
  }

  /**
   * Whether every key column holds a valid key under {@link RawKeys}: not null, not blank, no
   * control or invisible format character, no surrounding white space.
   */
  public Sql keysValid(DatasetSpec spec) {
    Sql sql = new Sql().append("(");
    boolean first = true;
    for (String k : spec.keyColumns()) {
      String text = text(d.column(k));
      sql.append(first ? "" : " AND ")
          .append("(" + text + " IS NOT NULL AND NOT ")
          .append(d.regexMatches(text, RawKeys.BLANK_PATTERN))
          .append(" AND NOT ")
          .append(d.regexMatches(text, RawKeys.MALFORMED_PATTERN))
          .append(")");
      first = false;
    }
    return sql.append(")");
  }

  /** The change marker as a BIGINT: epoch microseconds or the sequence; NULL when unparseable. */
  public String marker(DatasetSpec spec, Map<String, String> types) {
    String column = spec.changeMarker().column();
    String type = requireColumn(types, column, "change marker");
    String c = d.column(column);
    ColumnKind kind = d.kind(type);
    if (spec.changeMarker().type() == ChangeMarkerType.TIMESTAMP) {
      return switch (kind) {
        case TIMESTAMP -> d.epochMicros(c);
        case DATE -> d.epochMicros(d.dateAsTimestamp(c));
        case TEXT -> d.epochMicros(d.parseTimestamp(c));
        default ->
            throw new EngineException(
                "Cannot read change marker '"
                    + column
                    + "' of type "
                    + type
                    + " as a TIMESTAMP: expected a timestamp, date or text column");
      };
    }
    if (kind == ColumnKind.INTEGER || kind == ColumnKind.TEXT || kind == ColumnKind.DECIMAL) {
      return "TRY_CAST(" + c + " AS BIGINT)";
    }
    throw new EngineException(
        "Cannot read change marker '" + column + "' of type " + type + " as a LONG sequence");
  }

  /**
   * A hash of the compared columns, each normalised to text (NULL as its own token): equal values
   * hash alike on both sides; a collision would hide one mismatch.
   */
  public String rowHash(DatasetSpec spec, Map<String, String> types) {
    return rowHash(spec, types, Map.of());
  }

  /**
   * {@link #rowHash} of raw values read as their declared types: a compared column the contract
   * declares a decimal, date, boolean, int or long is cast to that type first ({@code TRY_CAST},
   * the same text in DuckDB and Trino), so a file's narrower decimal or int-for-long hashes as the
   * curated table's declared column does, exactly, on both engines.
   *
   * @param declared the contract's column types; a column it lacks is hashed as read
   */
  public String rowHash(
      DatasetSpec spec, Map<String, String> types, Map<String, ColumnType> declared) {
    List<String> parts = new ArrayList<>();
    for (String value : comparedValues(spec, types, declared)) {
      parts.add("coalesce(" + value + ", " + NULL_TOKEN + ")");
    }
    return d.hash(parts);
  }

  /**
   * Each compared column's value as {@link #rowHash} reads it, as text (NULL stays NULL): two rows
   * hash alike exactly when these agree.
   */
  List<String> comparedValues(
      DatasetSpec spec, Map<String, String> types, Map<String, ColumnType> declared) {
    List<String> values = new ArrayList<>();
    for (String col : spec.comparedColumns()) {
      String type = requireColumn(types, col, "compared");
      String cast = castType(declared.get(col));
      values.add(
          cast == null
              ? normalised(d.column(col), d.kind(type))
              : text("TRY_CAST(" + d.column(col) + " AS " + cast + ")"));
    }
    return values;
  }

  /** The name of the {@code i}-th compared column's value in the valued relations. */
  public static String valueColumn(int i) {
    return "cmp_" + i;
  }

  private static String valueColumns(DatasetSpec spec, String prefix) {
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < spec.comparedColumns().size(); i++) {
      out.append(", ").append(prefix).append(valueColumn(i));
    }
    return out.toString();
  }

  /**
   * The SQL type a raw value is read as, written alike in DuckDB and Trino; null for types read as
   * they are (text, and timestamps, whose precision and zone {@link SqlDialect#epochMicros} owns).
   */
  static String castType(ColumnType t) {
    if (t == null) {
      return null;
    }
    return switch (t.kind()) {
      case DECIMAL -> "DECIMAL(" + t.precision() + ", " + t.scale() + ")";
      case DATE -> "DATE";
      case BOOLEAN -> "BOOLEAN";
      case INT -> "INTEGER";
      case LONG -> "BIGINT";
      default -> null;
    };
  }

  private String normalised(String c, ColumnKind kind) {
    return switch (kind) {
      case TIMESTAMP -> text(d.epochMicros(c));
      case FLOATING -> text("CAST(" + c + " AS DOUBLE)");
      case BINARY -> d.binaryAsText(c);
      default -> text(c);
    };
  }

  private static String text(String expr) {
    return "CAST(" + expr + " AS VARCHAR)";
  }

  /**
   * {@code is_delete} and {@code op_ok} of a row, each followed by a comma, from the contract's
   * operation mapping: a value the mapping lists as a delete deletes, one it lists as an upsert (or
   * NULL, as in a file without the column) upserts, any other value makes the row invalid (the job
   * quarantines it as UNKNOWN_OPERATION). Every value is a bound parameter.
   *
   * @param mapping the contract's mapping; null when the dataset only upserts
   */
  private Sql operation(OperationMapping mapping, Map<String, String> types) {
    if (mapping == null || !types.containsKey(mapping.column().toLowerCase(Locale.ROOT))) {
      // No file of the batch has the optional operation column (a DMS full load): upserts only.
      return new Sql().append("false AS is_delete, true AS op_ok, ");
    }
    String opText = text(d.column(mapping.column()));
    Sql sql = new Sql().append("coalesce(" + opText + " IN (");
    values(sql, mapping.delete());
    sql.append("), false) AS is_delete, (" + opText + " IS NULL OR " + opText + " IN (");
    List<String> known = new ArrayList<>(mapping.upsert());
    known.addAll(mapping.delete());
    values(sql, known);
    return sql.append(")) AS op_ok, ");
  }

  private static void values(Sql sql, List<String> values) {
    for (int i = 0; i < values.size(); i++) {
      sql.append(i == 0 ? "" : ", ").param(values.get(i));
    }
  }

  // ---- the canonical rows ----

  /**
   * Where raw rows are read, as the engine sees them.
   *
   * @param from the FROM clause
   * @param partitionDate the row's partition date
   * @param fileOrdinal the row's file as its rank in path order; needed with a row position
   */
  public record RawSource(String from, String partitionDate, Optional<String> fileOrdinal) {}

  /**
   * Every raw row in canonical form, with whether its key ({@code key_ok}) and op are valid: op
   * from the contract's operation mapping, compared values read as their declared types.
   */
  public Sql rawRows(DatasetContract contract, Map<String, String> types, RawSource source) {
    return rawRows(contract, types, source, false);
  }

  /**
   * {@link #rawRows}, with each compared column's value ({@link #comparedValues}) after them as
   * {@code cmp_0, cmp_1, ...} when {@code withValues}: what {@code raw_valued} reads. An engine
   * that prunes unread columns reads the values only for a difference.
   */
  public Sql rawRows(
      DatasetContract contract, Map<String, String> types, RawSource source, boolean withValues) {
    DatasetSpec spec = DatasetSpecs.of(contract);
    OperationMapping mapping = contract.operation();
    Sql sql =
        new Sql()
            .append("SELECT ")
            .append(key(spec, types))
            .append(" AS key, ")
            .append(marker(spec, types))
            .append(" AS marker, ")
            .append(operation(mapping, types))
            .append(rowHash(spec, types, contract.columns()))
            .append(" AS row_hash, " + d.fileColumn() + " AS src, ");
    if (exactWinner) {
      sql.append(source.fileOrdinal().orElseThrow() + " AS src_ord, ")
          .append(d.rowPositionColumn().orElseThrow() + " AS pos, ");
    }
    sql.append(source.partitionDate() + " AS part_date, ")
        .append(keysValid(spec))
        .append(" AS key_ok");
    if (withValues) {
      List<String> values = comparedValues(spec, types, contract.columns());
      for (int i = 0; i < values.size(); i++) {
        sql.append(", " + values.get(i) + " AS " + valueColumn(i));
      }
    }
    return sql.append(" FROM " + source.from());
  }

  /**
   * The valid raw versions of {@code rows} ({@link #rawRows}, a relation or a parenthesised query):
   * the query behind {@code raw_versions}.
   *
   * @param futureLimitMicros the latest valid timestamp marker (epoch microseconds): a later one is
   *     invalid, as the ingest job quarantines it; ignored for sequence markers
   */
  public Sql rawVersions(DatasetSpec spec, Sql rows, long futureLimitMicros) {
    Sql sql =
        new Sql()
            .append("SELECT key, marker, is_delete, row_hash, src, ")
            .append(exactWinner ? "src_ord, pos, " : "")
            .append("part_date FROM ")
            .append(rows)
            .append(" WHERE key_ok AND op_ok AND marker IS NOT NULL");
    if (spec.changeMarker().type() == ChangeMarkerType.TIMESTAMP) {
      sql.append(" AND marker <= ").param(futureLimitMicros);
    }
    return sql;
  }

  /**
   * {@code raw_valued}: the valid raw versions of {@code rows} ({@link #rawRows} with values), each
   * with its compared columns' values: what a difference shows of raw.
   */
  public Sql rawValued(DatasetSpec spec, Sql rows, long futureLimitMicros) {
    Sql sql =
        new Sql()
            .append("SELECT key, marker, is_delete, src, ")
            .append(exactWinner ? "pos" : "CAST(NULL AS BIGINT) AS pos")
            .append(", part_date" + valueColumns(spec, "") + " FROM ")
            .append(rows)
            .append(" WHERE key_ok AND op_ok AND marker IS NOT NULL");
    if (spec.changeMarker().type() == ChangeMarkerType.TIMESTAMP) {
      sql.append(" AND marker <= ").param(futureLimitMicros);
    }
    return sql;
  }

  /**
   * {@code curated_valued}: the curated rows of {@code from}, each with its data file and its
   * compared columns' values: what a difference shows of curated.
   *
   * @param file the expression of a row's data file, as the table's metadata names it
   */
  public String curatedValued(
      DatasetSpec spec, Map<String, String> types, String from, String file) {
    StringBuilder sql =
        new StringBuilder("SELECT ")
            .append(key(spec, types))
            .append(" AS key, ")
            .append(marker(spec, types))
            .append(" AS marker, ")
            .append(file)
            .append(" AS data_file");
    List<String> values = comparedValues(spec, types, Map.of());
    for (int i = 0; i < values.size(); i++) {
      sql.append(", ").append(values.get(i)).append(" AS ").append(valueColumn(i));
    }
    return sql.append(" FROM ").append(from).toString();
  }

  // ---- the difference ----

  /**
   * The winning raw version of each key of {@code keys} at or before the window end, with its
   * values, in the contract's {@link VersionOrder} (without a row position, a tie within one file
   * shows one of the tied versions).
   *
   * @param keys the keys' query; null for every key
   */
  public Sql rawWinners(DatasetSpec spec, Sql cap, Sql keys) {
    String order =
        exactWinner
            ? VersionOrder.sqlOrderBy("marker", "is_delete", "src", "pos")
            : VersionOrder.sqlOrderByWithoutPosition("marker", "is_delete", "src");
    Sql sql =
        new Sql()
            .append("SELECT key, marker, is_delete, src, pos" + valueColumns(spec, "") + " FROM")
            .append(
                " (SELECT v.*, row_number() OVER (PARTITION BY key ORDER BY " + order + ") AS rn")
            .append(" FROM raw_valued v WHERE ")
            .append(cap);
    if (keys != null) {
      sql.append(" AND key IN (").append(keys).append(")");
    }
    return sql.append(") AS w WHERE rn = 1");
  }

  /** Whether a key's display form ({@code |} between columns) is one of {@code shown}. */
  public static Sql shown(List<String> shown) {
    Sql sql =
        new Sql()
            .append("replace(key, " + KEY_SEPARATOR + ", ")
            .param(DISPLAY_SEPARATOR)
            .append(") IN (");
    for (int i = 0; i < shown.size(); i++) {
      sql.append(i == 0 ? "" : ", ").param(shown.get(i));
    }
    return sql.append(")");
  }

  /**
   * Both sides of the keys shown: rows of {@code (side, key, marker, is_delete, file, pos, cmp_0,
   * ...)}, {@code side} being {@code raw} (the winning version) or {@code curated} (every row),
   * ordered by key, side and file.
   */
  public Sql diffSides(DatasetSpec spec, Sql cap, List<String> keys) {
    return new Sql()
        .append("SELECT 'raw' AS side, replace(key, " + KEY_SEPARATOR + ", ")
        .param(DISPLAY_SEPARATOR)
        .append(") AS k, marker, is_delete, src AS file, pos" + valueColumns(spec, ""))
        .append(" FROM (")
        .append(
            rawWinners(
                spec,
                cap,
                new Sql().append("SELECT key FROM raw_valued WHERE ").append(shown(keys))))
        .append(") AS r UNION ALL SELECT 'curated' AS side, replace(key, " + KEY_SEPARATOR + ", ")
        .param(DISPLAY_SEPARATOR)
        .append(") AS k, marker, false, data_file, CAST(NULL AS BIGINT)" + valueColumns(spec, ""))
        .append(" FROM curated_valued WHERE ")
        .append(shown(keys))
        .append(" ORDER BY k, side, file");
  }

  /**
   * Per rule whose keys are on both sides ({@code stale_versions}, {@code value_mismatches}): one
   * row of {@code (rule, keys, differing_0, ...)}, how many of its keys hold another value in each
   * compared column on the two sides (raw's winning version against curated's rows).
   */
  public Sql differingColumns(DatasetSpec spec, Sql cap) {
    StringBuilder counts = new StringBuilder();
    for (int i = 0; i < spec.comparedColumns().size(); i++) {
      String v = valueColumn(i);
      counts
          .append(", count(DISTINCT CASE WHEN coalesce(r." + v + ", " + NULL_TOKEN + ")")
          .append(" <> coalesce(c." + v + ", " + NULL_TOKEN + ") THEN m.key END)");
    }
    return new Sql()
        .append("SELECT m.rule, count(DISTINCT m.key)" + counts + " FROM (SELECT 'stale_versions'")
        .append(" AS rule, key FROM (" + STALE + ") AS s UNION ALL SELECT 'value_mismatches', key")
        .append(" FROM (" + mismatched() + ") AS x) AS m JOIN (")
        .append(
            rawWinners(
                spec,
                cap,
                new Sql()
                    .append("SELECT key FROM (" + STALE + ") AS s2 UNION SELECT key FROM (")
                    .append(mismatched() + ") AS x2")))
        .append(") AS r ON r.key = m.key JOIN curated_valued c ON c.key = m.key GROUP BY m.rule");
  }

  // ---- the aggregates ----

  /** How a compared column's values are read back from text to be aggregated. */
  public enum AggregateType {
    /** An integer or decimal, read as DECIMAL(38, scale): sums are exact. */
    NUMBER,
    /** A date, read as DATE. */
    DATE,
    /** A timestamp, read as its epoch microseconds. */
    TIMESTAMP,
    /** Anything else: counted only. */
    OTHER;
  }

  /**
   * One aggregate of one compared column, computed on both sides.
   *
   * @param column the compared column
   * @param index its position among the compared columns ({@link #valueColumn})
   * @param type how its values are read
   * @param scale for a decimal, its scale; 0 otherwise
   * @param aggregate what is computed
   */
  public record AggregateOf(
      String column, int index, AggregateType type, int scale, Aggregate aggregate) {}

  /**
   * One row of two text columns per aggregate, raw's then curated's: raw's side is the winning
   * version at or before the window end of each key, live ones only; curated's side is every row.
   * Both sides are the keys {@code checked} when {@code whole} is false, every key not in flight
   * when it is.
   */
  public Sql aggregates(DatasetSpec spec, Sql cap, List<AggregateOf> wanted, boolean whole) {
    StringBuilder columns = new StringBuilder();
    for (AggregateOf a : wanted) {
      for (String side : List.of("raw", "curated")) {
        String v = "CASE WHEN side = '" + side + "' THEN " + valueColumn(a.index()) + " END";
        String typed =
            switch (a.type()) {
              case NUMBER -> "CAST(" + v + " AS DECIMAL(38, " + a.scale() + "))";
              case DATE -> "CAST(" + v + " AS DATE)";
              case TIMESTAMP -> "CAST(" + v + " AS BIGINT)";
              case OTHER -> v;
            };
        String agg =
            switch (a.aggregate()) {
              case SUM -> "sum(" + typed + ")";
              case MIN -> "min(" + typed + ")";
              case MAX -> "max(" + typed + ")";
              case COUNT_DISTINCT -> "count(DISTINCT " + v + ")";
              case NULL_COUNT ->
                  "count(CASE WHEN side = '" + side + "' THEN 1 END) - count(" + v + ")";
            };
        columns.append(columns.isEmpty() ? "" : ", ").append(text(agg));
      }
    }
    String keys =
        whole ? "key NOT IN (SELECT key FROM in_flight)" : "key IN (SELECT key FROM checked)";
    return new Sql()
        .append("SELECT " + columns + " FROM (SELECT 'raw' AS side" + valueColumns(spec, ""))
        .append(" FROM (")
        .append(rawWinners(spec, cap, whole ? null : new Sql().append("SELECT key FROM checked")))
        .append(") AS w WHERE NOT is_delete" + (whole ? " AND " + keys : ""))
        .append(" UNION ALL SELECT 'curated'" + valueColumns(spec, ""))
        .append(" FROM curated_valued WHERE " + keys + ") AS sides");
  }

  // ---- custom rules ----

  /**
   * A custom_sql rule's query over the relations it may read, as one statement: the count of its
   * rows and the first {@code limit} of them ordered by their first column, each row ending with
   * the count ({@code tidemark_rows}; none when it returns nothing). The relations, over {@code
   * raw_valued} and {@code curated_valued}:
   *
   * <ul>
   *   <li>{@code raw_versions(key, change_marker, deleted, file, <compared columns>)}: every valid
   *       raw version at or before the window end;
   *   <li>{@code raw_latest(key, change_marker, <compared columns>)}: each key's winning version,
   *       live ones only;
   *   <li>{@code curated(key, change_marker, <compared columns>)}: the curated table's rows;
   *   <li>{@code quarantine(source_file, row_number, reason, detail, quarantined_at, batch_id,
   *       run_id)}: the rows the ingest job quarantined, when the query names it.
   * </ul>
   *
   * {@code key} is the key columns' display form ({@code |} between them), {@code change_marker}
   * epoch microseconds or the sequence, and each compared column is read back at the contract's
   * type.
   *
   * @param query the rule's query, as {@code CustomSql.check} passed it
   * @param quarantine the {@code quarantine} relation's query ({@link #quarantineRows} over the
   *     engine's relation of the quarantine table); null when the dataset has none (it is then
   *     empty)
   */
  public Sql custom(DatasetContract contract, Sql cap, String query, int limit, String quarantine) {
    DatasetSpec spec = DatasetSpecs.of(contract);
    StringBuilder typed = new StringBuilder();
    for (int i = 0; i < spec.comparedColumns().size(); i++) {
      String column = spec.comparedColumns().get(i);
      typed
          .append(", ")
          .append(typedBack(valueColumn(i), contract.columns().get(column)))
          .append(" AS \"")
          .append(column)
          .append("\"");
    }
    Sql relations =
        new Sql()
            .append("raw_versions AS (SELECT replace(key, " + KEY_SEPARATOR + ", ")
            .param(DISPLAY_SEPARATOR)
            .append(") AS key, marker AS change_marker, is_delete AS deleted, src AS file" + typed)
            .append(" FROM raw_valued WHERE ")
            .append(cap)
            .append("), raw_latest AS (SELECT replace(key, " + KEY_SEPARATOR + ", ")
            .param(DISPLAY_SEPARATOR)
            .append(") AS key, marker AS change_marker" + typed + " FROM (")
            .append(rawWinners(spec, cap, null))
            .append(") AS w WHERE NOT is_delete), curated AS (SELECT replace(key, ")
            .append(KEY_SEPARATOR + ", ")
            .param(DISPLAY_SEPARATOR)
            .append(") AS key, marker AS change_marker" + typed + " FROM curated_valued)");
    if (CustomSql.names(query, "quarantine")) {
      relations.append(
          ", quarantine AS ("
              + (quarantine != null ? quarantine : quarantineRows(null, false))
              + ")");
    }
    java.util.regex.Matcher with = LEADING_WITH.matcher(query);
    Sql inner = new Sql();
    if (with.lookingAt()) {
      inner
          .append(with.group(1) == null ? "WITH " : "WITH RECURSIVE ")
          .append(relations)
          .append(", " + query.substring(with.end()));
    } else {
      inner.append("WITH ").append(relations).append(" " + query);
    }
    return new Sql()
        .append("SELECT *, count(*) OVER () AS tidemark_rows FROM (")
        .append(inner)
        .append(") AS offending ORDER BY 1 LIMIT ")
        .param((long) limit);
  }

  /**
   * A {@code referential_integrity} rule's query: the keys of the rows of {@code from} whose {@code
   * columns} (none of them null) name no key of {@code referencedKeys}, as {@link #custom} returns
   * them: in key order, the first {@code limit}, each row ending with their count.
   *
   * @param spec the referencing dataset
   * @param types the column types of {@code from}
   * @param from the referencing dataset's curated rows
   * @param columns the columns that hold the referenced key, in its key's order
   * @param referencedKeys a query of the referenced keys, {@link #referencedKeys}
   */
  public Sql brokenReferences(
      DatasetSpec spec,
      Map<String, String> types,
      String from,
      List<String> columns,
      String referencedKeys,
      int limit) {
    StringBuilder present = new StringBuilder();
    List<String> parts = new ArrayList<>();
    for (String c : columns) {
      requireColumn(types, c, "reference");
      present.append(" AND ").append(d.column(c)).append(" IS NOT NULL");
      parts.add(text(d.column(c)));
    }
    return new Sql()
        .append("SELECT k, count(*) OVER () AS tidemark_rows FROM (SELECT replace(")
        .append(key(spec, types) + ", " + KEY_SEPARATOR + ", ")
        .param(DISPLAY_SEPARATOR)
        .append(") AS k, " + joined(parts) + " AS ref FROM " + aliased(from))
        .append(" WHERE true" + present + ") AS c WHERE NOT EXISTS (SELECT 1 FROM (")
        .append(referencedKeys)
        .append(") AS r WHERE r.tidemark_key = c.ref) ORDER BY k LIMIT ")
        .param((long) limit);
  }

  /**
   * The keys of a referenced dataset's rows {@code from}, as {@link #brokenReferences} reads them.
   */
  public String referencedKeys(DatasetSpec spec, Map<String, String> types, String from) {
    return "SELECT " + key(spec, types) + " AS tidemark_key FROM " + aliased(from);
  }

  /** A relation under the alias {@code s}, which a dialect's {@code column} may qualify by. */
  private static String aliased(String from) {
    return "(SELECT * FROM " + from + ") AS s";
  }

  /**
   * The {@code quarantine} relation of a custom query: {@code CustomSql.QUARANTINE_COLUMNS} of the
   * quarantine table's live rows {@code from}, or no rows when {@code from} is null.
   *
   * @param replays whether the table has the replay columns (a replay adds them)
   */
  public String quarantineRows(String from, boolean replays) {
    if (from == null) {
      return "SELECT CAST(NULL AS VARCHAR) AS source_file, CAST(NULL AS BIGINT) AS row_number,"
          + " CAST(NULL AS VARCHAR) AS reason, CAST(NULL AS VARCHAR) AS detail, CAST(NULL AS"
          + " TIMESTAMP WITH TIME ZONE) AS quarantined_at, CAST(NULL AS VARCHAR) AS batch_id,"
          + " CAST(NULL AS VARCHAR) AS run_id, CAST(NULL AS TIMESTAMP WITH TIME ZONE) AS"
          + " replayed_at WHERE false";
    }
    List<String> columns = new ArrayList<>();
    for (String c : CustomSql.QUARANTINE_COLUMNS) {
      columns.add(
          c.equals("replayed_at") && !replays
              ? "CAST(NULL AS TIMESTAMP WITH TIME ZONE) AS replayed_at"
              : d.column(c) + " AS " + c);
    }
    return "SELECT " + String.join(", ", columns) + " FROM " + aliased(from);
  }

  /** A query's leading {@code WITH [RECURSIVE]}, after comments. */
  private static final java.util.regex.Pattern LEADING_WITH =
      java.util.regex.Pattern.compile(
          "\\s*(?:(?:--[^\\n]*(?:\\n|$)|/\\*.*?\\*/)\\s*)*with\\s+(recursive\\s+)?",
          java.util.regex.Pattern.CASE_INSENSITIVE | java.util.regex.Pattern.DOTALL);

  /** A compared column's value, read as text by the valued relations, at the contract's type. */
  private String typedBack(String value, ColumnType type) {
    if (type == null) {
      return value;
    }
    return switch (type.kind()) {
      case DECIMAL, DATE, BOOLEAN, INT, LONG -> "CAST(" + value + " AS " + castType(type) + ")";
      case TIMESTAMP -> d.timestampOfMicros("CAST(" + value + " AS BIGINT)");
      default -> value;
    };
  }

  /** The curated rows of {@code from} in canonical form. */
  public String curatedRows(DatasetSpec spec, Map<String, String> types, String from) {
    return "SELECT "
        + key(spec, types)
        + " AS key, "
        + marker(spec, types)
        + " AS marker, "
        + rowHash(spec, types)
        + " AS row_hash FROM "
        + from;
  }

  // ---- the window ----

  /**
   * Whether a raw version is at or before the window end: by marker for timestamps, by partition
   * date for sequences (a sequence says nothing about time).
   */
  public Sql cap(ChangeMarkerType type, Window w) {
    return type == ChangeMarkerType.TIMESTAMP
        ? new Sql().append("marker <= ").param(w.toMicros())
        : new Sql().append("part_date <= ").append(d.date(w.toDate()));
  }

  /** Whether a raw version falls in the window; null bounds are open. */
  public Sql rawWindow(ChangeMarkerType type, Window w) {
    Sql sql = new Sql().append("(");
    if (type == ChangeMarkerType.TIMESTAMP) {
      return sql.append(markerWindow(w)).append(")");
    }
    if (w.fromDate() != null) {
      sql.append("part_date >= ").append(d.date(w.fromDate())).append(" AND ");
    }
    return sql.append("part_date <= ").append(d.date(w.toDate())).append(")");
  }

  /** Whether a curated row's marker falls in the window; sequences cannot say, so none do. */
  public Sql curatedWindow(ChangeMarkerType type, Window w) {
    Sql sql = new Sql().append("(");
    return type == ChangeMarkerType.TIMESTAMP
        ? sql.append(markerWindow(w)).append(")")
        : sql.append("false)");
  }

  private static Sql markerWindow(Window w) {
    return markerBetween("marker", w.fromMicros(), w.toMicros());
  }

  /** {@code marker > from AND marker <= to}, a null {@code from} open. */
  public static Sql markerBetween(String marker, Long fromMicros, long toMicros) {
    Sql sql = new Sql();
    if (fromMicros != null) {
      sql.append(marker + " > ").param(fromMicros).append(" AND ");
    }
    return sql.append(marker + " <= ").param(toMicros);
  }

  /**
   * The keys whose curated change marker falls in the window: the curated side of a WINDOW's
   * checked keys. None for sequence markers (a sequence says nothing about time).
   *
   * @param liveTypes the column types of the table-like relation {@code live} (aliased {@code s})
   *     to read the keys from directly, with the dialect's {@code prefilter} on its marker column;
   *     null to read {@code curated_rows}
   */
  public Sql curatedWindowKeys(
      DatasetSpec spec, Map<String, String> liveTypes, String live, Window w, Sql prefilter) {
    ChangeMarkerType type = spec.changeMarker().type();
    if (liveTypes == null) {
      return new Sql().append("SELECT key FROM curated_rows WHERE ").append(curatedWindow(type, w));
    }
    Sql sql = new Sql().append("SELECT " + key(spec, liveTypes) + " AS key FROM " + live + " s");
    if (type != ChangeMarkerType.TIMESTAMP) {
      return sql.append(" WHERE false");
    }
    return sql.append(" WHERE ")
        .append(markerBetween(marker(spec, liveTypes), w.fromMicros(), w.toMicros()))
        .append(prefilter);
  }

  // ---- the relations ----

  /** {@code in_flight}: keys changed again after the window end, left to a later window. */
  public Sql inFlight(Sql cap) {
    return new Sql()
        .append("SELECT DISTINCT key FROM raw_versions WHERE NOT (")
        .append(cap)
        .append(")");
  }

  /**
   * {@code expected}: the latest valid version of every key with versions matching {@code filter}
   * ({@code key, marker, is_delete, row_hash}), in the contract's {@link VersionOrder}. Versions
   * with the same change marker are a source defect; they are resolved as the ingest job resolves
   * them: a delete wins, then the first delivered row (lowest file path, then row position).
   *
   * <p>With a row position, one aggregation per key over the packed {@link VersionRank}, which an
   * engine can spill to disk, where sorting every key's versions could not. Without one, a rank
   * over the order without its last term, which keeps a key's rows tied on everything else.
   */
  public Sql expected(Sql filter) {
    if (exactWinner) {
      return new Sql()
          .append("SELECT key, " + VersionRank.markerOf("max(rank)") + " AS marker, ")
          .append(VersionRank.deleteOf("max(rank)") + " AS is_delete, ")
          .append(d.argMax("row_hash", "rank") + " AS row_hash")
          .append(" FROM (SELECT key, row_hash, " + VersionRank.expression(d) + " AS rank")
          .append(" FROM raw_versions v WHERE ")
          .append(filter)
          .append(") GROUP BY key");
    }
    return new Sql()
        .append("SELECT key, marker, is_delete, row_hash FROM (SELECT *, rank()")
        .append(" OVER (PARTITION BY key ORDER BY ")
        .append(VersionOrder.sqlOrderByWithoutPosition("marker", "is_delete", "src"))
        .append(") AS rk FROM raw_versions WHERE ")
        .append(filter)
        .append(") AS ranked WHERE rk = 1");
  }

  /**
   * {@code checked} of a WINDOW: the keys with a raw version in the window or a curated row whose
   * marker is in it ({@link #curatedWindowKeys}), none in flight.
   */
  public Sql checkedInWindow(Sql rawWindow, Sql curatedWindowKeys) {
    return new Sql()
        .append("(SELECT key FROM raw_versions WHERE ")
        .append(rawWindow)
        .append(" UNION ")
        .append(curatedWindowKeys)
        .append(") EXCEPT SELECT key FROM in_flight");
  }

  /**
   * {@code checked} of a FULL comparison: every key of {@code expected} and of the curated rows
   * matching {@code curatedFilter} (empty: all), none in flight.
   */
  public String checkedAll(String curatedFilter) {
    return "(SELECT key FROM expected UNION SELECT key FROM curated_rows"
        + (curatedFilter.isEmpty() ? "" : " WHERE " + curatedFilter)
        + ") EXCEPT SELECT key FROM in_flight";
  }

  /**
   * {@code exp}: the checked keys' expected versions. Without a row position a key's tied winners
   * fold into one row holding every acceptable hash ({@code hashes}).
   */
  public String checkedExpected() {
    return exactWinner
        ? "SELECT e.* FROM expected e SEMI JOIN checked c ON e.key = c.key"
        : "SELECT key, max(marker) AS marker, bool_or(is_delete) AS is_delete,"
            + " array_agg(row_hash) AS hashes FROM expected"
            + " WHERE key IN (SELECT key FROM checked) GROUP BY key";
  }

  /**
   * {@code cur_rows}: the curated rows of the checked keys, in canonical form.
   *
   * @param liveTypes the column types of the table-like relation {@code live} to match the keys on
   *     first, hashing only the matching rows' compared columns (an engine that does not move the
   *     key match below {@code curated_rows}' projection would hash every row); null to read {@code
   *     curated_rows}
   */
  public String checkedCuratedRows(DatasetSpec spec, Map<String, String> liveTypes, String live) {
    if (liveTypes == null) {
      return "SELECT r.* FROM curated_rows r WHERE r.key IN (SELECT key FROM checked)";
    }
    // IN, the checked keys second: they are few, the curated rows many.
    return curatedRows(
        spec,
        liveTypes,
        "(SELECT * FROM "
            + live
            + " s WHERE "
            + key(spec, liveTypes)
            + " IN (SELECT key FROM checked)) s");
  }

  /** {@code cur}: the checked curated rows per key: how many and the newest marker. */
  public static final String CHECKED_CURATED =
      "SELECT key, count(*) AS n, max(marker) AS marker FROM cur_rows GROUP BY key";

  // ---- the measures: each selects the offending keys as `key` ----

  /**
   * One key measure.
   *
   * @param label its name in logs and errors
   * @param keys the query of its offending keys
   * @param flag the same as a condition on one row of {@link #keyMeasuresInOnePass}'s flags
   */
  public record KeyMeasure(String label, String keys, String flag) {}

  public static final String MISSING =
      "SELECT e.key FROM exp e WHERE NOT e.is_delete AND NOT EXISTS"
          + " (SELECT 1 FROM cur c WHERE c.key = e.key)";

  public static final String UNEXPECTED =
      "SELECT c.key FROM cur c LEFT JOIN exp e ON c.key = e.key"
          + " WHERE e.key IS NULL OR e.is_delete";

  public static final String DUPLICATES = "SELECT key FROM cur WHERE n > 1";

  /**
   * Keys whose curated version is not raw's latest valid one, in either direction: older (a change
   * not applied) or newer (a version raw does not hold: an invented row, a shifted timestamp, a raw
   * file deleted after the job read it).
   */
  public static final String STALE =
      "SELECT c.key FROM cur c JOIN exp e ON c.key = e.key"
          + " WHERE NOT e.is_delete AND c.marker <> e.marker";

  /** At the same marker, a curated row matching none of the expected values. */
  public String mismatched() {
    return "SELECT DISTINCT r.key FROM cur_rows r JOIN exp e ON r.key = e.key"
        + " WHERE NOT e.is_delete AND r.marker = e.marker AND "
        + (exactWinner ? "r.row_hash <> e.row_hash" : "NOT contains(e.hashes, r.row_hash)");
  }

  public static final String COUNT_DIFFERENCE =
      "(" + MISSING + ") UNION (" + UNEXPECTED + ") UNION (" + DUPLICATES + ")";

  /** The key measures in the order of {@code Observations}' findings. */
  public List<KeyMeasure> keyMeasures() {
    return List.of(
        new KeyMeasure(
            "count_match keys", COUNT_DIFFERENCE, "f.missing OR f.unexpected OR f.duplicate"),
        new KeyMeasure("missing_keys", MISSING, "f.missing"),
        new KeyMeasure("unexpected_keys", UNEXPECTED, "f.unexpected"),
        new KeyMeasure("duplicate_keys", DUPLICATES, "f.duplicate"),
        new KeyMeasure("stale_versions", STALE, "f.stale"),
        new KeyMeasure("value_mismatches", mismatched(), "f.mismatched"));
  }

  /**
   * Every key measure of {@link #keyMeasures()} in one query, for a query service that reads both
   * layers again for every query it runs (and plans each one anew): rows of {@code (measure, total,
   * key)}, {@code measure} the index in {@link #keyMeasures()}'s order, {@code total} and the first
   * {@code limit} keys of each measure as {@link #countAndSample} gives them; no row for a measure
   * that found no key. Each key is flagged once, from the full join of {@code exp} and {@code cur}
   * (each measure's own query above says the same as its flag here; the engines' agreement tests
   * hold the two to one answer on every fault).
   */
  public Sql keyMeasuresInOnePass(int limit) {
    String flags =
        "SELECT coalesce(e.key, c.key) AS key,"
            // MISSING: expected live, no curated row
            + " coalesce(NOT e.is_delete AND c.key IS NULL, false) AS missing,"
            // UNEXPECTED: a curated row that raw does not expect live
            + " coalesce(c.key IS NOT NULL AND (e.key IS NULL OR e.is_delete), false)"
            + " AS unexpected,"
            // DUPLICATES
            + " coalesce(c.n > 1, false) AS duplicate,"
            // STALE: both sides, another version
            + " coalesce(NOT e.is_delete AND c.marker <> e.marker, false) AS stale,"
            + " m.key IS NOT NULL AS mismatched"
            + " FROM exp e FULL OUTER JOIN cur c ON c.key = e.key"
            + " LEFT JOIN ("
            + mismatched()
            + ") m ON m.key = coalesce(e.key, c.key)";
    List<KeyMeasure> measures = keyMeasures();
    StringBuilder measured = new StringBuilder();
    StringBuilder indexes = new StringBuilder();
    for (int i = 0; i < measures.size(); i++) {
      measured
          .append(i == 0 ? "" : " OR ")
          .append("(m.measure = " + i + " AND (" + measures.get(i).flag() + "))");
      indexes.append(i == 0 ? "" : ", ").append("(" + i + ")");
    }
    return new Sql()
        .append("SELECT measure, total, k FROM (SELECT m.measure, replace(f.key, " + KEY_SEPARATOR)
        .append(", ")
        .param(DISPLAY_SEPARATOR)
        .append(
            ") AS k, count(*) OVER (PARTITION BY m.measure) AS total,"
                + " row_number() OVER (PARTITION BY m.measure ORDER BY f.key) AS rn FROM (SELECT *"
                + " FROM ("
                + flags
                + ") AS a WHERE missing OR unexpected OR duplicate OR stale OR mismatched) AS f"
                + " CROSS JOIN (VALUES "
                + indexes
                + ") AS m(measure) WHERE "
                + measured
                + ") AS s WHERE rn <= ")
        .param((long) limit)
        .append(" ORDER BY measure, k");
  }

  /** One row: expected live rows among the checked keys, curated rows among them. */
  public static final String COUNTS =
      "SELECT (SELECT count(*) FROM exp WHERE NOT is_delete), (SELECT count(*) FROM cur_rows)";

  /** {@code SELECT count(*)} of a key query. */
  public static Sql count(Sql keys) {
    return new Sql().append("SELECT count(*) FROM (").append(keys).append(")");
  }

  /** A sorted, bounded sample of a key query, keys shown with {@code |} between columns. */
  public static Sql sample(Sql keys, int limit) {
    return new Sql()
        .append("SELECT DISTINCT replace(key, " + KEY_SEPARATOR + ", ")
        .param(DISPLAY_SEPARATOR)
        .append(") AS k FROM (")
        .append(keys)
        .append(") ORDER BY k LIMIT ")
        .param(limit);
  }

  /**
   * A key query as rows of {@code (total, key)} in one query: every row carries the number of
   * distinct keys; the first {@code limit} keys in key order are shown with {@code |} between
   * columns ({@link KeySamples#finding}). No row means no key.
   */
  public static Sql countAndSample(Sql keys, int limit) {
    return new Sql()
        .append("SELECT total, k FROM (SELECT replace(key, " + KEY_SEPARATOR + ", ")
        .param(DISPLAY_SEPARATOR)
        .append(") AS k, count(*) OVER () AS total, row_number() OVER (ORDER BY key) AS rn")
        .append(" FROM (SELECT DISTINCT key FROM (")
        .append(keys)
        .append(") AS q) AS d) AS s WHERE rn <= ")
        .param((long) limit)
        .append(" ORDER BY k");
  }

  // ---- buckets ----

  private String bucket(String key) {
    return d.bucket(key, BUCKETS);
  }

  /**
   * Per bucket of keys, raw's side of a FULL comparison: how many keys' latest valid version at or
   * before the window end is live, and the checksum of each such key's (key, marker, compared
   * values). Versions stream from the files through one aggregation per key; nothing per key is
   * kept. (A bucket holding a key still in flight is compared row by row, where that key is left
   * out.)
   */
  public Sql rawBuckets(Sql cap) {
    return new Sql()
        .append("SELECT ")
        .append(bucket("key"))
        .append(" AS bucket, count(*) FILTER (WHERE NOT is_delete) AS n, ")
        .append(d.checksum(List.of("key", "marker", "row_hash")))
        .append(" FILTER (WHERE NOT is_delete) AS x FROM (")
        .append(expected(cap))
        .append(") GROUP BY bucket");
  }

  /**
   * Per bucket of keys, curated's side of a FULL comparison: its rows, the same checksum over each,
   * and the newest change marker.
   */
  public String curatedBuckets() {
    return "SELECT "
        + bucket("key")
        + " AS bucket, count(*) AS n, "
        + d.checksum(List.of("key", "marker", "row_hash"))
        + " AS x, max(marker) AS newest FROM curated_rows GROUP BY bucket";
  }

  /**
   * The buckets to compare row by row: those whose two sides differ, and those holding a key in
   * flight (left out of the comparison, so its bucket's sums cannot say).
   */
  public String differentBuckets() {
    return "SELECT coalesce(r.bucket, c.bucket) AS bucket"
        + " FROM raw_buckets r FULL OUTER JOIN curated_buckets c ON r.bucket = c.bucket"
        + " WHERE coalesce(r.n, 0) <> coalesce(c.n, 0) OR r.x IS DISTINCT FROM c.x"
        + " UNION SELECT "
        + bucket("key")
        + " FROM in_flight";
  }

  public static final String DIFFERENT_BUCKETS = "SELECT count(*) FROM different_buckets";

  /**
   * Over the buckets that agree: the live keys raw expects and the rows curated holds (the same);
   * and curated's newest change marker over every bucket.
   */
  public static final String AGREEING_TOTALS =
      "SELECT (SELECT coalesce(sum(n), 0) FROM raw_buckets"
          + " WHERE bucket NOT IN (SELECT bucket FROM different_buckets)),"
          + " (SELECT coalesce(sum(n), 0) FROM curated_buckets"
          + " WHERE bucket NOT IN (SELECT bucket FROM different_buckets)),"
          + " (SELECT max(newest) FROM curated_buckets)";

  /** Whether a key is in one of the buckets that differ. */
  public String inDifferentBucket(String key) {
    return bucket(key) + " IN (SELECT bucket FROM different_buckets)";
  }

  /**
   * One row: how many buckets of checked keys differ between the layers, then the same two counts
   * as {@link #COUNTS}. Per bucket, each side's live rows are counted and summed by the checksum of
   * (key, marker, compared-values hash); a bucket holding a key whose latest versions tie on the
   * marker (several acceptable values) counts as different. When no bucket differs, no key measure
   * can find anything and their queries need not run.
   */
  public String checkedBucketsDiffering() {
    String expectedHash = exactWinner ? "row_hash" : "hashes[1]";
    String ties = exactWinner ? "0" : "count_if(cardinality(hashes) > 1)";
    return "SELECT count_if(coalesce(r.n, 0) <> coalesce(c.n, 0) OR r.x IS DISTINCT FROM c.x"
        + " OR coalesce(r.ties, 0) > 0), coalesce(sum(r.n), 0), coalesce(sum(c.n), 0) FROM"
        + " (SELECT "
        + bucket("key")
        + " AS b, count_if(NOT is_delete) AS n, "
        + d.checksum(List.of("key", "marker", expectedHash))
        + " FILTER (WHERE NOT is_delete) AS x, "
        + ties
        + " AS ties FROM exp GROUP BY 1) r FULL OUTER JOIN (SELECT "
        + bucket("key")
        + " AS b, count(*) AS n, "
        + d.checksum(List.of("key", "marker", "row_hash"))
        + " AS x FROM cur_rows GROUP BY 1) c ON r.b = c.b";
  }

  // ---- freshness ----

  /** One row: the newest and the oldest valid raw change marker at or before the window end. */
  public static Sql rawMarkerRange(Sql cap) {
    return new Sql().append("SELECT max(marker), min(marker) FROM raw_versions WHERE ").append(cap);
  }

  /**
   * One row: the newest curated marker, then {@link #rawMarkerRange}'s two, in one query that reads
   * each layer once (a query service reads a table again for every subquery that names it).
   */
  public static Sql markers(Sql cap) {
    return new Sql()
        .append("SELECT c.newest, r.newest, r.oldest FROM (SELECT max(marker) AS newest FROM")
        .append(" curated_rows) AS c CROSS JOIN (")
        .append(rawMarkerRange(cap))
        .append(") AS r(newest, oldest)");
  }

  /** Where {@link #markers}' three values start in {@link #withMarkers}' row. */
  public static final int MARKERS_AFTER_COUNTS = 3;

  /**
   * {@code query}'s one row followed by {@link #markers}' three values (from {@link
   * #MARKERS_AFTER_COUNTS} on), in one query: a query service plans and bills every query, so a
   * healthy table's counts and freshness are one.
   *
   * @param query a query of one row of three columns ({@link #checkedBucketsDiffering})
   */
  public static Sql withMarkers(String query, Sql cap) {
    return new Sql()
        .append("SELECT b.*, m.* FROM (")
        .append(query)
        .append(") AS b(differing, expected_rows, curated_rows) CROSS JOIN (")
        .append(markers(cap))
        .append(") AS m(curated_newest, raw_newest, raw_oldest)");
  }

  /**
   * Keys whose latest valid version at or before the window end is newer than the curated table's
   * newest: the latest version is the newest, so any such version makes its key pending.
   */
  public static Sql pendingKeys(Sql cap, long newestCurated) {
    return newerVersions("DISTINCT key", cap, newestCurated);
  }

  /**
   * {@link #pendingKeys} where {@code expected} holds every key's winners (not only those of the
   * buckets that differ): the keys whose expected version is newer than the curated newest.
   */
  public static Sql pendingExpectedKeys(long newestCurated) {
    return new Sql().append("SELECT key FROM expected WHERE marker > ").param(newestCurated);
  }

  /** The raw files holding a valid version up to the window end newer than the curated newest. */
  public static Sql pendingFiles(Sql cap, long newestCurated) {
    return newerVersions("DISTINCT src", cap, newestCurated);
  }

  private static Sql newerVersions(String what, Sql cap, long newestCurated) {
    return new Sql()
        .append("SELECT " + what + " FROM raw_versions WHERE ")
        .append(cap)
        .append(" AND marker > ")
        .param(newestCurated);
  }

  private String requireColumn(Map<String, String> types, String column, String role) {
    String type = types.get(column.toLowerCase(Locale.ROOT));
    if (type == null) {
      throw new EngineException(
          "Cannot find "
              + role
              + " column '"
              + column
              + "': "
              + d.columnsOwner()
              + " "
              + types.keySet());
    }
    return type;
  }
}
