package io.tidemark.reconcile.alarms;

import com.fasterxml.jackson.databind.JsonNode;
import io.tidemark.model.alarms.AlarmDefinition;
import io.tidemark.model.alarms.AlarmTemplateReader;
import io.tidemark.model.alarms.RuleAlarm;
import io.tidemark.model.config.RuleSpec;
import io.tidemark.model.json.Json;
import io.tidemark.model.metrics.Dimension;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Reads the alarm definitions of {@code alerts/tidemark-alarms.json}, the same template
 * CloudFormation deploys, with the {@code Pipeline} and {@code Dataset} parameters set per dataset.
 * A copy of the template is bundled at build time, so the service and CloudWatch agree on one set
 * of definitions.
 */
public final class AlarmDefinitions {
  /** The classpath location of the bundled template. */
  public static final String BUNDLED = "/alerts/tidemark-alarms.json";

  private AlarmDefinitions() {}

  /** The bundled template. */
  public static JsonNode bundled() {
    try (InputStream in = AlarmDefinitions.class.getResourceAsStream(BUNDLED)) {
      if (in == null) {
        throw new IllegalStateException(
            "Cannot find the bundled alarm template " + BUNDLED + " on the class path");
      }
      return Json.mapper().readTree(in);
    } catch (IOException e) {
      throw new UncheckedIOException(
          "Cannot read the bundled alarm template: " + e.getMessage(), e);
    }
  }

  /** A template file. */
  public static JsonNode read(Path template) {
    try {
      return Json.mapper().readTree(Files.readString(template));
    } catch (IOException e) {
      throw new UncheckedIOException(
          "Cannot read alarm template " + template + ": " + e.getMessage(), e);
    }
  }

  /** The definitions for one dataset of one pipeline. */
  public static List<AlarmDefinition> forDataset(
      JsonNode template, String pipeline, String dataset) {
    return AlarmTemplateReader.read(template, Map.of("Pipeline", pipeline, "Dataset", dataset));
  }

  /**
   * The same, and for each of {@code rules} under an id of its own ({@link RuleAlarm#ownAlarms}),
   * its kind's rule alarm watching that id, named as a dataset's stack names it.
   */
  public static List<AlarmDefinition> forDataset(
      JsonNode template, String pipeline, String dataset, List<RuleSpec> rules) {
    List<AlarmDefinition> out = new ArrayList<>(forDataset(template, pipeline, dataset));
    for (RuleSpec rule : RuleAlarm.ownAlarms(rules)) {
      String kindId = RuleAlarm.logicalId(rule.kind().id());
      out.stream()
          .filter(a -> a.logicalId().equals(kindId))
          .findFirst()
          .ifPresent(a -> out.add(watching(a, rule)));
    }
    return out;
  }

  /** A kind's rule alarm, watching the rule of that kind with {@code rule}'s id. */
  private static AlarmDefinition watching(AlarmDefinition kindAlarm, RuleSpec rule) {
    String logicalId = RuleAlarm.logicalId(rule.id());
    String kindSuffix = RuleAlarm.kebab(kindAlarm.logicalId());
    String name = kindAlarm.alarmName();
    String prefix =
        name.endsWith(kindSuffix) ? name.substring(0, name.length() - kindSuffix.length()) : "";
    Map<Dimension, String> dimensions = new java.util.EnumMap<>(Dimension.class);
    dimensions.putAll(kindAlarm.dimensions());
    dimensions.put(Dimension.RULE, rule.id());
    return new AlarmDefinition(
        logicalId,
        prefix + RuleAlarm.kebab(logicalId),
        RuleAlarm.description(rule.id(), rule.kind()),
        kindAlarm.metric(),
        dimensions,
        kindAlarm.statistic(),
        kindAlarm.periodSeconds(),
        kindAlarm.evaluationPeriods(),
        kindAlarm.datapointsToAlarm(),
        kindAlarm.threshold(),
        kindAlarm.comparison(),
        kindAlarm.treatMissingData(),
        kindAlarm.anomalyBandWidth());
  }
}
