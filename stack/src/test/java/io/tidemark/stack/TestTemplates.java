package io.tidemark.stack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.tidemark.model.alarms.AlarmDefinition;
import io.tidemark.model.alarms.AlarmTemplateReader;
import io.tidemark.model.alarms.ComparisonOperator;
import io.tidemark.model.alarms.TreatMissingData;
import io.tidemark.model.config.RuleKind;
import io.tidemark.model.metrics.Dimension;
import io.tidemark.model.metrics.Metric;
import io.tidemark.model.report.IngestMode;
import io.tidemark.model.testing.ProjectFiles;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The committed dashboards and alarms name only what the catalogue defines, and are current. */
class TestTemplates {
  private static final ObjectMapper MAPPER = new ObjectMapper();

  @Test
  void committedTemplatesAreWhatTheCatalogueGenerates() throws Exception {
    for (Map.Entry<String, String> e : TemplateGenerator.generate(ProjectFiles.root()).entrySet()) {
      Path file = ProjectFiles.root().resolve(e.getKey());
      assertThat(file).as("%s exists (run: mvn -pl stack exec:java)", e.getKey()).exists();
      assertThat(Files.readString(file))
          .as("%s is out of date: run mvn -pl stack exec:java", e.getKey())
          .isEqualTo(e.getValue());
    }
  }

  /**
   * The generic dashboard and alarm templates serve any dataset, so none of them names one by
   * default: deploying without a Dataset is refused by CloudFormation instead of watching the
   * demo's metrics. The raw dashboard body is the example contract's first dataset's.
   */
  @Test
  void theGenericTemplatesHaveNoDefaultDataset() throws Exception {
    for (String template :
        List.of(TemplateGenerator.DASHBOARD_TEMPLATE, TemplateGenerator.ALARMS_TEMPLATE)) {
      JsonNode dataset =
          MAPPER
              .readTree(ProjectFiles.root().resolve(template).toFile())
              .path("Parameters")
              .path("Dataset");
      assertThat(dataset.isObject()).as(template).isTrue();
      assertThat(dataset.has("Default")).as(template + " Dataset default").isFalse();
    }
    assertThatThrownBy(() -> TemplateGenerator.main(new String[] {"--body", "--pipeline", "p"}))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("--dataset");
  }

  @Test
  void everyCommittedTemplateConformsToTheCatalogue() throws Exception {
    List<Path> templates = ProjectFiles.templates();
    assertThat(templates)
        .extracting(p -> p.getFileName().toString())
        .contains(
            "tidemark-dashboard.json", "tidemark-dashboard-body.json", "tidemark-alarms.json");
    for (Path t : templates) {
      assertThat(CatalogueConformance.problems(MAPPER.readTree(t.toFile())))
          .as(t.toString())
          .isEmpty();
    }
  }

