package io.tidemark.reconcile.alarms;

import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.model.alarms.AlarmDefinition;
import io.tidemark.model.alarms.ComparisonOperator;
import io.tidemark.model.alarms.TreatMissingData;
import io.tidemark.model.metrics.Datum;
import io.tidemark.model.metrics.Dimension;
import io.tidemark.model.metrics.Metric;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** CloudWatch's evaluation semantics, on hand-made datapoints. */
class TestAlarmEvaluator {
  private static final Instant NOW = Instant.parse("2026-03-10T12:00:00Z");

  private static AlarmDefinition alarm(
      String statistic, int n, int m, double threshold, ComparisonOperator op, TreatMissingData t) {
    return new AlarmDefinition(
        "A",
        "a",
        "",
        Metric.RULE_STATUS,
        Map.of(Dimension.PIPELINE, "p", Dimension.DATASET, "d", Dimension.RULE, "r"),
        statistic,
        300,
        n,
        m,
        Optional.of(threshold),
        op,
        t,
        Optional.empty());
  }

  /** Datapoints, one per value, in the periods 0 (newest), 1, ... before NOW; null = none. */
  private static List<Datum> periods(Double... values) {
    List<Datum> out = new ArrayList<>();
    for (int i = 0; i < values.length; i++) {
      if (values[i] != null) {
        out.add(
            Datum.ofRule(
                Metric.RULE_STATUS, "p", "d", "r", values[i], NOW.minusSeconds(300L * i + 10)));
      }
    }
    return out;
  }

  private static AlarmState eval(AlarmDefinition a, List<Datum> d, AlarmState current) {
    return AlarmEvaluator.evaluate(a, d, current, NOW).state();
  }

  @Test
  void theRuleAlarmOfTheTemplateAlarmsOnAFailAndIsOkOnAPass() {
    AlarmDefinition rule =
        alarm(
            "Maximum",
            1,
            1,
            1,
            ComparisonOperator.GreaterThanOrEqualToThreshold,
            TreatMissingData.IGNORE);
    assertThat(eval(rule, periods(1.0), AlarmState.OK)).isEqualTo(AlarmState.ALARM);
    assertThat(eval(rule, periods(0.0), AlarmState.ALARM)).isEqualTo(AlarmState.OK);
    AlarmEvaluation e = AlarmEvaluator.evaluate(rule, periods(1.0), AlarmState.OK, NOW);
    assertThat(e.reason())
        .isEqualTo(
            "1 of 1 periods breached Maximum >= 1.0 over 300 s; 1 needed to alarm; latest Maximum 1.0");
  }

  @Test
  void theStatisticReducesEachPeriod() {
    List<Datum> two = new ArrayList<>(periods(1.0));
    two.add(Datum.ofRule(Metric.RULE_STATUS, "p", "d", "r", 0, NOW.minusSeconds(5)));
    var gte = ComparisonOperator.GreaterThanOrEqualToThreshold;
    var ignore = TreatMissingData.IGNORE;
    assertThat(eval(alarm("Maximum", 1, 1, 1, gte, ignore), two, AlarmState.OK))
        .isEqualTo(AlarmState.ALARM);
    assertThat(eval(alarm("Minimum", 1, 1, 1, gte, ignore), two, AlarmState.OK))
        .isEqualTo(AlarmState.OK);
    assertThat(eval(alarm("Average", 1, 1, 0.5, gte, ignore), two, AlarmState.OK))
        .isEqualTo(AlarmState.ALARM);
    assertThat(eval(alarm("Sum", 1, 1, 2, gte, ignore), two, AlarmState.OK))
        .isEqualTo(AlarmState.OK);
    assertThat(eval(alarm("SampleCount", 1, 1, 2, gte, ignore), two, AlarmState.OK))
        .isEqualTo(AlarmState.ALARM);
    AlarmEvaluation p99 =
        AlarmEvaluator.evaluate(alarm("p99", 1, 1, 1, gte, ignore), two, AlarmState.OK, NOW);
    assertThat(p99.state()).isEqualTo(AlarmState.INSUFFICIENT_DATA);
    assertThat(p99.reason()).contains("Cannot evaluate statistic p99 locally");
  }

