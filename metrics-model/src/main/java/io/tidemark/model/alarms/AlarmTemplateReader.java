package io.tidemark.model.alarms;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.tidemark.model.metrics.Dimension;
import io.tidemark.model.metrics.Metric;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads the {@code AWS::CloudWatch::Alarm} resources of a CloudFormation template (JSON) into
 * {@link AlarmDefinition}s, resolving {@code Ref} and {@code Fn::Sub} against the template's
 * parameters. CloudWatch evaluates the same definitions in AWS, so the reconciler's local
 * evaluation and CloudWatch agree on one set of definitions.
 */
public final class AlarmTemplateReader {
  public static final String ALARM_TYPE = "AWS::CloudWatch::Alarm";

  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final Pattern SUB = Pattern.compile("\\$\\{([A-Za-z0-9:]+)}");
  private static final Pattern BAND =
      Pattern.compile("\\s*ANOMALY_DETECTION_BAND\\(\\s*(\\w+)\\s*(?:,\\s*([0-9.]+)\\s*)?\\)\\s*");

  private AlarmTemplateReader() {}

  /**
   * Reads every alarm of a template.
   *
   * @param parameters values overriding the template's parameter defaults, e.g. {@code Pipeline}
   * @throws IllegalArgumentException naming the alarm and property when the template cannot be
   *     read, or names a metric or dimension the catalogue does not define
   */
  public static List<AlarmDefinition> read(Path template, Map<String, String> parameters) {
    try {
      return read(MAPPER.readTree(Files.readString(template)), parameters);
    } catch (IOException e) {
      throw new UncheckedIOException(
          "Cannot read alarm template " + template + ": " + e.getMessage(), e);
    }
  }

  public static List<AlarmDefinition> read(JsonNode template, Map<String, String> parameters) {
    Map<String, String> params = parameterValues(template, parameters);
    List<AlarmDefinition> out = new ArrayList<>();
    template
        .path("Resources")
        .fields()
        .forEachRemaining(
            e -> {
              if (ALARM_TYPE.equals(e.getValue().path("Type").asText())) {
                out.add(alarm(e.getKey(), e.getValue().path("Properties"), params));
              }
            });
    return out;
  }

  /** The template's parameter defaults, overridden by the given values, plus pseudo parameters. */
  public static Map<String, String> parameterValues(
      JsonNode template, Map<String, String> overrides) {
    Map<String, String> params = new HashMap<>();
    params.put("AWS::Region", "us-east-1");
    params.put("AWS::AccountId", "000000000000");
    template
        .path("Parameters")
        .fields()
        .forEachRemaining(
            e -> {
              JsonNode def = e.getValue().get("Default");
              if (def != null) {
                params.put(e.getKey(), def.asText());
              }
            });
    params.putAll(overrides);
    return params;
  }

  private static AlarmDefinition alarm(String id, JsonNode p, Map<String, String> params) {
    String name = resolve(id, "AlarmName", p.get("AlarmName"), params);
    String description =
        p.has("AlarmDescription")
            ? resolve(id, "AlarmDescription", p.get("AlarmDescription"), params)
            : "";
    int evaluationPeriods = integer(id, "EvaluationPeriods", p.get("EvaluationPeriods"), params);
    int datapoints =
        p.has("DatapointsToAlarm")
            ? integer(id, "DatapointsToAlarm", p.get("DatapointsToAlarm"), params)
            : evaluationPeriods;
    ComparisonOperator comparison =
        ComparisonOperator.valueOf(
            resolve(id, "ComparisonOperator", p.get("ComparisonOperator"), params));
    TreatMissingData missing =
        p.has("TreatMissingData")
            ? TreatMissingData.fromCloudWatchName(
                resolve(id, "TreatMissingData", p.get("TreatMissingData"), params))
            : TreatMissingData.MISSING;

    // A static alarm names its metric, statistic and period in its properties; an anomaly alarm in
    // its one MetricStat, and its threshold is a band over it.
    JsonNode metricNode = p;
    JsonNode statNode = p;
    String statKey = "Statistic";
    Double band = null;
    if (p.has("Metrics")) {
      JsonNode stat = null;
      String thresholdId = resolve(id, "ThresholdMetricId", p.get("ThresholdMetricId"), params);
      String bandOf = null;
      for (JsonNode m : p.get("Metrics")) {
        if (m.has("MetricStat")) {
          stat = m;
        } else if (m.path("Id").asText().equals(thresholdId) && m.has("Expression")) {
          Matcher matcher =
              BAND.matcher(resolve(id, "Metrics.Expression", m.get("Expression"), params));
          if (!matcher.matches()) {
            throw new IllegalArgumentException(
                "Cannot read alarm "
                    + id
                    + ": threshold metric "
                    + thresholdId
                    + " is not ANOMALY_DETECTION_BAND(...)");
          }
          bandOf = matcher.group(1);
          band = matcher.group(2) == null ? 2.0 : Double.parseDouble(matcher.group(2));
        }
      }
      if (stat == null || band == null || !stat.path("Id").asText().equals(bandOf)) {
        throw new IllegalArgumentException(
            "Cannot read alarm "
                + id
                + ": expected one MetricStat and an ANOMALY_DETECTION_BAND over it");
      }
      statNode = stat.get("MetricStat");
      metricNode = statNode.get("Metric");
      statKey = "Stat";
    }
    return new AlarmDefinition(
        id,
        name,
        description,
        metric(id, resolve(id, "MetricName", metricNode.get("MetricName"), params)),
        dimensions(id, metricNode.get("Dimensions"), params),
        resolve(id, statKey, statNode.get(statKey), params),
        integer(id, "Period", statNode.get("Period"), params),
        evaluationPeriods,
        datapoints,
        band != null
            ? Optional.empty()
            : Optional.of(number(id, "Threshold", p.get("Threshold"), params)),
        comparison,
        missing,
        Optional.ofNullable(band));
  }

