package io.tidemark.model.contract.athena;

import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One external Parquet table over a dataset's raw folder, as Athena reads it: its columns with
 * their Hive types, and, when the layout's folders name days, its partition keys with Athena's
 * partition projection (no crawler, no {@code MSCK REPAIR}: a query's predicate on a key names the
 * folders it reads) and the template that places a partition's folder.
 *
 * @param kind what the table reads
 * @param name the table's name in the Glue database
 * @param description what it reads, in words
 * @param location the dataset's raw folder, without a trailing {@code /}
 * @param columns the data columns, lower-case name to Hive type, in contract order
 * @param partitionKeys the partition keys in folder order, each with its projection; empty when the
 *     table is not partitioned
 * @param locationTemplate Athena's {@code storage.location.template}, ending in {@code /}; null
 *     when the table is not partitioned
 */
public record AthenaRawTable(
    Kind kind,
    String name,
    String description,
    String location,
    Map<String, String> columns,
    List<PartitionProjection> partitionKeys,
    String locationTemplate) {

  /** The type of every partition key: its value is folder text. */
  public static final String PARTITION_KEY_TYPE = "string";

  /** What a table reads. */
  public enum Kind {
    /** The date folders, one partition per folder. */
    PROJECTED,
    /** One folder of files, not partitioned (DMS without date folders, arrival order). */
    FLAT,
    /**
     * Every file of a DMS folder with date folders, read recursively: the full load lying in the
     * folder and the CDC files in the date folders; {@code "$path"} tells them apart.
     */
    ALL
  }

  public AthenaRawTable {
    Objects.requireNonNull(kind, "kind is null");
    Objects.requireNonNull(name, "name is null");
    Objects.requireNonNull(description, "description is null");
    Objects.requireNonNull(location, "location is null");
    columns = Collections.unmodifiableMap(new LinkedHashMap<>(columns));
    partitionKeys = List.copyOf(partitionKeys);
    if (partitionKeys.isEmpty() != (locationTemplate == null)) {
      throw new IllegalArgumentException(
          "Cannot define raw table " + name + ": a location template goes with partition keys");
    }
  }

  /** Whether the table has partition keys. */
  public boolean partitioned() {
    return !partitionKeys.isEmpty();
  }

  /** The partition keys' names, in folder order. */
  public List<String> partitionKeyNames() {
    return partitionKeys.stream().map(PartitionProjection::key).toList();
  }

  /**
   * The table's parameters beyond Glue's markers, in the order the stack writes them: projection
   * on, each key's projection, the location template; none for a table without partition keys.
   *
   * @param text how a plain value is written
   * @param range how a date key's range is written: from a projection start the deployment chooses
   */
  public <T> Map<String, T> parameters(
      Function<String, T> text, Function<DateProjection, T> range) {
    Map<String, T> out = new LinkedHashMap<>();
    if (!partitioned()) {
      return out;
    }
    out.put("projection.enabled", text.apply("true"));
    for (PartitionProjection p : partitionKeys) {
      String at = "projection." + p.key() + ".";
      if (p instanceof DateProjection d) {
        out.put(at + "type", text.apply("date"));
        out.put(at + "format", text.apply(d.format()));
        out.put(at + "range", range.apply(d));
        out.put(at + "interval", text.apply("1"));
        out.put(at + "interval.unit", text.apply(d.intervalUnit()));
      } else if (p instanceof IntegerProjection i) {
        out.put(at + "type", text.apply("integer"));
        out.put(at + "range", text.apply(i.range()));
        out.put(at + "digits", text.apply(Integer.toString(i.digits())));
      }
    }
    out.put("storage.location.template", text.apply(locationTemplate));
    return out;
  }

  /** {@link #parameters(Function, Function)} with date ranges from {@code projectionStart}. */
  public Map<String, String> parameters(LocalDate projectionStart) {
    Objects.requireNonNull(projectionStart, "projectionStart is null");
    return parameters(v -> v, d -> d.range(projectionStart));
  }

  /**
   * The partition key values of a file, from its path below {@link #location}; null when the path
   * lies outside the partition folders (a DMS full-load file beside them), and empty for a table
   * without partition keys.
   *
   * @param relativePath the file's path below the location, {@code /} separated
   */
  public Map<String, String> partitionValues(String relativePath) {
    if (!partitioned()) {
      return Map.of();
    }
    String relativeTemplate = locationTemplate.substring(location.length() + 1);
    StringBuilder regex = new StringBuilder();
    List<String> keys = new ArrayList<>();
    Matcher m = Pattern.compile("\\$\\{([a-z0-9_]+)}").matcher(relativeTemplate);
    int last = 0;
    while (m.find()) {
      regex.append(Pattern.quote(relativeTemplate.substring(last, m.start())));
      PartitionProjection p = projection(m.group(1));
      regex.append('(').append(p.valueRegex()).append(')');
      keys.add(p.key());
      last = m.end();
    }
    regex.append(Pattern.quote(relativeTemplate.substring(last)));
    Matcher path = Pattern.compile(regex.toString()).matcher(relativePath);
    if (!path.lookingAt()) {
      return null;
    }
    Map<String, String> out = new LinkedHashMap<>();
    for (int i = 0; i < keys.size(); i++) {
      out.put(keys.get(i), path.group(i + 1));
    }
    return out;
  }

  private PartitionProjection projection(String key) {
    return partitionKeys.stream()
        .filter(p -> p.key().equals(key))
        .findFirst()
        .orElseThrow(
            () -> new IllegalStateException("Template of " + name + " names no key " + key));
  }
}