  /**
   * The stack holds, per dataset of the example contract, every alarm the generic alarm template
   * defines, with that dataset's Pipeline and Dataset, and a dashboard of its pair: both built by
   * the same catalogue code.
   */
  @Test
  void theStackHoldsEachDatasetsAlarmsAndDashboardFromTheCatalogue() throws Exception {
    JsonNode stack = MAPPER.readTree(ProjectFiles.root().resolve(StackTemplate.PATH).toFile());
    assertThat(CatalogueConformance.problems(stack)).isEmpty();
    List<AlarmDefinition> generic =
        AlarmTemplateReader.read(
            ProjectFiles.root().resolve(TemplateGenerator.ALARMS_TEMPLATE),
            Map.of("Pipeline", "crm", "Dataset", "customers"));
    List<AlarmDefinition> alarms = AlarmTemplateReader.read(stack, Map.of());
    assertThat(alarms).hasSize(2 * generic.size());
    for (List<String> pair : List.of(List.of("crm", "customers"), List.of("sales", "orders"))) {
      String pipeline = pair.get(0);
      String dataset = pair.get(1);
      String prefix = StackTemplate.logicalPrefix(dataset);
      List<AlarmDefinition> own =
          alarms.stream().filter(a -> a.logicalId().startsWith(prefix)).toList();
      assertThat(own)
          .extracting(a -> a.logicalId().substring(prefix.length()))
          .containsExactlyElementsOf(generic.stream().map(AlarmDefinition::logicalId).toList());
      for (AlarmDefinition a : own) {
        AlarmDefinition g =
            generic.stream()
                .filter(x -> (prefix + x.logicalId()).equals(a.logicalId()))
                .findFirst()
                .orElseThrow();
        assertThat(a.dimensions())
            .as(a.logicalId())
            .containsEntry(Dimension.PIPELINE, pipeline)
            .containsEntry(Dimension.DATASET, dataset)
            .hasSameSizeAs(g.dimensions());
        assertThat(a.alarmName())
            .isEqualTo(
                g.alarmName()
                    .replace(
                        "tidemark-crm-customers-", "tidemark-" + pipeline + "-" + dataset + "-"));
        assertThat(a.metric()).isEqualTo(g.metric());
        assertThat(a.threshold()).isEqualTo(g.threshold());
        assertThat(a.comparison()).isEqualTo(g.comparison());
      }
      JsonNode dashboard = stack.path("Resources").path(prefix + "Dashboard").path("Properties");
      assertThat(dashboard.path("DashboardName").asText())
          .isEqualTo("tidemark-" + pipeline + "-" + dataset);
      JsonNode body = MAPPER.readTree(dashboard.path("DashboardBody").path("Fn::Sub").asText());
      assertThat(body.path("widgets").get(0).path("properties").path("markdown").asText())
          .isEqualTo("# Tidemark: " + pipeline + " / " + dataset);
      assertThat(body.path("widgets").get(1).path("properties").path("metrics").get(0).toString())
          .contains("\"Pipeline\",\"" + pipeline + "\",\"Dataset\",\"" + dataset + "\"");
    }
  }

  @Test
  void aRenamedMetricInAScratchCopyIsCaught(@TempDir Path scratch) throws Exception {
    for (Path t : ProjectFiles.templates()) {
      String renamed =
          Files.readString(t)
              .replace("RuleStatus", "RuleState")
              .replace("RuleAlerting", "RuleAlarm");
      assertThat(renamed).as("%s names a renamed metric", t).isNotEqualTo(Files.readString(t));
      Path copy = scratch.resolve(t.getFileName());
      Files.writeString(copy, renamed);
      assertThat(CatalogueConformance.problems(MAPPER.readTree(copy.toFile())))
          .as(t.toString())
          .isNotEmpty()
          .allMatch(p -> p.contains("is not in the catalogue"));
    }
    String alarms =
        Files.readString(ProjectFiles.root().resolve(TemplateGenerator.ALARMS_TEMPLATE));
    assertThat(
            CatalogueConformance.problems(
                MAPPER.readTree(alarms.replace("\"RuleAlerting\"", "\"RuleState\""))))
        .contains("resource RuleMissingKeysFailing: metric 'RuleState' is not in the catalogue");
  }

  @Test
  void aRenamedOrMissingDimensionIsCaught() throws Exception {
    String body = Files.readString(ProjectFiles.root().resolve(TemplateGenerator.DASHBOARD_BODY));
    JsonNode renamed = MAPPER.readTree(body.replace("\"Dataset\"", "\"DataSet\""));
    assertThat(CatalogueConformance.problems(renamed))
        .contains(
            "dashboard body widget 1 'Incremental runs: records per run by kind': dimension 'DataSet' of RecordsInserted is not in the catalogue");

    String alarms =
        Files.readString(ProjectFiles.root().resolve(TemplateGenerator.ALARMS_TEMPLATE));
    JsonNode noRule =
        MAPPER.readTree(alarms.replace("\"Name\" : \"Rule\"", "\"Name\" : \"Pipeline\""));
    assertThat(CatalogueConformance.problems(noRule))
        .contains(
            "resource RuleCountMatchFailing: RuleAlerting has dimensions [Pipeline, Dataset] but the catalogue defines [Pipeline, Dataset, Rule]");
  }

