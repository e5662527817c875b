package io.tidemark.ingest.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.model.metrics.Datum;
import io.tidemark.model.metrics.IngestRunMetrics;
import io.tidemark.model.metrics.Metric;
import io.tidemark.model.report.IngestMode;
import io.tidemark.model.report.IngestRunReport;
import io.tidemark.model.testing.AwsEmulator;
import io.tidemark.model.testing.AwsService;
import io.tidemark.model.testing.AwsSuite;
import io.tidemark.model.testing.AwsTest;
import io.tidemark.model.testing.Reports;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.cloudwatch.CloudWatchClient;
import software.amazon.awssdk.services.cloudwatch.model.Dimension;
import software.amazon.awssdk.services.cloudwatch.model.GetMetricDataResponse;
import software.amazon.awssdk.services.cloudwatch.model.MetricDataQuery;
import software.amazon.awssdk.services.cloudwatch.model.MetricDataResult;
import software.amazon.awssdk.services.cloudwatch.model.StandardUnit;

/**
 * Datums a run report produces, sent to a real AWS emulator (moto_server, and LocalStack where a
 * Docker engine exists) and read back with GetMetricData.
 */
@AwsSuite(services = AwsService.CLOUDWATCH)
@Tag("aws")
class TestCloudWatchPublisherOnMoto {
  private AwsEmulator aws;
  private CloudWatchClient reader;

  @BeforeEach
  void connect(AwsEmulator aws) {
    this.aws = aws;
    reader =
        CloudWatchClient.builder()
            .endpointOverride(aws.endpoint())
            .region(Region.of(aws.region()))
            .credentialsProvider(
                StaticCredentialsProvider.create(
                    AwsBasicCredentials.create(aws.accessKey(), aws.secretKey())))
            .build();
  }

  @AfterEach
  void closeReader() {
    if (reader != null) {
      reader.close();
    }
  }

  private CloudWatchPublisher publisher(String namespace) {
    return CloudWatchPublisher.create(
        CloudWatchPublisher.Settings.defaults()
            .withEndpoint(aws.endpoint())
            .withNamespace(namespace)
            .withStaticCredentials(aws.accessKey(), aws.secretKey()));
  }

  @AwsTest
  void runReportMetricsReadBackWithValuesUnitsAndDimensions() {
    Instant start = Instant.now().truncatedTo(ChronoUnit.SECONDS).minusSeconds(120);
    IngestRunReport report = Reports.succeeded(start);
    List<Datum> datums = IngestRunMetrics.datums(report);

    PublishResult result;
    try (CloudWatchPublisher publisher = publisher("TidemarkTest1")) {
      result = publisher.publish(datums);
    }

    assertThat(result.undelivered()).isEmpty();
    assertThat(result.sent()).isEqualTo(datums.size());
    Map<Metric, Double> expected =
        datums.stream().collect(Collectors.toMap(Datum::metric, Datum::value));
    assertThat(expected)
        .containsEntry(Metric.RECORDS_CHANGED, 1000.0)
        .containsEntry(Metric.RECORDS_INVALID, 10.0)
        .containsEntry(Metric.RUN_SUCCEEDED, 1.0)
        .containsEntry(Metric.RUN_FAILED, 0.0)
        .containsEntry(Metric.RUN_DURATION, 42.0)
        .containsEntry(
            Metric.WATERMARK_AFTER,
            (double) Instant.parse("2026-10-15T23:58:00Z").getEpochSecond());

    List<MetricDataQuery> queries = new java.util.ArrayList<>();
    List<Metric> metrics = List.copyOf(expected.keySet());
    for (int i = 0; i < metrics.size(); i++) {
      Metric m = metrics.get(i);
      queries.add(
          MetricDataQuery.builder()
              .id("m" + i)
              .metricStat(
                  s ->
                      s.metric(
                              mm ->
                                  mm.namespace("TidemarkTest1")
                                      .metricName(m.metricName())
                                      .dimensions(
                                          Dimension.builder().name("Pipeline").value("crm").build(),
                                          Dimension.builder()
                                              .name("Dataset")
                                              .value("customers")
                                              .build(),
                                          Dimension.builder()
                                              .name("Mode")
                                              .value("INCREMENTAL")
                                              .build()))
                          .period(60)
                          .stat("Maximum")
                          // moto filters by unit: a datum sent with another unit would not come
                          // back.
                          .unit(StandardUnit.fromValue(m.unit().cloudWatchName())))
              .build());
    }
    GetMetricDataResponse response =
        reader.getMetricData(
            r ->
                r.startTime(start.minus(Duration.ofMinutes(10)))
                    .endTime(Instant.now().plus(Duration.ofMinutes(10)))
                    .metricDataQueries(queries));

    Map<String, MetricDataResult> byId =
        response.metricDataResults().stream()
            .collect(Collectors.toMap(MetricDataResult::id, r -> r));
    for (int i = 0; i < metrics.size(); i++) {
      Metric m = metrics.get(i);
      assertThat(byId.get("m" + i).values())
          .as("%s read back from %s", m.metricName(), aws.backend().label())
          .containsExactly(expected.get(m));
    }
  }

