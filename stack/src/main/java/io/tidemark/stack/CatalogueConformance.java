package io.tidemark.stack;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.tidemark.model.metrics.Dimension;
import io.tidemark.model.metrics.Metric;
import io.tidemark.model.report.IngestMode;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Checks that a dashboard or alarm document names only metrics and dimensions the catalogue
 * defines, and gives every metric exactly the dimensions the catalogue says it carries (CloudWatch
 * only finds a metric by its full dimension set: an ingest alarm without its Mode would watch a
 * series nothing publishes, and never fire). A Mode value must name an {@link IngestMode}. Works on
 * a CloudFormation template (alarms and dashboards inside) and on a raw dashboard body.
 */
public final class CatalogueConformance {
  private static final ObjectMapper MAPPER = new ObjectMapper();

  private CatalogueConformance() {}

  /** Every violation found, each naming where it is; empty when the document conforms. */
  public static List<String> problems(JsonNode document) {
    List<String> problems = new ArrayList<>();
    if (document.has("widgets")) {
      checkDashboardBody("dashboard body", document, problems);
    }
    Iterator<Map.Entry<String, JsonNode>> resources = document.path("Resources").fields();
    while (resources.hasNext()) {
      Map.Entry<String, JsonNode> r = resources.next();
      String type = r.getValue().path("Type").asText();
      JsonNode props = r.getValue().path("Properties");
      String where = "resource " + r.getKey();
      if (type.equals("AWS::CloudWatch::Alarm")) {
        if (props.has("MetricName")) {
          checkMetric(
              where,
              props.get("MetricName").asText(),
              dimensionNames(props.get("Dimensions")),
              problems);
        }
        for (JsonNode m : props.path("Metrics")) {
          JsonNode metric = m.path("MetricStat").path("Metric");
          if (!metric.isMissingNode()) {
            checkMetric(
                where + " metric " + m.path("Id").asText(),
                metric.path("MetricName").asText(),
                dimensionNames(metric.get("Dimensions")),
                problems);
          }
        }
      } else if (type.equals("AWS::CloudWatch::Dashboard")) {
        JsonNode body = props.path("DashboardBody");
        String text = body.has("Fn::Sub") ? body.get("Fn::Sub").asText() : body.asText();
        try {
          checkDashboardBody(where, MAPPER.readTree(text), problems);
        } catch (IOException e) {
          problems.add(where + ": DashboardBody is not JSON: " + e.getMessage());
        }
      } else if (type.equals("AWS::CloudWatch::AnomalyDetector")) {
        checkMetric(
            where,
            props.path("MetricName").asText(),
            dimensionNames(props.get("Dimensions")),
            problems);
      }
    }
    return problems;
  }

  private static void checkDashboardBody(String where, JsonNode body, List<String> problems) {
    int i = 0;
    for (JsonNode widget : body.path("widgets")) {
      String w =
          where + " widget " + i++ + " '" + widget.path("properties").path("title").asText() + "'";
      JsonNode previous = null;
      for (JsonNode line : widget.path("properties").path("metrics")) {
        if (line.size() > 0 && line.get(0).isObject()) {
          previous = line;
          continue; // a metric-math expression line names no metric itself
        }
        List<String> items = new ArrayList<>();
        for (int k = 0; k < line.size() && !line.get(k).isObject(); k++) {
          String v = line.get(k).asText();
          if (v.equals(".") && previous != null && k < previous.size()) {
            v = previous.get(k).asText();
          }
          items.add(v);
        }
        previous = line;
        if (items.size() < 2 || items.size() % 2 != 0) {
          problems.add(w + ": metric line " + line + " is not [namespace, name, dim, value, ...]");
          continue;
        }
        Map<String, String> dims = new LinkedHashMap<>();
        for (int k = 2; k + 1 < items.size(); k += 2) {
          dims.put(items.get(k), items.get(k + 1));
        }
        checkMetric(w, items.get(1), dims, problems);
      }
    }
  }

  /** Dimension name to value; the value is null when it is not literal text (e.g. a Ref). */
  private static Map<String, String> dimensionNames(JsonNode dims) {
    Map<String, String> names = new LinkedHashMap<>();
    if (dims != null) {
      for (JsonNode d : dims) {
        JsonNode v = d.path("Value");
        names.put(d.path("Name").asText(), v.isTextual() ? v.asText() : null);
      }
    }
    return names;
  }

  private static void checkMetric(
      String where, String name, Map<String, String> dimValues, List<String> problems) {
    Set<String> dims = dimValues.keySet();
    var metric = Metric.byName(name);
    if (metric.isEmpty()) {
      problems.add(where + ": metric '" + name + "' is not in the catalogue");
      return;
    }
    Set<String> expected =
        metric.get().dimensions().stream()
            .map(Dimension::cloudWatchName)
            .collect(Collectors.toCollection(LinkedHashSet::new));
    for (String d : dims) {
      if (Dimension.byCloudWatchName(d).isEmpty()) {
        problems.add(where + ": dimension '" + d + "' of " + name + " is not in the catalogue");
      }
    }
    String mode = dimValues.get(Dimension.MODE.cloudWatchName());
    if (mode != null && Arrays.stream(IngestMode.values()).noneMatch(m -> m.name().equals(mode))) {
      problems.add(
          where
              + ": Mode '"
              + mode
              + "' of "
              + name
              + " is not an ingest mode "
              + Arrays.toString(IngestMode.values()));
    }
    if (!dims.equals(expected)) {
      problems.add(
          where
              + ": "
              + name
              + " has dimensions "
              + dims
              + " but the catalogue defines "
              + expected);
    }
  }
}
