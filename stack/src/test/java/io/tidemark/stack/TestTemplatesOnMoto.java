package io.tidemark.stack;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.tidemark.model.alarms.AlarmDefinition;
import io.tidemark.model.alarms.AlarmTemplateReader;
import io.tidemark.model.config.RuleKind;
import io.tidemark.model.metrics.Dimension;
import io.tidemark.model.testing.MotoServer;
import io.tidemark.model.testing.ProjectFiles;
import java.nio.file.Files;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Tags;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.cloudformation.CloudFormationClient;
import software.amazon.awssdk.services.cloudformation.model.Parameter;
import software.amazon.awssdk.services.cloudformation.model.StackStatus;
import software.amazon.awssdk.services.cloudwatch.CloudWatchClient;
import software.amazon.awssdk.services.cloudwatch.model.MetricAlarm;
import software.amazon.awssdk.services.cloudwatch.model.MetricDataQuery;
import software.amazon.awssdk.services.cloudwatch.model.PutMetricAlarmRequest;

/**
 * The templates go through the real moto_server: stacks are created by its CloudFormation, and the
 * dashboard and alarms are read back with GetDashboard and DescribeAlarms.
 *
 * <p>moto 5.2's CloudFormation implements {@code AWS::CloudWatch::Dashboard} but not {@code
 * AWS::CloudWatch::Alarm} (it skips the resource with a warning). So after creating the alarm
 * stack, the test puts each alarm of the template through PutMetricAlarm, property for property, as
 * CloudFormation would, and reads them back. cfn-lint ({@link TestCfnLint}) checks the alarm
 * resources against CloudFormation's own schema.
 */
@Tags({@Tag("aws"), @Tag("cfnlint")})
class TestTemplatesOnMoto {
  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final Map<String, String> PARAMS =
      Map.of("Pipeline", "crm", "Dataset", "orders", "InvalidRatioThreshold", "0.2");

  private static MotoServer moto;
  private static CloudFormationClient cfn;
  private static CloudWatchClient cloudWatch;

  @BeforeAll
  static void start() {
    moto = MotoServer.start();
    var creds =
        StaticCredentialsProvider.create(
            AwsBasicCredentials.create(MotoServer.ACCESS_KEY, MotoServer.SECRET_KEY));
    cfn =
        CloudFormationClient.builder()
            .endpointOverride(moto.endpoint())
            .region(Region.of(MotoServer.REGION))
            .credentialsProvider(creds)
            .build();
    cloudWatch =
        CloudWatchClient.builder()
            .endpointOverride(moto.endpoint())
            .region(Region.of(MotoServer.REGION))
            .credentialsProvider(creds)
            .build();
  }

  @AfterAll
  static void stop() {
    if (cfn != null) {
      cfn.close();
      cloudWatch.close();
    }
    if (moto != null) {
      moto.close();
    }
  }

  private static StackStatus createStack(String name, String templatePath) throws Exception {
    String body = Files.readString(ProjectFiles.root().resolve(templatePath));
    List<String> declared = new ArrayList<>();
    MAPPER.readTree(body).path("Parameters").fieldNames().forEachRemaining(declared::add);
    List<Parameter> params =
        PARAMS.entrySet().stream()
            .filter(e -> declared.contains(e.getKey()))
            .map(
                e ->
                    Parameter.builder()
                        .parameterKey(e.getKey())
                        .parameterValue(e.getValue())
                        .build())
            .toList();
    cfn.createStack(r -> r.stackName(name).templateBody(body).parameters(params));
    Instant deadline = Instant.now().plus(Duration.ofSeconds(30));
    StackStatus status;
    do {
      status = cfn.describeStacks(r -> r.stackName(name)).stacks().get(0).stackStatus();
    } while (status == StackStatus.CREATE_IN_PROGRESS && Instant.now().isBefore(deadline));
    return status;
  }