  /**
   * CloudWatch matches an alarm's exact dimension set: an ingest alarm (or dashboard line) left
   * without its Mode would watch a series nothing publishes any more, and never fire.
   */
  @Test
  void anIngestAlarmOrLineWithoutItsModeIsCaught() throws Exception {
    String alarms =
        Files.readString(ProjectFiles.root().resolve(TemplateGenerator.ALARMS_TEMPLATE));
    JsonNode withoutMode = MAPPER.readTree(alarms);
    int removed = 0;
    for (JsonNode r : withoutMode.path("Resources")) {
      List<JsonNode> dimLists = new java.util.ArrayList<>();
      dimLists.add(r.path("Properties").path("Dimensions"));
      r.path("Properties")
          .path("Metrics")
          .forEach(m -> dimLists.add(m.path("MetricStat").path("Metric").path("Dimensions")));
      for (JsonNode dims : dimLists) {
        var it = dims.elements();
        while (it.hasNext()) {
          if (it.next().path("Name").asText().equals("Mode")) {
            it.remove();
            removed++;
          }
        }
      }
    }
    // run failed, no success, invalid ratio, watermark lag, unplaced entries, undeclared columns,
    // sweep failed, files missed, anomaly, and the full refresh's, backfill's, replay's and
    // maintenance's run failed.
    assertThat(removed).isEqualTo(13);
    List<String> problems = CatalogueConformance.problems(withoutMode);
    assertThat(problems)
        .hasSize(13)
        .contains(
            "resource IngestRunFailed: RunFailed has dimensions [Pipeline, Dataset] but the catalogue defines [Pipeline, Dataset, Mode]",
            "resource FilesMissedByLookback: FilesMissedByLookback has dimensions [Pipeline, Dataset] but the catalogue defines [Pipeline, Dataset, Mode]",
            "resource UnplacedEntries: UnplacedEntries has dimensions [Pipeline, Dataset] but the catalogue defines [Pipeline, Dataset, Mode]",
            "resource ChangedRecordsAnomaly metric changed: RecordsChanged has dimensions [Pipeline, Dataset] but the catalogue defines [Pipeline, Dataset, Mode]");

    String body = Files.readString(ProjectFiles.root().resolve(TemplateGenerator.DASHBOARD_BODY));
    JsonNode noModeLines = MAPPER.readTree(body.replace(", \"Mode\", \"INCREMENTAL\"", ""));
    assertThat(CatalogueConformance.problems(noModeLines))
        .contains(
            "dashboard body widget 1 'Incremental runs: records per run by kind': RecordsInserted has dimensions [Pipeline, Dataset] but the catalogue defines [Pipeline, Dataset, Mode]");
  }

  @Test
  void aModeThatIsNoIngestModeIsCaught() throws Exception {
    String alarms =
        Files.readString(ProjectFiles.root().resolve(TemplateGenerator.ALARMS_TEMPLATE));
    assertThat(alarms).contains("\"Value\" : \"SWEEP\"");
    assertThat(
            CatalogueConformance.problems(
                MAPPER.readTree(alarms.replace("\"Value\" : \"SWEEP\"", "\"Value\" : \"Sweep\""))))
        .contains(
            "resource SweepRunFailed: Mode 'Sweep' of RunFailed is not an ingest mode [INCREMENTAL, FULL_REFRESH, BACKFILL, REPLAY_QUARANTINE, SWEEP, MAINTAIN]");
  }

