package io.tidemark.stack;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tidemark.model.alarms.ComparisonOperator;
import io.tidemark.model.alarms.RuleAlarm;
import io.tidemark.model.alarms.TreatMissingData;
import io.tidemark.model.config.RuleKind;
import io.tidemark.model.config.RuleSpec;
import io.tidemark.model.contract.ContractFile;
import io.tidemark.model.metrics.Dimension;
import io.tidemark.model.metrics.Metric;
import io.tidemark.model.report.IngestMode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Builds the CloudWatch dashboards and alarms as code from the metric catalogue, so a template can
 * never name a metric the catalogue does not define, and the deployment stack ({@link
 * StackTemplate}). The generated files are committed under {@code dashboards/}, {@code alerts/} and
 * {@code deploy/}; a test fails when they are out of date.
 *
 * <p>Run {@code mvn -B -ntp -pl stack -am compile exec:java} to rewrite them; {@code
 * -Dgenerator.args="--contract FILE --out FILE"} writes the stack for another contract's datasets
 * instead, and {@code --body --pipeline P --dataset D} prints a raw dashboard body for another pair
 * (see {@link #main}).
 */
public final class TemplateGenerator {
  private static final IngestMode INCREMENTAL = IngestMode.INCREMENTAL;
  private static final IngestMode SWEEP = IngestMode.SWEEP;

  public static final String DASHBOARD_TEMPLATE = "dashboards/tidemark-dashboard.json";
  public static final String DASHBOARD_BODY = "dashboards/tidemark-dashboard-body.json";
  public static final String ALARMS_TEMPLATE = "alerts/tidemark-alarms.json";

  /** Defaults of the templates' parameters. */
  public static final String PIPELINE_DEFAULT = "default";

  public static final String REGION_DEFAULT = "us-east-1";
  public static final double INVALID_RATIO_THRESHOLD_DEFAULT = 0.05;
  public static final int NO_SUCCESS_PERIOD_SECONDS_DEFAULT = 86_400;
  public static final int WATERMARK_LAG_THRESHOLD_SECONDS_DEFAULT = 172_800;
  public static final int RECONCILIATION_MISSING_PERIOD_SECONDS_DEFAULT = 86_400;
  public static final double ANOMALY_BAND_WIDTH_DEFAULT = 2.0;

  /** Bytes a dataset's reconciliations may scan in a day before its alarm fires: 100 GiB. */
  public static final long MAX_BYTES_SCANNED_PER_DAY_DEFAULT = 100L * 1024 * 1024 * 1024;

  private static final ObjectMapper MAPPER =
      new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  private TemplateGenerator() {}

  public static void main(String[] args) throws IOException {
    if (args.length == 0 || args[0].equals("--help")) {
      System.out.println(
          "usage: TemplateGenerator <project-root>\n"
              + "         rewrite dashboards/ and alerts/ (one pipeline/dataset pair, by parameters)"
              + " and\n"
              + "         "
              + StackTemplate.PATH
              + " from "
              + StackTemplate.EXAMPLE_CONTRACT
              + "\n"
              + "       TemplateGenerator --contract FILE [--out FILE]\n"
              + "         write the AWS stack for the contract's datasets (default: "
              + STACK_FILE
              + " beside the contract)\n"
              + "       TemplateGenerator --body --pipeline P --dataset D [--namespace N] [--region"
              + " R]\n"
              + "         print a raw dashboard body");
      return;
    }
    if (args[0].equals("--body")) {
      Map<String, String> opts =
          options(args, 1, List.of("--pipeline", "--dataset", "--namespace", "--region"));
      if (!opts.containsKey("--dataset")) {
        throw new IllegalArgumentException(
            "Cannot print a dashboard body: --dataset D is required (a dataset's name in its"
                + " contract; there is no default)");
      }
      System.out.println(
          dashboardBody(
              opts.getOrDefault("--namespace", Metric.NAMESPACE_DEFAULT),
              opts.getOrDefault("--pipeline", PIPELINE_DEFAULT),
              opts.get("--dataset"),
              opts.getOrDefault("--region", REGION_DEFAULT)));
      return;
    }
    if (args[0].startsWith("--")) {
      Map<String, String> opts = options(args, 0, List.of("--contract", "--out"));
      String contract = opts.get("--contract");
      if (contract == null) {
        throw new IllegalArgumentException(
            "Cannot generate a stack: --contract FILE is required (see --help)");
      }
      Path file = Path.of(contract);
      Path out =
          opts.containsKey("--out")
              ? Path.of(opts.get("--out"))
              : file.toAbsolutePath().resolveSibling(STACK_FILE);
      write(out, StackTemplate.template(ContractFile.load(file)));
      return;
    }
    Path root = Path.of(args[0]);
    for (Map.Entry<String, String> e : generate(root).entrySet()) {
      write(root.resolve(e.getKey()), e.getValue());
    }
  }

  /** The stack's file name when {@code --out} is not given. */
  public static final String STACK_FILE = "tidemark-stack.json";

  private static void write(Path file, String text) throws IOException {
    Path parent = file.toAbsolutePath().getParent();
    Files.createDirectories(parent);
    Files.writeString(file, text);
    System.out.println("wrote " + file);
  }

  /** {@code --name value} pairs from {@code from} on; unknown names are refused. */
  private static Map<String, String> options(String[] args, int from, List<String> known) {
    Map<String, String> opts = new java.util.LinkedHashMap<>();
    for (int i = from; i < args.length; i += 2) {
      if (!known.contains(args[i])) {
        throw new IllegalArgumentException(
            "Cannot run TemplateGenerator: unknown option '"
                + args[i]
                + "' (known: "
                + known
                + ")");
      }
      if (i + 1 >= args.length) {
        throw new IllegalArgumentException(
            "Cannot run TemplateGenerator: option " + args[i] + " needs a value");
      }
      opts.put(args[i], args[i + 1]);
    }
    return opts;
  }

  /**
   * Every generated file, by path relative to the project root: the generic dashboard and alarm
   * templates, and the deployment stack of the example contract.
   *
   * @param root the project root, holding {@value StackTemplate#EXAMPLE_CONTRACT}
   */
  public static Map<String, String> generate(Path root) {
    Map<String, String> files = new java.util.LinkedHashMap<>();
    ContractFile example = ContractFile.load(root.resolve(StackTemplate.EXAMPLE_CONTRACT));
    files.put(DASHBOARD_TEMPLATE, dashboardTemplate());
    // The raw body is an example: the example contract's first dataset, no code default.
    files.put(
        DASHBOARD_BODY,
        dashboardBody(
            Metric.NAMESPACE_DEFAULT,
            PIPELINE_DEFAULT,
            example.datasets().keySet().iterator().next(),
            REGION_DEFAULT));
    files.put(ALARMS_TEMPLATE, alarmsTemplate());
    files.put(StackTemplate.PATH, StackTemplate.template(example));
    return files;
  }

  // ---------------------------------------------------------------- dashboard

  /** The raw dashboard body for {@code aws cloudwatch put-dashboard}, for one pair. */
  public static String dashboardBody(
      String namespace, String pipeline, String dataset, String region) {
    return write(dashboardBodyNode(namespace, pipeline, dataset, region));
  }

  private static ObjectNode dashboardBodyNode(
      String ns, String pipeline, String dataset, String region) {
    ObjectNode body = MAPPER.createObjectNode();
    ArrayNode widgets = body.putArray("widgets");
    Pair pair = new Pair(ns, pipeline, dataset, region);
    int y = 0;
    widgets.add(header("Tidemark: " + pipeline + " / " + dataset, 0, y));
    y += 1;
    // The nightly health of the dataset: the scheduled incremental runs only, so that a backfill's
    // or a replay's counts never blend into them.
    widgets.add(
        timeSeries(
            "Incremental runs: records per run by kind",
            0,
            y,
            12,
            pair,
            INCREMENTAL,
            "Sum",
            true,
            Metric.RECORDS_INSERTED,
            Metric.RECORDS_UPDATED,
            Metric.RECORDS_DELETED,
            Metric.RECORDS_INVALID,
            Metric.RECORDS_SUPERSEDED,
            Metric.RECORDS_LATE));
    widgets.add(
        timeSeries(
            "Incremental runs: files discovered / new / skipped; entries the layout does not place;"
                + " undeclared columns",
            12,
            y,
            12,
            pair,
            INCREMENTAL,
            "Sum",
            false,
            Metric.FILES_DISCOVERED,
            Metric.FILES_NEW,
            Metric.FILES_SKIPPED,
            Metric.PARTITION_FOLDERS_IGNORED,
            Metric.UNPLACED_ENTRIES,
            Metric.UNDECLARED_COLUMNS));
    y += 6;
    widgets.add(
        timeSeries(
            "Incremental runs: invalid ratio",
            0,
            y,
            8,
            pair,
            INCREMENTAL,
            "Maximum",
            false,
            Metric.INVALID_RATIO));
    widgets.add(
        timeSeries(
            "Incremental runs: watermark lag (seconds)",
            8,
            y,
            8,
            pair,
            INCREMENTAL,
            "Maximum",
            false,
            Metric.WATERMARK_LAG));
    widgets.add(
        byMode("Run duration by mode (seconds)", 16, y, 8, pair, "Maximum", Metric.RUN_DURATION));
    y += 6;
    widgets.add(
        timeSeries(
            "Incremental runs: outcome",
            0,
            y,
            8,
            pair,
            INCREMENTAL,
            "Sum",
            false,
            Metric.RUN_SUCCEEDED,
            Metric.RUN_FAILED));
    widgets.add(
        byMode(
            "Failed runs by mode (incl. rejected batches)",
            8,
            y,
            8,
            pair,
            "Sum",
            Metric.RUN_FAILED));
    widgets.add(
        timeSeries(
            "Sweep: files the lookback missed / files new",
            16,
            y,
            8,
            pair,
            SWEEP,
            "Sum",
            false,
            Metric.FILES_MISSED_BY_LOOKBACK,
            Metric.FILES_NEW));
    y += 6;
    widgets.add(
        byMode(
            "Records written by mode (operator runs next to the nightly)",
            0,
            y,
            8,
            pair,
            "Sum",
            Metric.RECORDS_WRITTEN));
    ObjectNode ruleStatus =
        widget("Reconciliation rule status (1 = failing)", 8, y, 16, ns, region);
    ArrayNode ruleMetrics = ruleStatus.with("properties").putArray("metrics");
    for (RuleKind kind : RuleKind.values()) {
      ArrayNode m = metricLine(pair, Metric.RULE_STATUS, null, kind.id());
      m.addObject().put("stat", "Maximum").put("label", kind.id());
      ruleMetrics.add(m);
    }
    widgets.add(ruleStatus);
    y += 6;
    widgets.add(
        timeSeries(
            "Reconciliation violations (keys)",
            0,
            y,
            12,
            pair,
            null,
            "Maximum",
            false,
            Metric.MISSING_KEYS,
            Metric.UNEXPECTED_KEYS,
            Metric.DUPLICATE_KEYS,
            Metric.STALE_VERSIONS,
            Metric.VALUE_MISMATCHES));
    widgets.add(
        timeSeries("Count ratio", 12, y, 6, pair, null, "Maximum", false, Metric.COUNT_RATIO));
    widgets.add(
        timeSeries(
            "Freshness lag (seconds)",
            18,
            y,
            6,
            pair,
            null,
            "Maximum",
            false,
            Metric.FRESHNESS_LAG));
    y += 6;
    widgets.add(
        timeSeries(
            "Bytes scanned by reconciliation",
            0,
            y,
            8,
            pair,
            null,
            "Sum",
            false,
            Metric.BYTES_SCANNED));
    widgets.add(
        timeSeries(
            "Reconciliation duration (seconds)",
            8,
            y,
            8,
            pair,
            null,
            "Maximum",
            false,
            Metric.RECONCILIATION_DURATION));
    widgets.add(
        timeSeries(
            "Raw files no committed batch read",
            16,
            y,
            8,
            pair,
            null,
            "Maximum",
            false,
            Metric.UNPROCESSED_FILES));
    y += 6;
    widgets.add(
        timeSeries(
            "Reconciliation scan cost (USD)", 0, y, 8, pair, null, "Sum", false, Metric.SCAN_COST));
    widgets.add(
        timeSeries(
            "Schema drift, foreign commits, aggregate deviation, broken references",
            8,
            y,
            8,
            pair,
            null,
            "Maximum",
            false,
            Metric.SCHEMA_DRIFT,
            Metric.FOREIGN_COMMITS,
            Metric.AGGREGATE_DEVIATION,
            Metric.BROKEN_REFERENCES));
    widgets.add(
        timeSeries(
            "Age of the last proven snapshot (seconds)",
            16,
            y,
            8,
            pair,
            null,
            "Maximum",
            false,
            Metric.VERIFIED_SNAPSHOT_AGE));
    return body;
  }

  /** What every metric line of one dashboard names: namespace, pair and region. */
  private record Pair(String ns, String pipeline, String dataset, String region) {}

  private static ObjectNode header(String text, int x, int y) {
    ObjectNode w = MAPPER.createObjectNode();
    w.put("type", "text").put("x", x).put("y", y).put("width", 24).put("height", 1);
    w.putObject("properties").put("markdown", "# " + text);
    return w;
  }

  private static ObjectNode widget(
      String title, int x, int y, int width, String ns, String region) {
    ObjectNode w = MAPPER.createObjectNode();
    w.put("type", "metric").put("x", x).put("y", y).put("width", width).put("height", 6);
    ObjectNode p = w.putObject("properties");
    p.put("title", title).put("view", "timeSeries").put("region", region).put("period", 3600);
    return w;
  }

  /**
   * A widget with one line per metric; {@code mode} is the Mode of ingest metrics, null for a
   * widget of reconciler metrics.
   */
  private static ObjectNode timeSeries(
      String title,
      int x,
      int y,
      int width,
      Pair pair,
      IngestMode mode,
      String stat,
      boolean stacked,
      Metric... metrics) {
    ObjectNode w = widget(title, x, y, width, pair.ns(), pair.region());
    ObjectNode p = (ObjectNode) w.get("properties");
    p.put("stacked", stacked).put("stat", stat);
    ArrayNode lines = p.putArray("metrics");
    for (Metric m : metrics) {
      ArrayNode line = metricLine(pair, m, mode, null);
      line.addObject().put("label", m.metricName());
      lines.add(line);
    }
    return w;
  }

  /**
   * A widget with one line of an ingest metric per mode (for records written, per mode that writes
   * records), labelled with the mode's CLI name.
   */
  private static ObjectNode byMode(
      String title, int x, int y, int width, Pair pair, String stat, Metric metric) {
    ObjectNode w = widget(title, x, y, width, pair.ns(), pair.region());
    ObjectNode p = (ObjectNode) w.get("properties");
    p.put("stacked", false).put("stat", stat);
    ArrayNode lines = p.putArray("metrics");
    for (IngestMode mode : IngestMode.values()) {
      if (metric == Metric.RECORDS_WRITTEN && !mode.writesRecords()) {
        continue; // a line of zeros
      }
      ArrayNode line = metricLine(pair, metric, mode, null);
      line.addObject().put("label", mode.cliName());
      lines.add(line);
    }
    return w;
  }

  /**
   * {@code [namespace, name, dim, value, ...]} with exactly the metric's catalogue dimensions, in
   * catalogue order.
   *
   * @throws IllegalArgumentException when the metric needs a Mode or Rule value not given, or one
   *     is given that the metric does not carry
   */
  private static ArrayNode metricLine(Pair pair, Metric m, IngestMode mode, String rule) {
    ArrayNode line = MAPPER.createArrayNode();
    line.add(pair.ns()).add(m.metricName());
    for (Map.Entry<Dimension, String> e :
        dimensionValues(m, pair.pipeline(), pair.dataset(), mode, rule).entrySet()) {
      line.add(e.getKey().cloudWatchName()).add(e.getValue());
    }
    return line;
  }

  /**
   * The values of a metric's dimensions, in catalogue order: what a dashboard line or an alarm must
   * name for CloudWatch to find the series (it matches the exact dimension set).
   */
  static Map<Dimension, String> dimensionValues(
      Metric m, String pipeline, String dataset, IngestMode mode, String rule) {
    if (mode != null && !m.dimensions().contains(Dimension.MODE)) {
      throw new IllegalArgumentException(m.metricName() + " has no Mode dimension");
    }
    if (rule != null && !m.dimensions().contains(Dimension.RULE)) {
      throw new IllegalArgumentException(m.metricName() + " has no Rule dimension");
    }
    Map<Dimension, String> values = new java.util.LinkedHashMap<>();
    for (Dimension d : m.dimensions()) {
      String v =
          switch (d) {
            case PIPELINE -> pipeline;
            case DATASET -> dataset;
            case MODE -> mode == null ? null : mode.name();
            case RULE -> rule;
          };
      if (v == null) {
        throw new IllegalArgumentException(
            m.metricName() + " needs a value for its " + d.cloudWatchName() + " dimension");
      }
      values.put(d, v);
    }
    return values;
  }

  /** The CloudFormation template creating the dashboard for one Pipeline/Dataset pair. */
  public static String dashboardTemplate() {
    ObjectNode t = template("dashboard");
    t.withObjectProperty("Parameters")
        .putObject("DashboardName")
        .put("Type", "String")
        .put("Default", "")
        .put("Description", "Dashboard name; empty for tidemark-<Pipeline>-<Dataset>.");
    t.putObject("Conditions").set("HasDashboardName", notEmpty("DashboardName"));

    ObjectNode name = MAPPER.createObjectNode();
    name.putArray("Fn::If")
        .add("HasDashboardName")
        .add(ref("DashboardName"))
        .add(sub("tidemark-${Pipeline}-${Dataset}"));
    dashboard(
        t.putObject("Resources"),
        "Dashboard",
        name,
        "${MetricNamespace}",
        "${Pipeline}",
        "${Dataset}");
    t.putObject("Outputs")
        .putObject("DashboardName")
        .put("Description", "The dashboard's name")
        .set("Value", ref("Dashboard"));
    return write(t);
  }

  /**
   * An {@code AWS::CloudWatch::Dashboard} for one pair, into {@code resources}. Its body goes
   * through {@code Fn::Sub}: the region is the stack's, and the namespace and pair may be given as
   * {@code ${Parameter}} references or as values.
   */
  static void dashboard(
      ObjectNode resources,
      String logicalId,
      JsonNode name,
      String namespace,
      String pipeline,
      String dataset) {
    ObjectNode dash = newResource(resources, logicalId);
    dash.put("Type", "AWS::CloudWatch::Dashboard");
    ObjectNode props = dash.putObject("Properties");
    props.set("DashboardName", name);
    String body = compact(dashboardBodyNode(namespace, pipeline, dataset, "${AWS::Region}"));
    props.set("DashboardBody", sub(body));
  }

  // ---------------------------------------------------------------- alarms

  /** The CloudFormation template with Tidemark's alarms for one Pipeline/Dataset pair. */
  public static String alarmsTemplate() {
    ObjectNode t = template("alarms");
    alarmParameters(t.withObjectProperty("Parameters"));
    alarmConditions(t.putObject("Conditions"));
    alarms(t.putObject("Resources"), AlarmScope.parameters());
    return write(t);
  }

  /**
   * The parameters the alarms refer to (topic, thresholds, periods), besides the pair and the
   * namespace; a template holding the alarms also needs the {@value #HAS_TOPIC} condition.
   */
  static void alarmParameters(ObjectNode params) {
    params
        .putObject("AlarmTopicArn")
        .put("Type", "String")
        .put("Default", "")
        .put("Description", "SNS topic notified on ALARM and OK; empty for no actions.");
    ObjectNode notifications =
        params
            .putObject(NOTIFICATIONS_PARAMETER)
            .put("Type", "String")
            .put("Default", NOTIFY_PER_DATASET_VALUE);
    notifications
        .putArray("AllowedValues")
        .add(NOTIFY_PER_DATASET_VALUE)
        .add(NOTIFY_PER_ALARM_VALUE);
    notifications.put(
        "Description",
        "What notifies the topic: 'dataset', the dataset's composite alarm (one notification when"
            + " the first of its alarms fires, one when the last clears), or 'each-alarm', every"
            + " alarm on its own.");
    params
        .putObject("InvalidRatioThreshold")
        .put("Type", "Number")
        .put("Default", INVALID_RATIO_THRESHOLD_DEFAULT)
        .put("MinValue", 0)
        .put("MaxValue", 1)
        .put(
            "Description",
            "Alarm when a run quarantines more than this share of its changed records.");
    params
        .putObject("NoSuccessfulRunPeriodSeconds")
        .put("Type", "Number")
        .put("Default", NO_SUCCESS_PERIOD_SECONDS_DEFAULT)
        .put("MinValue", 3600)
        .put("MaxValue", 86400)
        .put(
            "Description",
            "Alarm when no ingest run succeeded for this long (a multiple of 3600).");
    params
        .putObject("WatermarkLagThresholdSeconds")
        .put("Type", "Number")
        .put("Default", WATERMARK_LAG_THRESHOLD_SECONDS_DEFAULT)
        .put("MinValue", 60)
        .put("Description", "Alarm when the watermark is this far behind the run (not advancing).");
    params
        .putObject("ReconciliationMissingPeriodSeconds")
        .put("Type", "Number")
        .put("Default", RECONCILIATION_MISSING_PERIOD_SECONDS_DEFAULT)
        .put("MinValue", 3600)
        .put("MaxValue", 86400)
        .put("Description", "Alarm when no reconciliation ran for this long (a multiple of 3600).");
    params
        .putObject("AnomalyBandWidth")
        .put("Type", "Number")
        .put("Default", ANOMALY_BAND_WIDTH_DEFAULT)
        .put("MinValue", 0.1)
        .put("Description", "Width, in standard deviations, of the changed-records anomaly band.");
    params
        .putObject("MaxBytesScannedPerDay")
        .put("Type", "Number")
        .put("Default", MAX_BYTES_SCANNED_PER_DAY_DEFAULT)
        .put("MinValue", 0)
        .put(
            "Description",
            "Alarm when the dataset's reconciliations scan more than this many bytes in a day"
                + " (Athena bills per byte scanned).");
  }

  /** The condition an alarm's actions depend on: an {@code AlarmTopicArn} was given. */
  static final String HAS_TOPIC = "HasTopic";

  /** The parameter that says which alarms notify the topic. */
  static final String NOTIFICATIONS_PARAMETER = "AlarmNotifications";

  static final String NOTIFY_PER_DATASET_VALUE = "dataset";
  static final String NOTIFY_PER_ALARM_VALUE = "each-alarm";

  /** A topic was given and the dataset's composite alarm notifies it. */
  static final String NOTIFY_PER_DATASET = "NotifyPerDataset";

  /** A topic was given and every alarm notifies it on its own. */
  static final String NOTIFY_PER_ALARM = "NotifyPerAlarm";

  /** The logical id suffix (after a dataset's prefix) of a dataset's composite alarm. */
  static final String DATASET_ALARM = "DatasetAlarm";

  /** The conditions the alarms' actions depend on. */
  static void alarmConditions(ObjectNode conditions) {
    conditions.set(HAS_TOPIC, notEmpty("AlarmTopicArn"));
    conditions.set(NOTIFY_PER_DATASET, topicAnd(NOTIFY_PER_DATASET_VALUE));
    conditions.set(NOTIFY_PER_ALARM, topicAnd(NOTIFY_PER_ALARM_VALUE));
  }

  /** {"Fn::And": [{"Condition": HasTopic}, {"Fn::Equals": [{"Ref": AlarmNotifications}, v]}]} */
  private static ObjectNode topicAnd(String notifications) {
    ObjectNode n = MAPPER.createObjectNode();
    ArrayNode and = n.putArray("Fn::And");
    and.addObject().put("Condition", HAS_TOPIC);
    and.addObject().putArray("Fn::Equals").add(ref(NOTIFICATIONS_PARAMETER)).add(notifications);
    return n;
  }

  /**
   * Whose alarms they are: the Pipeline and Dataset dimension values, the namespace, the alarms'
   * names and a prefix of their logical ids. The generic template takes them from its parameters;
   * the deployment stack writes one dataset's values in.
   *
   * @param idPrefix prefix of every alarm's logical id, e.g. {@code Orders}
   * @param pipeline the Pipeline dimension's value
   * @param dataset the Dataset dimension's value
   * @param namespace the metrics' namespace
   * @param namePrefix the alarms' names start with it, e.g. {@code tidemark-crm-orders-}
   * @param substituted whether {@code namePrefix} holds {@code Fn::Sub} variables
   */
  record AlarmScope(
      String idPrefix,
      JsonNode pipeline,
      JsonNode dataset,
      JsonNode namespace,
      String namePrefix,
      boolean substituted) {

    /** The generic template's: every value from its parameters. */
    static AlarmScope parameters() {
      return new AlarmScope(
          "",
          ref("Pipeline"),
          ref("Dataset"),
          ref("MetricNamespace"),
          "tidemark-${Pipeline}-${Dataset}-",
          true);
    }

    /** One dataset's, its values written in. */
    static AlarmScope of(String idPrefix, String pipeline, String dataset, String namespace) {
      var f = MAPPER.getNodeFactory();
      return new AlarmScope(
          idPrefix,
          f.textNode(pipeline),
          f.textNode(dataset),
          f.textNode(namespace),
          "tidemark-" + pipeline + "-" + dataset + "-",
          false);
    }

    JsonNode alarmName(String suffix) {
      return substituted
          ? sub(namePrefix + suffix)
          : MAPPER.getNodeFactory().textNode(namePrefix + suffix);
    }
  }

  /**
   * Every alarm of the catalogue for one scope, into {@code resources}: one per reconciliation
   * rule, the ingest runs' and the reconciler's.
   */
  static void alarms(ObjectNode resources, AlarmScope scope) {
    alarms(resources, scope, List.of());
  }

  /**
   * The same, and one more for each of {@code rules} under an id of its own, which no kind's alarm
   * watches ({@link RuleAlarm#ownAlarms}).
   */
  static void alarms(ObjectNode resources, AlarmScope scope, List<RuleSpec> rules) {
    AlarmWriter alarms = new AlarmWriter(resources, scope);
    for (RuleKind kind : RuleKind.values()) {
      alarms.add(
          RuleAlarm.logicalId(kind.id()),
          Metric.RULE_ALERTING,
          null,
          kind.id(),
          Condition.failing(),
          RuleAlarm.description(kind.id(), kind));
    }
    for (RuleSpec rule : RuleAlarm.ownAlarms(rules)) {
      alarms.add(
          RuleAlarm.logicalId(rule.id()),
          Metric.RULE_ALERTING,
          null,
          rule.id(),
          Condition.failing(),
          RuleAlarm.description(rule.id(), rule.kind()));
    }
    // The nightly-health alarms watch the scheduled incremental runs (Mode=INCREMENTAL): CloudWatch
    // matches an alarm's exact dimension set, so each alarm names the one mode it is about. The
    // operator's full refresh, backfill and quarantine replay run by hand and answer on the spot.
    alarms.add(
        "IngestRunFailed",
        Metric.RUN_FAILED,
        INCREMENTAL,
        Condition.failedOnce(),
        "An incremental ingest run failed or its batch was rejected; nothing of that batch was"
            + " committed.");
    alarms.add(
        "NoSuccessfulIngestRun",
        Metric.RUN_SUCCEEDED,
        INCREMENTAL,
        Condition.noneWithin("Sum", "NoSuccessfulRunPeriodSeconds"),
        "No incremental ingest run succeeded within the configured period (missing data is"
            + " breaching).");
    alarms.add(
        "InvalidRatioHigh",
        Metric.INVALID_RATIO,
        INCREMENTAL,
        Condition.above("Maximum", 3600, "InvalidRatioThreshold"),
        "An incremental run quarantined more than the configured share of its changed records.");
    alarms.add(
        "WatermarkNotAdvancing",
        Metric.WATERMARK_LAG,
        INCREMENTAL,
        Condition.above("Minimum", 3600, "WatermarkLagThresholdSeconds"),
        "Even the freshest incremental run of the period left the watermark further behind than"
            + " the configured lag: it is not advancing.");
    // Input the job cannot place is never a quiet success: it alarms on the incremental runs.
    alarms.add(
        "UnplacedEntries",
        Metric.UNPLACED_ENTRIES,
        INCREMENTAL,
        Condition.anyInADay(),
        "The raw location holds entries the dataset's layout does not place (a folder that is no"
            + " date, a file outside the date folders or not Parquet): no run reads them. The run"
            + " report's strayEntries names them; fix the producer or the contract's layout.");
    alarms.add(
        "UndeclaredColumns",
        Metric.UNDECLARED_COLUMNS,
        INCREMENTAL,
        Condition.anyInADay(),
        "Raw files carry columns the contract does not declare (schema drift): they reach no"
            + " table. The run report's undeclaredColumns names them; declare them or fix the"
            + " producer.");
    // The scheduled sweep (--mode sweep): whether it failed, and whether it found anything.
    alarms.add(
        "SweepRunFailed",
        Metric.RUN_FAILED,
        SWEEP,
        Condition.failedOnce(),
        "A sweep run (--mode sweep) failed or its batch was rejected: files the incremental runs"
            + " missed stay unprocessed until a sweep succeeds.");
    alarms.add(
        "FilesMissedByLookback",
        Metric.FILES_MISSED_BY_LOOKBACK,
        SWEEP,
        Condition.anyInADay(),
        "Files landed beyond the lookback: the incremental runs missed them; the sweep picked"
            + " them up. Widen --lookback or look at the producer.");
    // The operator's runs start by hand, yet one launched unattended (a Glue run with parameters)
    // must not fail unseen: a failed full refresh, backfill or quarantine replay alarms too.
    for (IngestMode m :
        List.of(IngestMode.FULL_REFRESH, IngestMode.BACKFILL, IngestMode.REPLAY_QUARANTINE)) {
      alarms.add(
          pascal(m.cliName().replace('-', '_')) + "RunFailed",
          Metric.RUN_FAILED,
          m,
          Condition.failedOnce(),
          "A "
              + m.cliName().replace('-', ' ')
              + " run (--mode "
              + m.cliName()
              + ") failed or its batch was rejected;"
              + " nothing of that batch was committed and rerunning is safe.");
    }
    alarms.add(
        "MaintainRunFailed",
        Metric.RUN_FAILED,
        IngestMode.MAINTAIN,
        Condition.failedOnce(),
        "A maintenance run (--mode maintain) failed: the tables keep their small files, delete"
            + " files or snapshots until one succeeds. No row changed; rerunning is safe.");
    alarms.add(
        "ReconciliationMissing",
        Metric.RECONCILIATION_DURATION,
        null,
        Condition.noneWithin("SampleCount", "ReconciliationMissingPeriodSeconds"),
        "No reconciliation finished within the configured period (missing data is breaching).");
    alarms.add(
        "BytesScannedHigh",
        Metric.BYTES_SCANNED,
        null,
        Condition.above("Sum", 86400, "MaxBytesScannedPerDay"),
        "The dataset's reconciliations scanned more than the configured bytes in a day: check the"
            + " scheduled mode (FULL reads all of raw) and that WINDOW runs prune partitions.");
    alarms.anomaly();
    alarms.composite();
  }

  /**
   * A generic template's opening: its format version, its description (Tidemark's CloudWatch {@code
   * what} for one pair) and the parameters every generic template has.
   */
  private static ObjectNode template(String what) {
    ObjectNode t = MAPPER.createObjectNode();
    t.put("AWSTemplateFormatVersion", "2010-09-09");
    t.put(
        "Description",
        "Tidemark: CloudWatch "
            + what
            + " for one pipeline/dataset pair. Generated from the metric catalogue; do not edit by"
            + " hand.");
    commonParameters(t.putObject("Parameters"));
    return t;
  }

  private static void commonParameters(ObjectNode params) {
    params
        .putObject("Pipeline")
        .put("Type", "String")
        .put("Default", PIPELINE_DEFAULT)
        .put("AllowedPattern", "[A-Za-z0-9][A-Za-z0-9_.-]{0,127}")
        .put("Description", "The Pipeline dimension value.");
    params
        .putObject("Dataset")
        .put("Type", "String")
        .put("AllowedPattern", "[A-Za-z0-9][A-Za-z0-9_.-]{0,127}")
        .put(
            "Description",
            "The Dataset dimension value: the dataset's name in its contract (no default).");
    params
        .putObject("MetricNamespace")
        .put("Type", "String")
        .put("Default", Metric.NAMESPACE_DEFAULT)
        .put("Description", "The CloudWatch namespace Tidemark publishes to.");
  }

  /**
   * When a static alarm fires: its statistic over a period (seconds, or a template parameter)
   * against a threshold, and how missing data counts. Every static alarm fires on one datapoint of
   * one evaluation period.
   */
  private record Condition(
      String statistic,
      JsonNode period,
      JsonNode threshold,
      ComparisonOperator comparison,
      TreatMissingData missing) {

    /** A rule's status at 1 in five minutes; a reconciler that does not report stays as it was. */
    static Condition failing() {
      return new Condition(
          "Maximum",
          number(300),
          number(1),
          ComparisonOperator.GreaterThanOrEqualToThreshold,
          TreatMissingData.IGNORE);
    }

    /** At least one failed run in five minutes. */
    static Condition failedOnce() {
      return new Condition(
          "Sum",
          number(300),
          number(1),
          ComparisonOperator.GreaterThanOrEqualToThreshold,
          TreatMissingData.NOT_BREACHING);
    }

    /** Anything counted in a day: what a run found it could not use. */
    static Condition anyInADay() {
      return new Condition(
          "Maximum",
          number(86400),
          number(0),
          ComparisonOperator.GreaterThanThreshold,
          TreatMissingData.NOT_BREACHING);
    }

    /** Nothing within the period a parameter sets; missing data is breaching. */
    static Condition noneWithin(String statistic, String periodParameter) {
      return new Condition(
          statistic,
          ref(periodParameter),
          number(1),
          ComparisonOperator.LessThanThreshold,
          TreatMissingData.BREACHING);
    }

    /** Above the threshold a parameter sets. */
    static Condition above(String statistic, int period, String thresholdParameter) {
      return new Condition(
          statistic,
          number(period),
          ref(thresholdParameter),
          ComparisonOperator.GreaterThanThreshold,
          TreatMissingData.NOT_BREACHING);
    }

    private static JsonNode number(int value) {
      return MAPPER.getNodeFactory().numberNode(value);
    }
  }

  /**
   * Writes one scope's alarms into a template's resources. An alarm's name is its logical id in
   * kebab case ({@code IngestRunFailed}: {@code ...-ingest-run-failed}).
   */
  private static final class AlarmWriter {
    private final ObjectNode resources;
    private final AlarmScope scope;

    /** The logical ids of the alarms written so far, in order. */
    private final List<String> written = new ArrayList<>();

    AlarmWriter(ObjectNode resources, AlarmScope scope) {
      this.resources = resources;
      this.scope = scope;
    }

    void add(String logicalId, Metric metric, IngestMode mode, Condition when, String description) {
      add(logicalId, metric, mode, null, when, description);
    }

    void add(
        String logicalId,
        Metric metric,
        IngestMode mode,
        String rule,
        Condition when,
        String description) {
      ObjectNode p = properties(logicalId, description);
      p.set("Namespace", scope.namespace());
      p.put("MetricName", metric.metricName());
      p.set("Dimensions", dimensions(scope, metric, mode, rule));
      p.put("Statistic", when.statistic());
      p.set("Period", when.period());
      p.put("EvaluationPeriods", 1);
      p.put("DatapointsToAlarm", 1);
      p.set("Threshold", when.threshold());
      p.put("ComparisonOperator", when.comparison().name());
      p.put("TreatMissingData", when.missing().cloudWatchName());
      actions(p, NOTIFY_PER_ALARM);
    }

    /** The records changed per incremental run, against their anomaly-detection band. */
    void anomaly() {
      ObjectNode p =
          properties(
              "ChangedRecordsAnomaly",
              "The number of changed records per incremental run left its anomaly-detection band:"
                  + " the source may have stopped sending, or resent everything.");
      p.put("EvaluationPeriods", 1);
      p.put("DatapointsToAlarm", 1);
      p.put(
          "ComparisonOperator", ComparisonOperator.LessThanLowerOrGreaterThanUpperThreshold.name());
      p.put("ThresholdMetricId", "band");
      p.put("TreatMissingData", TreatMissingData.IGNORE.cloudWatchName());
      ArrayNode metrics = p.putArray("Metrics");
      ObjectNode m1 = metrics.addObject();
      m1.put("Id", "changed");
      m1.put("ReturnData", true);
      ObjectNode stat = m1.putObject("MetricStat");
      ObjectNode metric = stat.putObject("Metric");
      metric.set("Namespace", scope.namespace());
      metric.put("MetricName", Metric.RECORDS_CHANGED.metricName());
      metric.set("Dimensions", dimensions(scope, Metric.RECORDS_CHANGED, INCREMENTAL, null));
      stat.put("Period", 3600);
      stat.put("Stat", "Sum");
      ObjectNode band = metrics.addObject();
      band.put("Id", "band");
      band.put("ReturnData", true);
      band.set("Expression", sub("ANOMALY_DETECTION_BAND(changed, ${AnomalyBandWidth})"));
      band.put("Label", "RecordsChanged (expected band)");
      actions(p, NOTIFY_PER_ALARM);
    }

    /**
     * The dataset's composite alarm: in ALARM while any of its other alarms is. With {@code
     * AlarmNotifications=dataset} (the default) it alone notifies, so that a bad night pages once
     * per dataset rather than once per rule that broke.
     */
    void composite() {
      List<String> children = List.copyOf(written);
      ObjectNode r = newResource(resources, scope.idPrefix() + DATASET_ALARM);
      r.put("Type", "AWS::CloudWatch::CompositeAlarm");
      ObjectNode p = r.putObject("Properties");
      p.set("AlarmName", scope.alarmName("dataset"));
      p.put(
          "AlarmDescription",
          "Any of the dataset's "
              + children.size()
              + " alarms is in ALARM; the reason names which. With AlarmNotifications=dataset, the"
              + " one alarm of the dataset that notifies.");
      p.set(
          "AlarmRule",
          sub(
              String.join(
                  " OR ", children.stream().map(id -> "ALARM(\"${" + id + "}\")").toList())));
      p.put("ActionsEnabled", true);
      actions(p, NOTIFY_PER_DATASET);
    }

    /** A new alarm resource: its properties, with its name and description set. */
    private ObjectNode properties(String logicalId, String description) {
      ObjectNode r = newResource(resources, scope.idPrefix() + logicalId);
      written.add(scope.idPrefix() + logicalId);
      r.put("Type", "AWS::CloudWatch::Alarm");
      ObjectNode p = r.putObject("Properties");
      p.set("AlarmName", scope.alarmName(kebab(logicalId)));
      p.put("AlarmDescription", description);
      return p;
    }
  }

  /** An alarm's dimensions: exactly the metric's, Pipeline and Dataset from the scope. */
  private static ArrayNode dimensions(
      AlarmScope scope, Metric metric, IngestMode mode, String rule) {
    ArrayNode dims = MAPPER.createArrayNode();
    for (Map.Entry<Dimension, String> e : dimensionValues(metric, "", "", mode, rule).entrySet()) {
      ObjectNode d = dims.addObject().put("Name", e.getKey().cloudWatchName());
      switch (e.getKey()) {
        case PIPELINE -> d.set("Value", scope.pipeline());
        case DATASET -> d.set("Value", scope.dataset());
        default -> d.put("Value", e.getValue());
      }
    }
    return dims;
  }

  /**
   * A new resource of that logical id; refuses an id already taken, so that one dataset's resource
   * never silently replaces another's.
   */
  static ObjectNode newResource(ObjectNode resources, String logicalId) {
    if (resources.has(logicalId)) {
      throw new IllegalStateException(
          "Cannot add resource " + logicalId + ": the template already has one of that id");
    }
    return resources.putObject(logicalId);
  }

  /** The topic as the alarm's ALARM and OK actions when {@code condition} holds, else none. */
  private static void actions(ObjectNode p, String condition) {
    for (String key : List.of("AlarmActions", "OKActions")) {
      ObjectNode ifNode = MAPPER.createObjectNode();
      ArrayNode args = ifNode.putArray("Fn::If");
      args.add(condition);
      args.addArray().add(ref("AlarmTopicArn"));
      args.add(ref("AWS::NoValue"));
      p.set(key, ifNode);
    }
  }

  /** {"Fn::Not": [{"Fn::Equals": [{"Ref": parameter}, ""]}]} */
  private static ObjectNode notEmpty(String parameter) {
    ObjectNode n = MAPPER.createObjectNode();
    n.putArray("Fn::Not").addObject().putArray("Fn::Equals").add(ref(parameter)).add("");
    return n;
  }

  private static ObjectNode ref(String name) {
    ObjectNode n = MAPPER.createObjectNode();
    n.put("Ref", name);
    return n;
  }

  private static ObjectNode sub(String text) {
    ObjectNode n = MAPPER.createObjectNode();
    n.put("Fn::Sub", text);
    return n;
  }

  static String pascal(String snake) {
    StringBuilder sb = new StringBuilder();
    for (String part : snake.split("_")) {
      sb.append(Character.toUpperCase(part.charAt(0))).append(part.substring(1));
    }
    return sb.toString();
  }

  /** {@code IngestRunFailed}: {@code ingest-run-failed}. */
  static String kebab(String pascal) {
    return RuleAlarm.kebab(pascal);
  }

  private static String compact(JsonNode node) {
    try {
      return new ObjectMapper().writeValueAsString(node);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  private static String write(JsonNode node) {
    try {
      return MAPPER.writeValueAsString(node) + "\n";
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }
}