  @Test
  void theDashboardStackCreatesTheDashboardForThePair() throws Exception {
    assertThat(createStack("tidemark-dashboard", TemplateGenerator.DASHBOARD_TEMPLATE))
        .isEqualTo(StackStatus.CREATE_COMPLETE);

    String body =
        cloudWatch.getDashboard(r -> r.dashboardName("tidemark-crm-orders")).dashboardBody();
    JsonNode dashboard = MAPPER.readTree(body);

    assertThat(CatalogueConformance.problems(dashboard)).isEmpty();
    assertThat(body).doesNotContain("${");
    List<String> titles = new ArrayList<>();
    dashboard.path("widgets").forEach(w -> titles.add(w.path("properties").path("title").asText()));
    assertThat(titles)
        .contains(
            "Incremental runs: records per run by kind",
            "Incremental runs: invalid ratio",
            "Incremental runs: watermark lag (seconds)",
            "Run duration by mode (seconds)",
            "Incremental runs: outcome",
            "Failed runs by mode (incl. rejected batches)",
            "Sweep: files the lookback missed / files new",
            "Reconciliation rule status (1 = failing)",
            "Reconciliation violations (keys)",
            "Bytes scanned by reconciliation");
    JsonNode firstLine = dashboard.path("widgets").get(1).path("properties").path("metrics").get(0);
    assertThat(firstLine.get(0).asText()).isEqualTo("Tidemark");
    assertThat(
            List.of(
                firstLine.get(2).asText(),
                firstLine.get(3).asText(),
                firstLine.get(4).asText(),
                firstLine.get(5).asText(),
                firstLine.get(6).asText(),
                firstLine.get(7).asText()))
        .containsExactly("Pipeline", "crm", "Dataset", "orders", "Mode", "INCREMENTAL");
    assertThat(dashboard.path("widgets").get(1).path("properties").path("region").asText())
        .isEqualTo(MotoServer.REGION);
  }

  @Test
  void theAlarmStackIsAcceptedAndEveryAlarmReadsBackAsDefined() throws Exception {
    assertThat(createStack("tidemark-alarms", TemplateGenerator.ALARMS_TEMPLATE))
        .isEqualTo(StackStatus.CREATE_COMPLETE);

    List<AlarmDefinition> defined =
        AlarmTemplateReader.read(
            ProjectFiles.root().resolve(TemplateGenerator.ALARMS_TEMPLATE), PARAMS);
    for (AlarmDefinition a : defined) {
      cloudWatch.putMetricAlarm(asCloudFormationWould(a));
    }

    Map<String, MetricAlarm> alarms =
        cloudWatch
            .describeAlarms(r -> r.alarmNamePrefix("tidemark-crm-orders-"))
            .metricAlarms()
            .stream()
            .collect(Collectors.toMap(MetricAlarm::alarmName, a -> a));
    // Per rule; 6 nightly incremental, 2 sweep, 3 operator runs and maintenance failed, 2
    // reconciler, the anomaly.
    assertThat(alarms).hasSize(RuleKind.values().length + 15);

    MetricAlarm scanned = alarms.get("tidemark-crm-orders-bytes-scanned-high");
    assertThat(scanned.metricName()).isEqualTo("BytesScanned");
    assertThat(scanned.statistic()).hasToString("Sum");
    assertThat(scanned.period()).isEqualTo(86_400);
    assertThat(scanned.threshold())
        .isEqualTo((double) TemplateGenerator.MAX_BYTES_SCANNED_PER_DAY_DEFAULT);
    assertThat(scanned.comparisonOperatorAsString()).isEqualTo("GreaterThanThreshold");

    MetricAlarm missing = alarms.get("tidemark-crm-orders-rule-missing-keys-failing");
    assertThat(missing.metricName()).isEqualTo("RuleAlerting");
    assertThat(missing.namespace()).isEqualTo("Tidemark");
    assertThat(missing.dimensions())
        .extracting(d -> d.name() + "=" + d.value())
        .containsExactlyInAnyOrder("Pipeline=crm", "Dataset=orders", "Rule=missing_keys");
    assertThat(missing.threshold()).isEqualTo(1.0);
    assertThat(missing.comparisonOperatorAsString()).isEqualTo("GreaterThanOrEqualToThreshold");

    MetricAlarm noRun = alarms.get("tidemark-crm-orders-no-successful-ingest-run");
    assertThat(noRun.metricName()).isEqualTo("RunSucceeded");
    assertThat(noRun.treatMissingData()).isEqualTo("breaching");
    assertThat(noRun.period()).isEqualTo(86_400);
    assertThat(noRun.comparisonOperatorAsString()).isEqualTo("LessThanThreshold");

    MetricAlarm invalid = alarms.get("tidemark-crm-orders-invalid-ratio-high");
    assertThat(invalid.metricName()).isEqualTo("InvalidRatio");
    assertThat(invalid.threshold()).isEqualTo(0.2);
    assertThat(invalid.comparisonOperatorAsString()).isEqualTo("GreaterThanThreshold");

    MetricAlarm failed = alarms.get("tidemark-crm-orders-ingest-run-failed");
    assertThat(failed.metricName()).isEqualTo("RunFailed");
    assertThat(failed.dimensions())
        .extracting(d -> d.name() + "=" + d.value())
        .containsExactlyInAnyOrder("Pipeline=crm", "Dataset=orders", "Mode=INCREMENTAL");

    MetricAlarm sweepFailed = alarms.get("tidemark-crm-orders-sweep-run-failed");
    assertThat(sweepFailed.metricName()).isEqualTo("RunFailed");
    assertThat(sweepFailed.dimensions())
        .extracting(d -> d.name() + "=" + d.value())
        .containsExactlyInAnyOrder("Pipeline=crm", "Dataset=orders", "Mode=SWEEP");

    MetricAlarm missed = alarms.get("tidemark-crm-orders-files-missed-by-lookback");
    assertThat(missed.metricName()).isEqualTo("FilesMissedByLookback");
    assertThat(missed.dimensions())
        .extracting(d -> d.name() + "=" + d.value())
        .containsExactlyInAnyOrder("Pipeline=crm", "Dataset=orders", "Mode=SWEEP");
    assertThat(missed.threshold()).isEqualTo(0.0);
    assertThat(missed.comparisonOperatorAsString()).isEqualTo("GreaterThanThreshold");
    assertThat(missed.treatMissingData()).isEqualTo("notBreaching");
    assertThat(alarms.get("tidemark-crm-orders-watermark-not-advancing").metricName())
        .isEqualTo("WatermarkLag");

    MetricAlarm anomaly = alarms.get("tidemark-crm-orders-changed-records-anomaly");
    assertThat(anomaly.thresholdMetricId()).isEqualTo("band");
    assertThat(anomaly.comparisonOperatorAsString())
        .isEqualTo("LessThanLowerOrGreaterThanUpperThreshold");
    assertThat(anomaly.metrics())
        .extracting(
            q -> q.expression() != null ? q.expression() : q.metricStat().metric().metricName())
        .containsExactly("RecordsChanged", "ANOMALY_DETECTION_BAND(changed, 2)");
  }