  @Test
  void theDashboardShowsTheNightlyRunsPerModeAndTheSweep() throws Exception {
    JsonNode body =
        MAPPER.readTree(
            Files.readString(ProjectFiles.root().resolve(TemplateGenerator.DASHBOARD_BODY)));
    Map<String, List<String>> modesByWidget = new java.util.LinkedHashMap<>();
    for (JsonNode w : body.path("widgets")) {
      List<String> modes = new java.util.ArrayList<>();
      for (JsonNode line : w.path("properties").path("metrics")) {
        for (int k = 2; k + 1 < line.size(); k += 2) {
          if (line.get(k).asText().equals("Mode")) {
            modes.add(line.get(1).asText() + "/" + line.get(k + 1).asText());
          }
        }
      }
      modesByWidget.put(w.path("properties").path("title").asText(), modes);
    }
    assertThat(modesByWidget.get("Incremental runs: records per run by kind"))
        .isNotEmpty()
        .allMatch(m -> m.endsWith("/INCREMENTAL"));
    assertThat(modesByWidget.get("Sweep: files the lookback missed / files new"))
        .containsExactly("FilesMissedByLookback/SWEEP", "FilesNew/SWEEP");
    assertThat(modesByWidget.get("Failed runs by mode (incl. rejected batches)"))
        .containsExactly(
            java.util.Arrays.stream(IngestMode.values())
                .map(m -> "RunFailed/" + m.name())
                .toArray(String[]::new));
    assertThat(modesByWidget.get("Reconciliation violations (keys)")).isEmpty();
  }

  /**
   * With a topic, the default notifies through the pair's composite alarm only (one page for a bad
   * night, however many rules broke); {@code AlarmNotifications=each-alarm} notifies through every
   * alarm and not the composite; without a topic nothing notifies.
   */
  @Test
  void theCompositeAlarmOrEveryAlarmNotifiesAsAlarmNotificationsSays() throws Exception {
    JsonNode template =
        new ObjectMapper()
            .readTree(ProjectFiles.root().resolve(TemplateGenerator.ALARMS_TEMPLATE).toFile());
    String topic = "arn:aws:sns:us-east-1:123456789012:tidemark-alarms";
    for (String notifications : List.of("dataset", "each-alarm", "none")) {
      Map<String, String> refs = new java.util.HashMap<>();
      template
          .path("Parameters")
          .fields()
          .forEachRemaining(p -> refs.put(p.getKey(), p.getValue().path("Default").asText()));
      refs.putAll(Map.of("Pipeline", "crm", "Dataset", "orders"));
      refs.put("AlarmTopicArn", notifications.equals("none") ? "" : topic);
      refs.put(
          TemplateGenerator.NOTIFICATIONS_PARAMETER,
          notifications.equals("none") ? "dataset" : notifications);
      // What Ref returns for an alarm: its name.
      Intrinsics names = new Intrinsics(refs, Map.of(), template);
      template
          .path("Resources")
          .fields()
          .forEachRemaining(
              e -> {
                if (e.getValue().path("Type").asText().equals("AWS::CloudWatch::Alarm")) {
                  refs.put(
                      e.getKey(),
                      names.resolve(e.getValue().path("Properties").path("AlarmName")).asText());
                }
              });
      Intrinsics cfnWould = new Intrinsics(refs, Map.of(), template);
      Map<String, List<String>> actions = new java.util.LinkedHashMap<>();
      template
          .path("Resources")
          .fields()
          .forEachRemaining(
              e -> {
                JsonNode p = cfnWould.resolve(e.getValue().path("Properties"));
                List<String> a = new java.util.ArrayList<>();
                p.path("AlarmActions").forEach(n -> a.add(n.asText()));
                actions.put(e.getKey(), a);
                if (!a.isEmpty()) {
                  assertThat(p.path("OKActions").toString()).isEqualTo("[\"" + topic + "\"]");
                }
              });
      JsonNode composite = template.path("Resources").path(TemplateGenerator.DATASET_ALARM);
      assertThat(composite.path("Type").asText()).isEqualTo("AWS::CloudWatch::CompositeAlarm");
      assertThat(cfnWould.resolve(composite.path("Properties")).path("AlarmRule").asText())
          .startsWith("ALARM(\"tidemark-crm-orders-rule-count-match-failing\") OR ALARM(")
          .endsWith(" OR ALARM(\"tidemark-crm-orders-changed-records-anomaly\")");
      List<String> alarms =
          actions.keySet().stream()
              .filter(k -> !k.equals(TemplateGenerator.DATASET_ALARM))
              .toList();
      assertThat(alarms).hasSize(RuleKind.values().length + 15);
      switch (notifications) {
        case "dataset" -> {
          assertThat(actions.get(TemplateGenerator.DATASET_ALARM)).containsExactly(topic);
          assertThat(alarms).allSatisfy(k -> assertThat(actions.get(k)).as(k).isEmpty());
        }
        case "each-alarm" -> {
          assertThat(actions.get(TemplateGenerator.DATASET_ALARM)).isEmpty();
          assertThat(alarms)
              .allSatisfy(k -> assertThat(actions.get(k)).as(k).containsExactly(topic));
        }
        default -> assertThat(actions.values()).allSatisfy(a -> assertThat(a).isEmpty());
      }
    }
  }