  @Test
  void mOutOfN() {
    var a =
        alarm(
            "Maximum",
            3,
            2,
            1,
            ComparisonOperator.GreaterThanOrEqualToThreshold,
            TreatMissingData.MISSING);
    assertThat(eval(a, periods(1.0, 0.0, 1.0), AlarmState.OK)).isEqualTo(AlarmState.ALARM);
    assertThat(eval(a, periods(1.0, 0.0, 0.0), AlarmState.OK)).isEqualTo(AlarmState.OK);
    // Datapoints older than the evaluation range do not count.
    assertThat(eval(a, periods(0.0, 0.0, 0.0, 1.0, 1.0), AlarmState.ALARM))
        .isEqualTo(AlarmState.OK);
  }

  @Test
  void everyPeriodMissing() {
    var gte = ComparisonOperator.GreaterThanOrEqualToThreshold;
    assertThat(
            eval(
                alarm("Maximum", 1, 1, 1, gte, TreatMissingData.BREACHING),
                periods(),
                AlarmState.OK))
        .isEqualTo(AlarmState.ALARM);
    assertThat(
            eval(
                alarm("Maximum", 1, 1, 1, gte, TreatMissingData.NOT_BREACHING),
                periods(),
                AlarmState.ALARM))
        .isEqualTo(AlarmState.OK);
    assertThat(
            eval(
                alarm("Maximum", 1, 1, 1, gte, TreatMissingData.IGNORE),
                periods(),
                AlarmState.ALARM))
        .isEqualTo(AlarmState.ALARM);
    assertThat(
            eval(alarm("Maximum", 1, 1, 1, gte, TreatMissingData.IGNORE), periods(), AlarmState.OK))
        .isEqualTo(AlarmState.OK);
    assertThat(
            eval(
                alarm("Maximum", 1, 1, 1, gte, TreatMissingData.MISSING),
                periods(),
                AlarmState.ALARM))
        .isEqualTo(AlarmState.INSUFFICIENT_DATA);
  }

  @Test
  void somePeriodsMissing() {
    var gte = ComparisonOperator.GreaterThanOrEqualToThreshold;
    // 3 of 3 needed, one real breaching point:
    assertThat(
            eval(
                alarm("Maximum", 3, 3, 1, gte, TreatMissingData.BREACHING),
                periods(null, 1.0, null),
                AlarmState.OK))
        .isEqualTo(AlarmState.ALARM);
    assertThat(
            eval(
                alarm("Maximum", 3, 3, 1, gte, TreatMissingData.NOT_BREACHING),
                periods(null, 1.0, null),
                AlarmState.OK))
        .isEqualTo(AlarmState.OK);
    assertThat(
            eval(
                alarm("Maximum", 3, 3, 1, gte, TreatMissingData.MISSING),
                periods(null, 1.0, null),
                AlarmState.OK))
        .isEqualTo(AlarmState.ALARM);
    assertThat(
            eval(
                alarm("Maximum", 3, 3, 1, gte, TreatMissingData.MISSING),
                periods(null, 0.0, null),
                AlarmState.ALARM))
        .isEqualTo(AlarmState.OK);
  }

  @Test
  void theReconciliationMissingShapeAlarmsWhenNoRunHappened() {
    var a =
        alarm(
            "SampleCount",
            1,
            1,
            1,
            ComparisonOperator.LessThanThreshold,
            TreatMissingData.BREACHING);
    assertThat(eval(a, periods(), AlarmState.OK)).isEqualTo(AlarmState.ALARM);
    assertThat(eval(a, periods(12.5), AlarmState.ALARM)).isEqualTo(AlarmState.OK);
  }

  @Test
  void anomalyDetectionIsNotEvaluatedLocallyAndSaysWhy() {
    AlarmDefinition band =
        new AlarmDefinition(
            "B",
            "b",
            "",
            Metric.RECORDS_CHANGED,
            Map.of(Dimension.PIPELINE, "p", Dimension.DATASET, "d", Dimension.MODE, "INCREMENTAL"),
            "Sum",
            3600,
            1,
            1,
            Optional.empty(),
            ComparisonOperator.LessThanLowerOrGreaterThanUpperThreshold,
            TreatMissingData.IGNORE,
            Optional.of(2.0));
    AlarmEvaluation e = AlarmEvaluator.evaluate(band, List.of(), AlarmState.OK, NOW);
    assertThat(e.state()).isEqualTo(AlarmState.INSUFFICIENT_DATA);
    assertThat(e.reason()).contains("Anomaly-detection").contains("not evaluated locally");
  }
}