  /** The PutMetricAlarm call CloudFormation makes for an {@code AWS::CloudWatch::Alarm}. */
  static PutMetricAlarmRequest asCloudFormationWould(AlarmDefinition a) {
    var dims =
        a.dimensions().entrySet().stream()
            .map(
                e ->
                    software.amazon.awssdk.services.cloudwatch.model.Dimension.builder()
                        .name(e.getKey().cloudWatchName())
                        .value(e.getValue())
                        .build())
            .toList();
    var b =
        PutMetricAlarmRequest.builder()
            .alarmName(a.alarmName())
            .alarmDescription(a.description())
            .evaluationPeriods(a.evaluationPeriods())
            .datapointsToAlarm(a.datapointsToAlarm())
            .comparisonOperator(a.comparison().name())
            .treatMissingData(a.treatMissingData().cloudWatchName());
    if (a.anomalyDetection()) {
      double width = a.anomalyBandWidth().orElseThrow();
      String w = width == Math.rint(width) ? Long.toString((long) width) : Double.toString(width);
      return b.thresholdMetricId("band")
          .metrics(
              MetricDataQuery.builder()
                  .id("changed")
                  .returnData(true)
                  .metricStat(
                      s ->
                          s.metric(
                                  m ->
                                      m.namespace("Tidemark")
                                          .metricName(a.metric().metricName())
                                          .dimensions(dims))
                              .period(a.periodSeconds())
                              .stat(a.statistic()))
                  .build(),
              MetricDataQuery.builder()
                  .id("band")
                  .returnData(true)
                  .expression("ANOMALY_DETECTION_BAND(changed, " + w + ")")
                  .build())
          .build();
    }
    return b.namespace("Tidemark")
        .metricName(a.metric().metricName())
        .dimensions(dims)
        .statistic(a.statistic())
        .period(a.periodSeconds())
        .threshold(a.threshold().orElseThrow())
        .build();
  }

  @Test
  void perRuleAlarmsCoverEveryRuleKind() {
    List<AlarmDefinition> defined =
        AlarmTemplateReader.read(
            ProjectFiles.root().resolve(TemplateGenerator.ALARMS_TEMPLATE), PARAMS);
    assertThat(defined.stream().flatMap(a -> a.rule().stream()))
        .containsExactlyInAnyOrder(
            java.util.Arrays.stream(RuleKind.values()).map(RuleKind::id).toArray(String[]::new));
    assertThat(defined).allMatch(a -> a.dimensions().get(Dimension.PIPELINE).equals("crm"));
  }
}
