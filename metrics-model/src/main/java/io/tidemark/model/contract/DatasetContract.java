package io.tidemark.model.contract;

import io.tidemark.model.config.Aggregate;
import io.tidemark.model.config.ChangeMarker;
import io.tidemark.model.config.ChangeMarkerType;
import io.tidemark.model.config.RuleKind;
import io.tidemark.model.config.RuleSpec;
import io.tidemark.model.contract.layout.Layout;
import io.tidemark.model.json.Checks;
import io.tidemark.model.json.InvalidDocumentException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Everything that says what one dataset is, declared once in a contract file ({@link ContractFile})
 * and read by the ingest job, the reconciler and the stack generator alike: where its raw files are
 * and how they are laid out, its columns and their types, its key, its change marker, what its
 * operation values mean, the curated, quarantine and tombstone tables, and how it is reconciled.
 * Nothing has a default that names a column: a dataset declares its own.
 *
 * @param name the dataset's name (a CloudWatch dimension value and path segment)
 * @param pipeline the pipeline it belongs to, default {@value #PIPELINE_DEFAULT}
 * @param raw where the raw files are and how they are laid out
 * @param columns every column the dataset has, with its type, in declaration order; the operation
 *     column included
 * @param keyColumns the business key, one or more columns
 * @param comparedColumns the payload columns the reconciler compares; a subset of the columns
 * @param changeMarker the column ordering versions of a key, and its type
 * @param operation what the operation column's values mean; null when every row is an upsert
 * @param curated the curated table
 * @param quarantineTable rejected records, default {@code <curated table>_quarantine}
 * @param tombstoneTable remembered deletes, default {@code <curated table>_tombstones}
 * @param reconcile how the reconciler checks it
 */
public record DatasetContract(
    String name,
    String pipeline,
    Raw raw,
    Map<String, ColumnType> columns,
    List<String> keyColumns,
    List<String> comparedColumns,
    ChangeMarker changeMarker,
    OperationMapping operation,
    Curated curated,
    String quarantineTable,
    String tombstoneTable,
    Reconcile reconcile) {

  public static final String PIPELINE_DEFAULT = "default";
  public static final String QUARANTINE_SUFFIX = "_quarantine";
  public static final String TOMBSTONE_SUFFIX = "_tombstones";
  public static final String RAW_TABLE_SUFFIX = "_raw";

  public DatasetContract {
    Checks.name("name", name);
    pipeline = Checks.name("pipeline", pipeline == null ? PIPELINE_DEFAULT : pipeline);
    Checks.required("raw", raw);
    columns = columns(columns);
    keyColumns = Checks.identifiers("keyColumns", keyColumns, true);
    comparedColumns = Checks.identifiers("comparedColumns", comparedColumns, false);
    Checks.required("changeMarker", changeMarker);
    Checks.required("curated", curated);
    quarantineTable =
        Checks.qualifiedIdentifier(
            "quarantineTable",
            quarantineTable == null ? curated.table() + QUARANTINE_SUFFIX : quarantineTable);
    tombstoneTable =
        Checks.qualifiedIdentifier(
            "tombstoneTable",
            tombstoneTable == null ? curated.table() + TOMBSTONE_SUFFIX : tombstoneTable);
    reconcile = reconcile == null ? Reconcile.defaults(keyColumns) : reconcile;
    checkColumns(columns, keyColumns, comparedColumns, changeMarker, operation, curated, reconcile);
    reconcile = aggregateColumns(columns, comparedColumns, reconcile);
    io.tidemark.model.alarms.RuleAlarm.checkApart(reconcile.rules());
    for (RuleSpec rule : reconcile.rules()) {
      if (rule.kind() == RuleKind.REFERENTIAL_INTEGRITY) {
        for (int i = 0; i < rule.columns().size(); i++) {
          known(
              columns,
              "reconcile.rules." + rule.id() + ".columns[" + i + "]",
              rule.columns().get(i));
        }
      }
    }
  }

  /**
   * Checks a {@code referential_integrity} rule of this contract against the contract of the
   * dataset it references: as many columns as that dataset has key columns, each of the same kind
   * as the key column it stands for (a string for a string; an int or long for an int or long),
   * since the rule compares their text.
   *
   * @throws InvalidDocumentException naming the rule's field and what does not fit
   */
  public void checkReference(RuleSpec rule, DatasetContract referenced) {
    String at = "reconcile.rules." + rule.id() + ".columns";
    List<String> keys = referenced.keyColumns();
    if (rule.columns().size() != keys.size()) {
      throw new InvalidDocumentException(
          at,
          rule.columns(),
          "names "
              + rule.columns().size()
              + " column(s), but dataset '"
              + referenced.name()
              + "' has "
              + keys.size()
              + " key column(s) "
              + keys);
    }
    for (int i = 0; i < keys.size(); i++) {
      ColumnType from = columns.get(rule.columns().get(i));
      ColumnType to = referenced.columns().get(keys.get(i));
      if (keyKind(from) != keyKind(to)) {
        throw new InvalidDocumentException(
            at + "[" + i + "]",
            rule.columns().get(i),
            "is of type "
                + from
                + ", but the key column '"
                + keys.get(i)
                + "' of dataset '"
                + referenced.name()
                + "' it references is of type "
                + to);
      }
    }
  }

  /** A key's kind as its text compares: ints and longs alike. */
  private static ColumnType.Kind keyKind(ColumnType t) {
    return t.kind() == ColumnType.Kind.INT ? ColumnType.Kind.LONG : t.kind();
  }

  /**
   * The reconcile section with each {@code aggregate_match} rule's columns resolved (none
   * configured: every compared column not marked sensitive) and checked: compared, not sensitive
   * (an aggregate in a report would tell of its values), and of a type each configured aggregate
   * applies to.
   */
  private static Reconcile aggregateColumns(
      Map<String, ColumnType> columns, List<String> compared, Reconcile reconcile) {
    List<RuleSpec> rules = new ArrayList<>();
    boolean changed = false;
    for (int r = 0; r < reconcile.rules().size(); r++) {
      RuleSpec rule = reconcile.rules().get(r);
      if (rule.kind() != RuleKind.AGGREGATE_MATCH) {
        rules.add(rule);
        continue;
      }
      String at = "reconcile.rules." + rule.id() + ".columns";
      List<String> cols = rule.columns();
      if (cols == null) {
        cols = compared.stream().filter(c -> !reconcile.sensitiveColumns().contains(c)).toList();
        if (cols.isEmpty()) {
          throw new InvalidDocumentException(
              at,
              null,
              "is required: no compared column is left to aggregate once the sensitive ones are"
                  + " set aside");
        }
      }
      for (int i = 0; i < cols.size(); i++) {
        String c = cols.get(i);
        ColumnType t = known(columns, at + "[" + i + "]", c);
        if (!compared.contains(c)) {
          throw new InvalidDocumentException(
              at + "[" + i + "]",
              c,
              "is not a compared column: aggregate_match matches the compared columns only");
        }
        if (reconcile.sensitiveColumns().contains(c)) {
          throw new InvalidDocumentException(
              at + "[" + i + "]",
              c,
              "is a sensitive column: its aggregates would show in reports and metrics");
        }
        for (Aggregate a : rule.aggregates() == null ? List.<Aggregate>of() : rule.aggregates()) {
          if ((a.needsNumbers() && !isNumber(t)) || (a.needsOrder() && !isOrdered(t))) {
            throw new InvalidDocumentException(
                "reconcile.rules." + rule.id() + ".aggregates",
                a.id(),
                "does not apply to column '"
                    + c
                    + "' of type "
                    + t
                    + (a.needsNumbers()
                        ? ": sum needs an int, long or decimal"
                        : ": min and max need a number, date or timestamp"));
          }
        }
      }
      rules.add(rule.withColumns(cols));
      changed = true;
    }
    return changed ? reconcile.withRules(rules) : reconcile;
  }

  /** Whether {@code sum} applies to a column of this type. */
  public static boolean isNumber(ColumnType t) {
    return t.kind() == ColumnType.Kind.INT
        || t.kind() == ColumnType.Kind.LONG
        || t.kind() == ColumnType.Kind.DECIMAL;
  }

  /** Whether {@code min} and {@code max} apply to a column of this type. */
  public static boolean isOrdered(ColumnType t) {
    return isNumber(t) || t.kind() == ColumnType.Kind.DATE || t.kind() == ColumnType.Kind.TIMESTAMP;
  }

  /**
   * What an {@code aggregate_match} rule computes of one of its columns: its configured aggregates,
   * or those that apply to the column's type ({@link RuleSpec#defaultAggregates}).
   */
  public List<Aggregate> aggregates(RuleSpec rule, String column) {
    if (rule.aggregates() != null) {
      return rule.aggregates();
    }
    ColumnType t = columns.get(column);
    return RuleSpec.defaultAggregates(t != null && isNumber(t), t != null && isOrdered(t));
  }

  /**
   * The names of Iceberg's metadata columns (its {@code MetadataColumns}), which Spark's row-level
   * writes and the ingest job's position lookup read by name; a data column must not shadow them.
   */
  static final java.util.List<String> ICEBERG_METADATA_COLUMNS =
      java.util.List.of(
          "_file",
          "_pos",
          "_deleted",
          "_spec_id",
          "_partition",
          "_row_id",
          "_last_updated_sequence_number",
          "_change_type",
          "_change_ordinal",
          "_commit_snapshot_id");

  private static Map<String, ColumnType> columns(Map<String, ColumnType> columns) {
    if (columns == null || columns.isEmpty()) {
      throw new InvalidDocumentException("columns", columns, "must declare the dataset's columns");
    }
    Map<String, ColumnType> out = new LinkedHashMap<>();
    Set<String> folded = new HashSet<>();
    for (Map.Entry<String, ColumnType> e : columns.entrySet()) {
      Checks.identifier("columns." + e.getKey(), e.getKey());
      if (ICEBERG_METADATA_COLUMNS.contains(e.getKey().toLowerCase(Locale.ROOT))) {
        throw new InvalidDocumentException(
            "columns." + e.getKey(),
            e.getKey(),
            "is the name of one of Iceberg's metadata columns "
                + ICEBERG_METADATA_COLUMNS
                + ": a data column of that name hides it, and the curated table's row-level"
                + " writes need it; rename the column");
      }
      if (!folded.add(e.getKey().toLowerCase(Locale.ROOT))) {
        throw new InvalidDocumentException(
            "columns." + e.getKey(), e.getKey(), "differs from another column only in case");
      }
      out.put(e.getKey(), Checks.required("columns." + e.getKey(), e.getValue()));
    }
    return java.util.Collections.unmodifiableMap(out);
  }

  private static void checkColumns(
      Map<String, ColumnType> columns,
      List<String> keys,
      List<String> compared,
      ChangeMarker marker,
      OperationMapping operation,
      Curated curated,
      Reconcile reconcile) {
    for (int i = 0; i < keys.size(); i++) {
      ColumnType t = known(columns, "keyColumns[" + i + "]", keys.get(i));
      if (t.kind() != ColumnType.Kind.STRING
          && t.kind() != ColumnType.Kind.INT
          && t.kind() != ColumnType.Kind.LONG) {
        throw new InvalidDocumentException(
            "keyColumns[" + i + "]", keys.get(i), "is " + t + "; a key is a string, int or long");
      }
    }
    ColumnType m = known(columns, "changeMarker.column", marker.column());
    ColumnType expected =
        marker.type() == ChangeMarkerType.TIMESTAMP ? ColumnType.TIMESTAMP : ColumnType.LONG;
    if (!m.equals(expected)) {
      throw new InvalidDocumentException(
          "changeMarker.column",
          marker.column(),
          "is declared " + m + " but a " + typeName(marker.type()) + " marker is " + expected);
    }
    if (keys.contains(marker.column())) {
      throw new InvalidDocumentException("changeMarker.column", marker.column(), "is a key column");
    }
    if (operation != null) {
      ColumnType o = known(columns, "operation.column", operation.column());
      if (o.kind() != ColumnType.Kind.STRING) {
        throw new InvalidDocumentException(
            "operation.column", operation.column(), "is declared " + o + "; it must be a string");
      }
      if (keys.contains(operation.column()) || marker.column().equals(operation.column())) {
        throw new InvalidDocumentException(
            "operation.column", operation.column(), "is a key or the change marker");
      }
    }
    for (int i = 0; i < compared.size(); i++) {
      String c = compared.get(i);
      known(columns, "comparedColumns[" + i + "]", c);
      if (keys.contains(c)
          || marker.column().equals(c)
          || (operation != null && operation.column().equals(c))) {
        throw new InvalidDocumentException(
            "comparedColumns[" + i + "]",
            c,
            "is a key, change-marker or operation column; compare payload columns only");
      }
    }
    for (int i = 0; i < curated.partitionBy().size(); i++) {
      String column = Curated.transformColumn(curated.partitionBy().get(i));
      known(columns, "curated.partitionBy[" + i + "]", column);
    }
    for (int i = 0; i < reconcile.sampleColumns().size(); i++) {
      String column = reconcile.sampleColumns().get(i);
      if (!keys.contains(column)) {
        throw new InvalidDocumentException(
            "reconcile.sampleColumns[" + i + "]",
            column,
            "is not a key column: samples show keys only, the key columns listed in clear and the"
                + " others hashed");
      }
    }
    for (int i = 0; i < reconcile.sensitiveColumns().size(); i++) {
      String column = reconcile.sensitiveColumns().get(i);
      if (!compared.contains(column)) {
        throw new InvalidDocumentException(
            "reconcile.sensitiveColumns[" + i + "]",
            column,
            "is not a compared column: a difference shows the compared columns' values only");
      }
    }
  }

  private static ColumnType known(Map<String, ColumnType> columns, String field, String column) {
    ColumnType t = columns.get(column);
    if (t == null) {
      throw new InvalidDocumentException(field, column, "is not a column");
    }
    return t;
  }

  private static String typeName(ChangeMarkerType type) {
    return type == ChangeMarkerType.TIMESTAMP ? "timestamp" : "sequence";
  }

  /**
   * The name of the dataset's raw table where Athena reads raw (the Glue database the stack
   * creates): the dataset's name in lower case, every character but {@code a-z}, {@code 0-9} and
   * {@code _} as {@code _}, then {@value #RAW_TABLE_SUFFIX} ({@code sales.orders-v2} is {@code
   * sales_orders_v2_raw}). The stack generator creates it and the reconciler queries it by this one
   * rule.
   */
  public String rawTableName() {
    return name.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9_]", "_") + RAW_TABLE_SUFFIX;
  }

  /** The operation column, or null when the dataset only upserts. */
  public String operationColumn() {
    return operation == null ? null : operation.column();
  }

  /** The curated table, {@code namespace.table}. */
  public String curatedTable() {
    return curated.table();
  }

  /**
   * The columns the curated table holds, in order: keys, change marker, operation (when declared),
   * then every other declared column.
   */
  public List<String> contractColumns() {
    List<String> all = new ArrayList<>(keyColumns);
    all.add(changeMarker.column());
    if (operation != null) {
      all.add(operation.column());
    }
    for (String c : columns.keySet()) {
      if (!all.contains(c)) {
        all.add(c);
      }
    }
    return List.copyOf(all);
  }

  /** The columns every raw file must have: all but the operation column. */
  public List<String> requiredColumns() {
    return contractColumns().stream().filter(c -> !c.equals(operationColumn())).toList();
  }

  /** The declared payload columns that are not keys, marker or operation, in order. */
  public List<String> payloadColumns() {
    List<String> all = contractColumns();
    return all.subList(keyColumns.size() + (operation == null ? 1 : 2), all.size());
  }

  /**
   * A builder, for code that declares a dataset (tests, the demo); files go through {@link
   * ContractFile}.
   */
  public static Builder builder(String name) {
    return new Builder(name);
  }

  /** A builder holding this contract's declaration. */
  public Builder toBuilder() {
    Builder b = new Builder(name);
    b.pipeline = pipeline;
    b.raw = raw;
    b.columns.putAll(columns);
    b.keyColumns = keyColumns;
    b.comparedColumns = comparedColumns;
    b.changeMarker = changeMarker;
    b.operation = operation;
    b.curated = curated;
    b.quarantineTable = quarantineTable;
    b.tombstoneTable = tombstoneTable;
    b.reconcile = reconcile;
    return b;
  }

  /** This contract with another curated table; its quarantine and tombstone tables follow it. */
  public DatasetContract withCuratedTable(String table) {
    Builder b = toBuilder();
    b.curated = new Curated(table, curated.partitionBy());
    b.quarantineTable = null;
    b.tombstoneTable = null;
    return b.build();
  }

  /** This contract over raw files at another location, in the same layout. */
  public DatasetContract withRawLocation(String location) {
    Builder b = toBuilder();
    b.raw = new Raw(location, raw.format(), raw.layout());
    return b.build();
  }

  /**
   * Where a dataset's raw files are and how they lie.
   *
   * @param location the dataset's raw folder: an absolute path or a URI ({@code s3://…}); a
   *     contract file's relative location is resolved against the file's folder when it is loaded
   * @param format the file format, {@value #FORMAT_PARQUET} (the only one for now)
   * @param layout how files lie under the location
   */
  public record Raw(String location, String format, Layout layout) {
    public static final String FORMAT_PARQUET = "parquet";

    public Raw {
      Checks.nonBlank("location", location);
      format = format == null ? FORMAT_PARQUET : format.toLowerCase(Locale.ROOT);
      if (!FORMAT_PARQUET.equals(format)) {
        throw new InvalidDocumentException(
            "format", format, "only 'parquet' is supported (CSV and JSON are not yet)");
      }
      Checks.required("layout", layout);
    }
  }

  /**
   * The curated Iceberg table.
   *
   * @param table {@code namespace.table}
   * @param partitionBy Iceberg partition transforms of the table, e.g. {@code day(order_date)},
   *     {@code bucket(16, order_id)}, {@code region}; empty for an unpartitioned table
   */
  public record Curated(String table, List<String> partitionBy) {
    private static final Pattern TRANSFORM =
        Pattern.compile(
            "(?:(year|month|day|hour)\\(\\s*([A-Za-z_][A-Za-z0-9_]*)\\s*\\)"
                + "|(bucket|truncate)\\(\\s*(\\d{1,9})\\s*,\\s*([A-Za-z_][A-Za-z0-9_]*)\\s*\\)"
                + "|([A-Za-z_][A-Za-z0-9_]*))");

    public Curated {
      Checks.qualifiedIdentifier("table", table);
      partitionBy = partitionBy == null ? List.of() : List.copyOf(partitionBy);
      for (int i = 0; i < partitionBy.size(); i++) {
        transformColumn(partitionBy.get(i), "partitionBy[" + i + "]");
      }
    }

    /** The column a partition transform reads. */
    public static String transformColumn(String transform) {
      return transformColumn(transform, "partitionBy");
    }

    private static String transformColumn(String transform, String field) {
      Matcher m = TRANSFORM.matcher(transform == null ? "" : transform.trim());
      if (!m.matches()) {
        throw new InvalidDocumentException(
            field,
            transform,
            "not a partition transform: column, year(c), month(c), day(c), hour(c), bucket(n, c)"
                + " or truncate(w, c)");
      }
      return m.group(2) != null ? m.group(2) : m.group(5) != null ? m.group(5) : m.group(6);
    }
  }

  /**
   * How the reconciler checks the dataset.
   *
   * @param schedule when scheduled runs start, a Quartz cron expression
   * @param scheduleMode what scheduled runs check: {@code full} or {@code window}
   * @param futureTolerance how far past now a timestamp change marker may lie and be valid
   * @param unprocessedFileGrace how old an unread raw file must be before {@code unprocessed_files}
   *     names it
   * @param sampleColumns the key columns a failing rule's sample keys show in clear; the other key
   *     columns show as a hash (default: every key column)
   * @param rules the rules, one per id
   * @param verifiedTag the Iceberg tag a FULL reconciliation that passes moves to the curated
   *     snapshot it checked, so readers can pin proven data; empty for none (default {@value
   *     #VERIFIED_TAG_DEFAULT})
   * @param sensitiveColumns compared columns whose values a failing rule's difference shows as a
   *     hash, never in clear (default: none)
   */
  public record Reconcile(
      String schedule,
      String scheduleMode,
      Duration futureTolerance,
      Duration unprocessedFileGrace,
      List<String> sampleColumns,
      List<RuleSpec> rules,
      String verifiedTag,
      List<String> sensitiveColumns) {
    public static final String SCHEDULE_DEFAULT = "0 0 2 * * ?";
    public static final String VERIFIED_TAG_DEFAULT = "tidemark_verified";
    private static final Pattern TAG = Pattern.compile("[A-Za-z_][A-Za-z0-9_-]{0,99}");
    public static final String SCHEDULE_MODE_DEFAULT = "full";
    public static final Duration UNPROCESSED_FILE_GRACE_DEFAULT = Duration.ofHours(6);

    public Reconcile {
      schedule = schedule == null ? SCHEDULE_DEFAULT : Checks.nonBlank("schedule", schedule);
      scheduleMode = scheduleMode == null ? SCHEDULE_MODE_DEFAULT : scheduleMode;
      if (!List.of("full", "window").contains(scheduleMode)) {
        throw new InvalidDocumentException("scheduleMode", scheduleMode, "must be full or window");
      }
      futureTolerance =
          futureTolerance == null ? ContractDefaults.FUTURE_TOLERANCE : futureTolerance;
      if (futureTolerance.isNegative()) {
        throw new InvalidDocumentException("futureTolerance", futureTolerance, "is negative");
      }
      unprocessedFileGrace =
          unprocessedFileGrace == null ? UNPROCESSED_FILE_GRACE_DEFAULT : unprocessedFileGrace;
      if (unprocessedFileGrace.isNegative()) {
        throw new InvalidDocumentException(
            "unprocessedFileGrace", unprocessedFileGrace, "is negative");
      }
      sampleColumns = Checks.identifiers("sampleColumns", sampleColumns, false);
      rules = rules == null ? RuleSpec.defaults() : List.copyOf(rules);
      Set<String> ids = new HashSet<>();
      for (int i = 0; i < rules.size(); i++) {
        if (!ids.add(rules.get(i).id())) {
          throw new InvalidDocumentException(
              "rules[" + i + "]", rules.get(i).id(), "is a rule id used twice");
        }
      }
      verifiedTag = verifiedTag == null ? VERIFIED_TAG_DEFAULT : verifiedTag;
      if (!verifiedTag.isEmpty() && !TAG.matcher(verifiedTag).matches()) {
        throw new InvalidDocumentException(
            "verifiedTag",
            verifiedTag,
            "is not a tag name: a letter or _, then letters, digits, _ or -, at most 100");
      }
      if (verifiedTag.equals("main")) {
        throw new InvalidDocumentException(
            "verifiedTag", verifiedTag, "is the table's main branch, not a tag name");
      }
      sensitiveColumns = Checks.identifiers("sensitiveColumns", sensitiveColumns, false);
    }

    /** The same section with other rules. */
    public Reconcile withRules(List<RuleSpec> replaced) {
      return new Reconcile(
          schedule,
          scheduleMode,
          futureTolerance,
          unprocessedFileGrace,
          sampleColumns,
          replaced,
          verifiedTag,
          sensitiveColumns);
    }

    /** A reconcile section that hides no column's values. */
    public Reconcile(
        String schedule,
        String scheduleMode,
        Duration futureTolerance,
        Duration unprocessedFileGrace,
        List<String> sampleColumns,
        List<RuleSpec> rules,
        String verifiedTag) {
      this(
          schedule,
          scheduleMode,
          futureTolerance,
          unprocessedFileGrace,
          sampleColumns,
          rules,
          verifiedTag,
          null);
    }

    /** The tag a passing FULL reconciliation moves, unless the contract turned it off. */
    public java.util.Optional<String> tag() {
      return verifiedTag.isEmpty()
          ? java.util.Optional.empty()
          : java.util.Optional.of(verifiedTag);
    }

    /** Every default, showing the key columns in samples. */
    public static Reconcile defaults(List<String> keyColumns) {
      return new Reconcile(null, null, null, null, keyColumns, null, null);
    }

    /** The rule of a kind with the default id, if configured. */
    public java.util.Optional<RuleSpec> rule(RuleKind kind) {
      return rules.stream().filter(r -> r.kind() == kind).findFirst();
    }
  }

  /** Builds a contract in code; {@link #build()} checks it as loading a file does. */
  public static final class Builder {
    private final String name;
    private String pipeline;
    private Raw raw;
    private final Map<String, ColumnType> columns = new LinkedHashMap<>();
    private List<String> keyColumns;
    private List<String> comparedColumns;
    private ChangeMarker changeMarker;
    private OperationMapping operation;
    private Curated curated;
    private String quarantineTable;
    private String tombstoneTable;
    private Reconcile reconcile;

    private Builder(String name) {
      this.name = name;
    }

    public Builder pipeline(String v) {
      pipeline = v;
      return this;
    }

    public Builder raw(String location, Layout layout) {
      raw = new Raw(location, null, layout);
      return this;
    }

    /** Declares a column; columns keep the order they are declared in. */
    public Builder column(String column, ColumnType type) {
      columns.put(column, type);
      return this;
    }

    public Builder keyColumns(String... v) {
      keyColumns = List.of(v);
      return this;
    }

    public Builder comparedColumns(String... v) {
      comparedColumns = List.of(v);
      return this;
    }

    public Builder changeMarker(String column, ChangeMarkerType type) {
      changeMarker = new ChangeMarker(column, type);
      return this;
    }

    public Builder operation(String column, List<String> upsert, List<String> delete) {
      operation = new OperationMapping(column, upsert, delete);
      return this;
    }

    public Builder curated(String table, String... partitionBy) {
      curated = new Curated(table, List.of(partitionBy));
      return this;
    }

    public Builder quarantineTable(String v) {
      quarantineTable = v;
      return this;
    }

    public Builder tombstoneTable(String v) {
      tombstoneTable = v;
      return this;
    }

    public Builder reconcile(Reconcile v) {
      reconcile = v;
      return this;
    }

    public DatasetContract build() {
      return new DatasetContract(
          name,
          pipeline,
          raw,
          columns,
          keyColumns,
          comparedColumns,
          changeMarker,
          operation,
          curated,
          quarantineTable,
          tombstoneTable,
          reconcile);
    }
  }
}
