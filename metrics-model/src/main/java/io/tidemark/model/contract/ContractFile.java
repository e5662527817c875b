package io.tidemark.model.contract;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.tidemark.model.config.Aggregate;
import io.tidemark.model.config.CatalogSpec;
import io.tidemark.model.config.ChangeMarker;
import io.tidemark.model.config.ChangeMarkerType;
import io.tidemark.model.config.DynamicThreshold;
import io.tidemark.model.config.RuleKind;
import io.tidemark.model.config.RuleSpec;
import io.tidemark.model.config.Severity;
import io.tidemark.model.config.ToleranceMode;
import io.tidemark.model.contract.layout.DateFolders;
import io.tidemark.model.contract.layout.Layout;
import io.tidemark.model.json.InvalidDocumentException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * A contract file: one or more datasets ({@link DatasetContract}) and, optionally, the Iceberg
 * catalog their curated tables live in. It is YAML (JSON is YAML too), described by the JSON Schema
 * {@value #SCHEMA_RESOURCE} so editors complete it, and read through this one class by the ingest
 * job, the reconciler and the stack generator.
 *
 * <pre>{@code
 * version: 1
 * catalog: {warehouse: warehouse}            # optional; relative paths: to this file's folder
 * datasets:
 *   orders:
 *     raw: {location: raw/orders, layout: {kind: dms}}
 *     columns: {order_id: string, line_nr: int, amount: decimal(12,2), seq: long, Op: string}
 *     key-columns: [order_id, line_nr]
 *     compared-columns: [amount]
 *     change-marker: {column: seq, type: sequence}
 *     operation: {column: Op, upsert: [I, U], delete: [D]}
 *     curated: {table: curated.orders}
 * }</pre>
 *
 * A file that cannot work is refused before anything runs, with the file, the key and the value:
 * {@code Cannot load contract orders.yaml: datasets.orders.key-columns[1] 'line_nr' is not a
 * column}. Unknown keys are refused the same way, naming the keys that are known.
 *
 * @param source where the file was read from, for messages
 * @param catalog the catalog the file declares, if any
 * @param datasets the datasets by name, in file order
 */
public record ContractFile(
    String source, Optional<CatalogSpec> catalog, Map<String, DatasetContract> datasets) {

  /** The version this reader understands. */
  public static final int VERSION = 1;

  /** The JSON Schema of contract files, a class-path resource of this module. */
  public static final String SCHEMA_RESOURCE = "/io/tidemark/model/contract/contract.schema.json";

  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
  private static final Pattern SCHEME = Pattern.compile("[A-Za-z][A-Za-z0-9+.-]*:.*");

  public ContractFile {
    Objects.requireNonNull(source, "source is null");
    Objects.requireNonNull(catalog, "catalog is null");
    datasets = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(datasets));
  }

  /**
   * Reads a contract file from the local file system; relative locations in it are resolved against
   * its folder.
   *
   * @throws ContractException naming the file and what is wrong
   */
  public static ContractFile load(Path file) {
    Path abs = file.toAbsolutePath().normalize();
    String text;
    try {
      text = Files.readString(abs, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new ContractException(
          "Cannot load contract "
              + file
              + ": "
              + e.getClass().getSimpleName()
              + ": "
              + e.getMessage(),
          e);
    }
    return parse(file.toString(), text, abs.getParent().toString());
  }

  /**
   * Reads a contract from its text.
   *
   * @param source the file's name or URI, for messages
   * @param text the YAML or JSON text
   * @param base the folder (a path or a URI) relative locations are resolved against; null to
   *     refuse relative locations
   * @throws ContractException naming the source, the key and the value
   */
  public static ContractFile parse(String source, String text, String base) {
    JsonNode root;
    try {
      root = YAML.readTree(text);
    } catch (JsonProcessingException e) {
      throw new ContractException(
          "Cannot load contract "
              + name(source)
              + ": not YAML or JSON: "
              + e.getOriginalMessage()
              + locationOf(e),
          e);
    }
    return new Reader(source, base).file(root);
  }

  /** The dataset of that name. */
  public DatasetContract dataset(String name) {
    DatasetContract d = datasets.get(name);
    if (d == null) {
      throw new ContractException(
          "Cannot use dataset '"
              + name
              + "': contract "
              + name(source)
              + " declares "
              + datasets.keySet());
    }
    return d;
  }

  private static String name(String source) {
    int slash = Math.max(source.lastIndexOf('/'), source.lastIndexOf('\\'));
    return slash < 0 ? source : source.substring(slash + 1);
  }

  private static String locationOf(JsonProcessingException e) {
    return e.getLocation() == null
        ? ""
        : " (line "
            + e.getLocation().getLineNr()
            + ", column "
            + e.getLocation().getColumnNr()
            + ")";
  }

  /** A location as given, or resolved against {@code base} when it is relative. */
  static String resolve(String location, String base) {
    if (location.startsWith("/") || SCHEME.matcher(location).matches() || base == null) {
      return location;
    }
    if (SCHEME.matcher(base).matches() && !base.startsWith("file:")) {
      return (base.endsWith("/") ? base : base + "/") + location;
    }
    return Path.of(base).resolve(location).normalize().toString();
  }

  /** Turns the tree into records, keeping the path of every value for messages. */
  private static final class Reader {
    private final String source;
    private final String base;

    Reader(String source, String base) {
      this.source = source;
      this.base = base;
    }

    ContractFile file(JsonNode root) {
      ObjectNode top = object(root, "");
      keys(top, "", "version", "catalog", "datasets");
      JsonNode version = top.get("version");
      if (version == null || !version.isInt() || version.intValue() != VERSION) {
        throw fail("version", version == null ? null : version.asText(), "must be " + VERSION);
      }
      Optional<CatalogSpec> catalog =
          top.has("catalog") ? Optional.of(catalog(top.get("catalog"))) : Optional.empty();
      ObjectNode datasets = object(top.get("datasets"), "datasets");
      if (datasets.isEmpty()) {
        throw fail("datasets", null, "must declare at least one dataset");
      }
      Map<String, DatasetContract> out = new LinkedHashMap<>();
      for (Iterator<Map.Entry<String, JsonNode>> it = datasets.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> e = it.next();
        out.put(e.getKey(), dataset(e.getKey(), e.getValue(), "datasets." + e.getKey()));
      }
      // A reference to a dataset of this file is checked here; one to a dataset of another file,
      // by the service that reconciles both.
      for (DatasetContract d : out.values()) {
        for (RuleSpec rule : d.reconcile().rules()) {
          DatasetContract referenced =
              rule.references() == null ? null : out.get(rule.references());
          if (referenced != null) {
            build(
                "datasets." + d.name(),
                () -> {
                  d.checkReference(rule, referenced);
                  return null;
                });
          }
        }
      }
      return new ContractFile(source, catalog, out);
    }

    private CatalogSpec catalog(JsonNode node) {
      ObjectNode c = object(node, "catalog");
      keys(c, "catalog", "name", "warehouse", "properties");
      Map<String, String> props = new LinkedHashMap<>();
      if (c.has("properties")) {
        ObjectNode p = object(c.get("properties"), "catalog.properties");
        p.fields().forEachRemaining(e -> props.put(e.getKey(), e.getValue().asText()));
      }
      String warehouse = text(c, "warehouse", "catalog");
      if (warehouse != null) {
        props.put("warehouse", resolve(warehouse, base));
      }
      if (!props.containsKey("catalog-impl") && !props.containsKey("type")) {
        CatalogSpec local = CatalogSpec.localJdbc(props.getOrDefault("warehouse", ""));
        local.properties().forEach(props::putIfAbsent);
      }
      return build("catalog", () -> new CatalogSpec(text(c, "name", "catalog"), props));
    }

    private DatasetContract dataset(String name, JsonNode node, String path) {
      ObjectNode d = object(node, path);
      keys(
          d,
          path,
          "pipeline",
          "raw",
          "columns",
          "key-columns",
          "compared-columns",
          "change-marker",
          "operation",
          "curated",
          "quarantine-table",
          "tombstone-table",
          "reconcile");
      DatasetContract.Raw raw = raw(d.get("raw"), path + ".raw");
      Map<String, ColumnType> columns = columns(d.get("columns"), path + ".columns");
      ChangeMarker marker = marker(d.get("change-marker"), path + ".change-marker");
      OperationMapping operation =
          d.has("operation") ? operation(d.get("operation"), path + ".operation") : null;
      DatasetContract.Curated curated = curated(d.get("curated"), path + ".curated");
      List<String> keys = strings(d, "key-columns", path);
      DatasetContract.Reconcile reconcile =
          d.has("reconcile") ? reconcile(d.get("reconcile"), path + ".reconcile", keys) : null;
      return build(
          path,
          () ->
              new DatasetContract(
                  name,
                  text(d, "pipeline", path),
                  raw,
                  columns,
                  keys,
                  strings(d, "compared-columns", path),
                  marker,
                  operation,
                  curated,
                  text(d, "quarantine-table", path),
                  text(d, "tombstone-table", path),
                  reconcile));
    }

    private DatasetContract.Raw raw(JsonNode node, String path) {
      ObjectNode r = object(node, path);
      keys(r, path, "location", "format", "layout");
      String location = text(r, "location", path);
      Layout layout = layout(r.get("layout"), path + ".layout");
      return build(
          path,
          () ->
              new DatasetContract.Raw(
                  location == null ? null : resolve(location, base),
                  text(r, "format", path),
                  layout));
    }

    private Layout layout(JsonNode node, String path) {
      ObjectNode l = object(node, path);
      String kind = text(l, "kind", path);
      if (kind == null || !Layout.isKind(kind)) {
        throw fail(path + ".kind", kind, "must be one of " + Layout.KINDS);
      }
      return switch (kind.toLowerCase(Locale.ROOT)) {
        case Layout.HIVE -> {
          keys(l, path, "kind", "column", "date-format");
          String column = required(l, "column", path);
          String format = text(l, "date-format", path);
          yield folders(
              path + ".date-format",
              () -> Layout.Dated.hive(column, format == null ? "yyyy-MM-dd" : format));
        }
        case Layout.DATE_PATH -> {
          keys(l, path, "kind", "pattern");
          String pattern = required(l, "pattern", path);
          yield folders(path + ".pattern", () -> Layout.Dated.datePath(pattern));
        }
        case Layout.DMS -> {
          keys(l, path, "kind", "date-folders");
          String pattern = text(l, "date-folders", path);
          yield pattern == null
              ? new Layout.Dms(null)
              : folders(path + ".date-folders", () -> new Layout.Dms(new DateFolders(pattern)));
        }
        default -> {
          keys(l, path, "kind");
          yield new Layout.Arrival();
        }
      };
    }

    private Layout folders(String path, java.util.function.Supplier<Layout> make) {
      try {
        return make.get();
      } catch (IllegalArgumentException e) {
        throw fail(path, null, e.getMessage());
      }
    }

    private Map<String, ColumnType> columns(JsonNode node, String path) {
      ObjectNode c = object(node, path);
      Map<String, ColumnType> out = new LinkedHashMap<>();
      for (Iterator<Map.Entry<String, JsonNode>> it = c.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> e = it.next();
        if (!e.getValue().isTextual()) {
          throw fail(
              path + "." + e.getKey(),
              e.getValue().toString(),
              "must be a type name (" + ColumnType.NAMES + ")");
        }
        try {
          out.put(e.getKey(), ColumnType.parse(e.getValue().asText()));
        } catch (IllegalArgumentException ex) {
          throw fail(
              path + "." + e.getKey(),
              e.getValue().asText(),
              "is not a column type (" + ColumnType.NAMES + ")");
        }
      }
      return out;
    }

    private ChangeMarker marker(JsonNode node, String path) {
      ObjectNode m = object(node, path);
      keys(m, path, "column", "type");
      String column = required(m, "column", path);
      String type = required(m, "type", path);
      ChangeMarkerType t =
          switch (type.toLowerCase(Locale.ROOT)) {
            case "timestamp" -> ChangeMarkerType.TIMESTAMP;
            case "sequence" -> ChangeMarkerType.LONG;
            default -> throw fail(path + ".type", type, "must be timestamp or sequence");
          };
      return build(path, () -> new ChangeMarker(column, t));
    }

    private OperationMapping operation(JsonNode node, String path) {
      ObjectNode o = object(node, path);
      keys(o, path, "column", "upsert", "delete");
      return build(
          path,
          () ->
              new OperationMapping(
                  text(o, "column", path), strings(o, "upsert", path), strings(o, "delete", path)));
    }

    private DatasetContract.Curated curated(JsonNode node, String path) {
      ObjectNode c = object(node, path);
      keys(c, path, "table", "partition-by");
      return build(
          path,
          () ->
              new DatasetContract.Curated(
                  text(c, "table", path), strings(c, "partition-by", path)));
    }

    private DatasetContract.Reconcile reconcile(JsonNode node, String path, List<String> keys) {
      ObjectNode r = object(node, path);
      keys(
          r,
          path,
          "schedule",
          "schedule-mode",
          "future-tolerance",
          "unprocessed-file-grace",
          "sample-columns",
          "rules",
          "verified-tag",
          "sensitive-columns");
      List<RuleSpec> rules = r.has("rules") ? rules(r.get("rules"), path + ".rules") : null;
      List<String> sample = r.has("sample-columns") ? strings(r, "sample-columns", path) : keys;
      return build(
          path,
          () ->
              new DatasetContract.Reconcile(
                  text(r, "schedule", path),
                  text(r, "schedule-mode", path),
                  duration(r, "future-tolerance", path),
                  duration(r, "unprocessed-file-grace", path),
                  sample,
                  rules,
                  text(r, "verified-tag", path),
                  strings(r, "sensitive-columns", path)));
    }

    /** Every kind with its defaults, changed or disabled by the file's entries. */
    private List<RuleSpec> rules(JsonNode node, String path) {
      ObjectNode r = object(node, path);
      Map<String, RuleSpec> out = new LinkedHashMap<>();
      for (RuleSpec d : RuleSpec.defaults()) {
        out.put(d.id(), d);
      }
      for (Iterator<Map.Entry<String, JsonNode>> it = r.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> e = it.next();
        String at = path + "." + e.getKey();
        ObjectNode spec = object(e.getValue(), at);
        keys(
            spec,
            at,
            "kind",
            "threshold",
            "tolerance",
            "severity",
            "sample-size",
            "enabled",
            "dynamic",
            "columns",
            "aggregates",
            "sql",
            "references");
        JsonNode enabled = spec.get("enabled");
        if (enabled != null && !enabled.isBoolean()) {
          throw fail(at + ".enabled", enabled.asText(), "must be true or false");
        }
        if (enabled != null && !enabled.booleanValue()) {
          out.remove(e.getKey());
          continue;
        }
        out.put(e.getKey(), build(at, () -> rule(e.getKey(), spec, at)));
      }
      return List.copyOf(out.values());
    }

    private RuleSpec rule(String id, ObjectNode spec, String at) {
      String kind = spec.has("kind") ? spec.get("kind").asText() : id;
      Double threshold = spec.has("threshold") ? number(spec, "threshold", at) : null;
      String tolerance = spec.has("tolerance") ? spec.get("tolerance").asText() : null;
      String severity = spec.has("severity") ? spec.get("severity").asText() : null;
      Integer sampleSize =
          spec.has("sample-size") ? (int) (double) number(spec, "sample-size", at) : null;
      return new RuleSpec(
          id,
          RuleKind.fromId(kind),
          threshold,
          tolerance == null ? null : enumOf(ToleranceMode.class, tolerance, "tolerance"),
          severity == null ? null : enumOf(Severity.class, severity, "severity"),
          sampleSize,
          spec.has("dynamic") ? dynamic(spec.get("dynamic"), at + ".dynamic") : null,
          strings(spec, "columns", at),
          aggregates(spec, at),
          spec.has("sql") ? spec.get("sql").asText() : null,
          spec.has("references") ? spec.get("references").asText() : null);
    }

    private List<Aggregate> aggregates(ObjectNode spec, String at) {
      List<String> ids = strings(spec, "aggregates", at);
      if (ids == null) {
        return null;
      }
      List<Aggregate> out = new ArrayList<>();
      for (int i = 0; i < ids.size(); i++) {
        String id = ids.get(i);
        out.add(build(at, () -> Aggregate.fromId(id)));
      }
      return out;
    }

    /** {@code dynamic: {last: N, stddevs: k}} or {@code {last: N, percent-of-mean: p}}. */
    private DynamicThreshold dynamic(JsonNode node, String at) {
      ObjectNode d = object(node, at);
      keys(d, at, "last", "stddevs", "percent-of-mean");
      if (!d.has("last")) {
        throw fail(at + ".last", null, "is required: how many past runs to learn from");
      }
      double last = number(d, "last", at);
      if (last != Math.rint(last)) {
        throw fail(at + ".last", d.get("last").asText(), "must be a whole number");
      }
      if (d.has("stddevs") == d.has("percent-of-mean")) {
        throw fail(
            at,
            null,
            "needs exactly one of stddevs (mean + k standard deviations) and percent-of-mean");
      }
      return build(
          at,
          () ->
              new DynamicThreshold(
                  (int) last,
                  d.has("stddevs") ? number(d, "stddevs", at) : null,
                  d.has("percent-of-mean") ? number(d, "percent-of-mean", at) : null));
    }

    private static <E extends Enum<E>> E enumOf(Class<E> type, String value, String field) {
      for (E e : type.getEnumConstants()) {
        if (e.name().equalsIgnoreCase(value)) {
          return e;
        }
      }
      List<String> names = new ArrayList<>();
      for (E e : type.getEnumConstants()) {
        names.add(e.name().toLowerCase(Locale.ROOT));
      }
      throw new InvalidDocumentException(field, value, "must be one of " + names);
    }

    private static Double number(ObjectNode o, String key, String path) {
      JsonNode n = o.get(key);
      if (!n.isNumber()) {
        throw new InvalidDocumentException(key, n.asText(), "must be a number");
      }
      return n.doubleValue();
    }

    private Duration duration(ObjectNode o, String key, String path) {
      String v = text(o, key, path);
      if (v == null) {
        return null;
      }
      try {
        return Duration.parse(v);
      } catch (DateTimeParseException e) {
        throw fail(path + "." + key, v, "is not an ISO-8601 duration (e.g. PT1H, P2D)");
      }
    }

    /** Builds a record, turning its complaint into one about the file's key at {@code path}. */
    private <T> T build(String path, java.util.function.Supplier<T> make) {
      try {
        return make.get();
      } catch (InvalidDocumentException e) {
        String field = e.field() == null ? "" : kebab(e.field());
        throw fail(field.isEmpty() ? path : path + "." + field, e.value(), e.reason());
      }
    }

    private ObjectNode object(JsonNode node, String path) {
      if (node == null || node.isNull() || node.isMissingNode()) {
        throw fail(path.isEmpty() ? "(the file)" : path, null, "is required");
      }
      if (!node.isObject()) {
        throw fail(
            path.isEmpty() ? "(the file)" : path, node.asText(), "must be a mapping of keys");
      }
      return (ObjectNode) node;
    }

    private void keys(ObjectNode o, String path, String... known) {
      Set<String> allowed = Set.of(known);
      for (Iterator<String> it = o.fieldNames(); it.hasNext(); ) {
        String k = it.next();
        if (!allowed.contains(k)) {
          throw fail(
              path.isEmpty() ? k : path + "." + k,
              null,
              "is not a key here (known: " + new TreeSet<>(allowed) + ")");
        }
      }
    }

    private String text(ObjectNode o, String key, String path) {
      JsonNode n = o.get(key);
      if (n == null || n.isNull()) {
        return null;
      }
      if (!n.isValueNode()) {
        throw fail(path + "." + key, n.toString(), "must be text");
      }
      return n.asText();
    }

    private String required(ObjectNode o, String key, String path) {
      String v = text(o, key, path);
      if (v == null) {
        throw fail(path + "." + key, null, "is required");
      }
      return v;
    }

    private List<String> strings(ObjectNode o, String key, String path) {
      JsonNode n = o.get(key);
      if (n == null || n.isNull()) {
        return null;
      }
      if (!n.isArray()) {
        throw fail(path + "." + key, n.asText(), "must be a list");
      }
      List<String> out = new ArrayList<>();
      for (int i = 0; i < n.size(); i++) {
        JsonNode v = n.get(i);
        if (!v.isValueNode() || v.isNull()) {
          throw fail(path + "." + key + "[" + i + "]", v.toString(), "must be text");
        }
        out.add(v.asText());
      }
      return out;
    }

    private ContractException fail(String path, Object value, String reason) {
      String shown = value == null ? "" : " " + InvalidDocumentException.quote(value);
      return new ContractException(
          "Cannot load contract " + name(source) + ": " + path + shown + " " + reason);
    }

    /**
     * A record's field path in the file's words: {@code keyColumns[1]} is {@code key-columns[1]};
     * what follows {@code columns.} is a column name and stays as it is.
     */
    static String kebab(String field) {
      StringBuilder out = new StringBuilder();
      boolean column = false;
      for (String part : field.split("\\.", -1)) {
        if (out.length() > 0) {
          out.append('.');
        }
        out.append(
            column ? part : part.replaceAll("([a-z0-9])([A-Z])", "$1-$2").toLowerCase(Locale.ROOT));
        column = part.equals("columns");
      }
      return out.toString();
    }
  }
}