  private static Metric metric(String id, String metricName) {
    return Metric.byName(metricName)
        .orElseThrow(
            () ->
                new IllegalArgumentException(
                    "Cannot read alarm "
                        + id
                        + ": metric '"
                        + metricName
                        + "' is not in the catalogue"));
  }

  private static Map<Dimension, String> dimensions(
      String id, JsonNode dims, Map<String, String> params) {
    Map<Dimension, String> out = new LinkedHashMap<>();
    if (dims != null) {
      for (JsonNode d : dims) {
        String dimName = resolve(id, "Dimensions.Name", d.get("Name"), params);
        Dimension dim =
            Dimension.byCloudWatchName(dimName)
                .orElseThrow(
                    () ->
                        new IllegalArgumentException(
                            "Cannot read alarm "
                                + id
                                + ": dimension '"
                                + dimName
                                + "' is not in the catalogue"));
        out.put(dim, resolve(id, "Dimensions.Value", d.get("Value"), params));
      }
    }
    return out;
  }

  private static int integer(String id, String prop, JsonNode node, Map<String, String> params) {
    double v = number(id, prop, node, params);
    if (v != Math.rint(v)) {
      throw new IllegalArgumentException(
          "Cannot read alarm " + id + ": " + prop + " " + v + " is not an integer");
    }
    return (int) v;
  }

  private static double number(String id, String prop, JsonNode node, Map<String, String> params) {
    String s = resolve(id, prop, node, params);
    try {
      return Double.parseDouble(s);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "Cannot read alarm " + id + ": " + prop + " '" + s + "' is not a number", e);
    }
  }

  /** Resolves a scalar, {@code Ref} or {@code Fn::Sub} to text. */
  static String resolve(String id, String prop, JsonNode node, Map<String, String> params) {
    if (node == null || node.isNull() || node.isMissingNode()) {
      throw new IllegalArgumentException("Cannot read alarm " + id + ": " + prop + " is missing");
    }
    if (node.isValueNode()) {
      return node.asText();
    }
    if (node.has("Ref")) {
      return param(id, prop, node.get("Ref").asText(), params);
    }
    if (node.has("Fn::Sub") && node.get("Fn::Sub").isTextual()) {
      Matcher m = SUB.matcher(node.get("Fn::Sub").asText());
      StringBuilder sb = new StringBuilder();
      while (m.find()) {
        m.appendReplacement(sb, Matcher.quoteReplacement(param(id, prop, m.group(1), params)));
      }
      m.appendTail(sb);
      return sb.toString();
    }
    throw new IllegalArgumentException(
        "Cannot read alarm " + id + ": " + prop + " uses an unsupported function " + node);
  }

  private static String param(String id, String prop, String name, Map<String, String> params) {
    String v = params.get(name);
    if (v == null) {
      throw new IllegalArgumentException(
          "Cannot read alarm " + id + ": " + prop + " refers to unknown parameter '" + name + "'");
    }
    return v;
  }
}