  @AwsTest
  void aDatumWithTheWrongDimensionsIsReportedAndTheRestIsSent() {
    Instant at = Instant.now().truncatedTo(ChronoUnit.SECONDS);
    Datum good = Datum.ofRun(Metric.RECORDS_READ, "crm", "orders", IngestMode.BACKFILL, 5, at);
    Datum wrongDims = Datum.of(Metric.RULE_STATUS, "crm", "orders", 1, at);
    Datum noMode = Datum.of(Metric.RECORDS_READ, "crm", "orders", 5, at);
    Datum notFinite =
        Datum.ofRun(Metric.RUN_DURATION, "crm", "orders", IngestMode.BACKFILL, Double.NaN, at);

    PublishResult result;
    try (CloudWatchPublisher publisher = publisher("TidemarkTest2")) {
      result = publisher.publish(List.of(good, wrongDims, noMode, notFinite));
    }

    assertThat(result.sent()).isEqualTo(1);
    assertThat(result.undelivered())
        .extracting(PublishResult.Undelivered::datum)
        .containsExactly(wrongDims, noMode, notFinite);
    assertThat(result.undelivered().get(0).reason())
        .isEqualTo(
            "RuleStatus takes dimensions [PIPELINE, DATASET, RULE] but the datum has [PIPELINE, DATASET]");
    assertThat(result.undelivered().get(1).reason())
        .isEqualTo(
            "RecordsRead takes dimensions [PIPELINE, DATASET, MODE] but the datum has [PIPELINE, DATASET]");
    assertThat(result.undelivered().get(2).reason())
        .isEqualTo("value NaN of RunDuration is not finite");
    var listed = reader.listMetrics(r -> r.namespace("TidemarkTest2")).metrics();
    assertThat(listed)
        .extracting(software.amazon.awssdk.services.cloudwatch.model.Metric::metricName)
        .containsExactly("RecordsRead");
    assertThat(listed.get(0).dimensions())
        .extracting(d -> d.name() + "=" + d.value())
        .containsExactlyInAnyOrder("Pipeline=crm", "Dataset=orders", "Mode=BACKFILL");
  }

  @AwsTest
  void aSweepsCountsStayApartFromTheIncrementalsAndItsMissedFilesReadBack() {
    Instant start = Instant.now().truncatedTo(ChronoUnit.SECONDS).minusSeconds(120);
    PublishResult result;
    try (CloudWatchPublisher publisher = publisher("TidemarkTest3")) {
      List<Datum> datums = new java.util.ArrayList<>();
      datums.addAll(IngestRunMetrics.datums(Reports.succeeded(start)));
      datums.addAll(IngestRunMetrics.datums(Reports.inMode(start, IngestMode.SWEEP, 4)));
      result = publisher.publish(datums);
    }
    assertThat(result.undelivered()).isEmpty();

    List<MetricDataQuery> queries =
        List.of(
            query("incr", "RecordsChanged", "INCREMENTAL", StandardUnit.COUNT),
            query("sweep", "RecordsChanged", "SWEEP", StandardUnit.COUNT),
            query("missed", "FilesMissedByLookback", "SWEEP", StandardUnit.COUNT),
            query("missedIncr", "FilesMissedByLookback", "INCREMENTAL", StandardUnit.COUNT));
    Map<String, MetricDataResult> byId =
        reader
            .getMetricData(
                r ->
                    r.startTime(start.minus(Duration.ofMinutes(10)))
                        .endTime(Instant.now().plus(Duration.ofMinutes(10)))
                        .metricDataQueries(queries))
            .metricDataResults()
            .stream()
            .collect(Collectors.toMap(MetricDataResult::id, r -> r));
    // Each mode's series holds its own run only: the sweep's 1000 never add to the incremental's.
    assertThat(byId.get("incr").values()).containsExactly(1000.0);
    assertThat(byId.get("sweep").values()).containsExactly(1000.0);
    assertThat(byId.get("missed").values()).containsExactly(4.0);
    assertThat(byId.get("missedIncr").values()).isEmpty();
  }

  private static MetricDataQuery query(String id, String metric, String mode, StandardUnit unit) {
    return MetricDataQuery.builder()
        .id(id)
        .metricStat(
            s ->
                s.metric(
                        m ->
                            m.namespace("TidemarkTest3")
                                .metricName(metric)
                                .dimensions(
                                    Dimension.builder().name("Pipeline").value("crm").build(),
                                    Dimension.builder().name("Dataset").value("customers").build(),
                                    Dimension.builder().name("Mode").value(mode).build()))
                    .period(60)
                    .stat("Sum")
                    .unit(unit))
        .build();
  }
}