  @Test
  void theAlarmTemplateDefinesTheAlarmsTheIssueAsksFor() {
    List<AlarmDefinition> alarms =
        AlarmTemplateReader.read(
            ProjectFiles.root().resolve(TemplateGenerator.ALARMS_TEMPLATE),
            Map.of("Pipeline", "crm", "Dataset", "orders", "InvalidRatioThreshold", "0.1"));
    Map<String, AlarmDefinition> byId =
        alarms.stream().collect(Collectors.toMap(AlarmDefinition::logicalId, a -> a));

    for (RuleKind kind : RuleKind.values()) {
      AlarmDefinition a = byId.get("Rule" + TemplateGenerator.pascal(kind.id()) + "Failing");
      assertThat(a).as("alarm for rule %s", kind.id()).isNotNull();
      assertThat(a.metric()).isEqualTo(Metric.RULE_ALERTING);
      assertThat(a.dimensions())
          .isEqualTo(
              Map.of(
                  Dimension.PIPELINE,
                  "crm",
                  Dimension.DATASET,
                  "orders",
                  Dimension.RULE,
                  kind.id()));
      assertThat(a.threshold()).contains(1.0);
      assertThat(a.comparison()).isEqualTo(ComparisonOperator.GreaterThanOrEqualToThreshold);
    }
    assertThat(byId.get("IngestRunFailed").metric()).isEqualTo(Metric.RUN_FAILED);
    // The nightly-health alarms watch the incremental runs; the sweep has its own two.
    for (String id :
        List.of(
            "IngestRunFailed",
            "NoSuccessfulIngestRun",
            "InvalidRatioHigh",
            "WatermarkNotAdvancing",
            "ChangedRecordsAnomaly")) {
      assertThat(byId.get(id).dimensions())
          .as(id)
          .isEqualTo(
              Map.of(
                  Dimension.PIPELINE,
                  "crm",
                  Dimension.DATASET,
                  "orders",
                  Dimension.MODE,
                  "INCREMENTAL"));
    }
    AlarmDefinition sweepFailed = byId.get("SweepRunFailed");
    assertThat(sweepFailed.metric()).isEqualTo(Metric.RUN_FAILED);
    assertThat(sweepFailed.dimensions()).containsEntry(Dimension.MODE, "SWEEP").hasSize(3);
    assertThat(sweepFailed.treatMissingData()).isEqualTo(TreatMissingData.NOT_BREACHING);
    // A failed full refresh, backfill or replay alarms on its own mode.
    for (String mode : List.of("FULL_REFRESH", "BACKFILL", "REPLAY_QUARANTINE")) {
      AlarmDefinition failed =
          alarms.stream()
              .filter(a -> a.metric() == Metric.RUN_FAILED)
              .filter(a -> mode.equals(a.dimensions().get(Dimension.MODE)))
              .findFirst()
              .orElseThrow(() -> new AssertionError("no run-failed alarm on Mode=" + mode));
      assertThat(failed.comparison()).isEqualTo(ComparisonOperator.GreaterThanOrEqualToThreshold);
      assertThat(failed.treatMissingData()).isEqualTo(TreatMissingData.NOT_BREACHING);
    }
    assertThat(byId.get("FullRefreshRunFailed").alarmName())
        .isEqualTo("tidemark-crm-orders-full-refresh-run-failed");
    AlarmDefinition missed = byId.get("FilesMissedByLookback");
    assertThat(missed.metric()).isEqualTo(Metric.FILES_MISSED_BY_LOOKBACK);
    assertThat(missed.alarmName()).isEqualTo("tidemark-crm-orders-files-missed-by-lookback");
    assertThat(missed.dimensions()).containsEntry(Dimension.MODE, "SWEEP").hasSize(3);
    assertThat(missed.threshold()).contains(0.0);
    assertThat(missed.comparison()).isEqualTo(ComparisonOperator.GreaterThanThreshold);
    assertThat(missed.treatMissingData()).isEqualTo(TreatMissingData.NOT_BREACHING);
    assertThat(missed.description()).contains("Widen --lookback");
    assertThat(alarms)
        .filteredOn(a -> a.metric().emitter() == io.tidemark.model.metrics.Emitter.RECONCILER)
        .allMatch(a -> !a.dimensions().containsKey(Dimension.MODE));
    AlarmDefinition noRun = byId.get("NoSuccessfulIngestRun");
    assertThat(noRun.treatMissingData()).isEqualTo(TreatMissingData.BREACHING);
    assertThat(noRun.periodSeconds()).isEqualTo(86_400);
    assertThat(noRun.comparison()).isEqualTo(ComparisonOperator.LessThanThreshold);
    assertThat(byId.get("InvalidRatioHigh").threshold()).contains(0.1);
    assertThat(byId.get("WatermarkNotAdvancing").metric()).isEqualTo(Metric.WATERMARK_LAG);
    AlarmDefinition anomaly = byId.get("ChangedRecordsAnomaly");
    assertThat(anomaly.anomalyBandWidth()).contains(2.0);
    assertThat(anomaly.threshold()).isEqualTo(Optional.empty());
    assertThat(anomaly.metric()).isEqualTo(Metric.RECORDS_CHANGED);
    assertThat(anomaly.alarmName()).isEqualTo("tidemark-crm-orders-changed-records-anomaly");
  }

  @Test
  void theReaderRefusesAnAlarmOnAnUnknownMetric() throws Exception {
    String alarms =
        Files.readString(ProjectFiles.root().resolve(TemplateGenerator.ALARMS_TEMPLATE));
    JsonNode broken = MAPPER.readTree(alarms.replace("\"RunFailed\"", "\"RunFail\""));
    assertThatThrownBy(() -> AlarmTemplateReader.read(broken, Map.of("Dataset", "orders")))
        .hasMessage("Cannot read alarm IngestRunFailed: metric 'RunFail' is not in the catalogue");
  }

  @Test
  void aDashboardBodyForAnotherPairNamesThatPair() throws Exception {
    JsonNode body =
        MAPPER.readTree(TemplateGenerator.dashboardBody("Tidemark", "erp", "orders", "eu-west-1"));
    assertThat(CatalogueConformance.problems(body)).isEmpty();
    assertThat(body.toString())
        .contains("\"erp\"", "\"orders\"", "eu-west-1")
        .doesNotContain("customers");
  }
}
