package io.tidemark.stack;

import static io.tidemark.stack.Cfn.MAPPER;
import static io.tidemark.stack.Cfn.equalsNode;
import static io.tidemark.stack.Cfn.getAtt;
import static io.tidemark.stack.Cfn.literal;
import static io.tidemark.stack.Cfn.ref;
import static io.tidemark.stack.Cfn.sub;
import static io.tidemark.stack.Cfn.text;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tidemark.model.config.CatalogSpec;
import io.tidemark.model.contract.ContractException;
import io.tidemark.model.contract.ContractFile;
import io.tidemark.model.contract.DatasetContract;
import io.tidemark.model.contract.StateLayout;
import io.tidemark.model.metrics.Metric;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The CloudFormation stack that deploys Tidemark on AWS for the datasets of a contract file ({@link
 * ContractFile}): the lake bucket (state and Athena results), the Glue databases and one raw table
 * per dataset, the Athena workgroup, the ingest job as one Glue job with a schedule and a weekly
 * sweep per dataset, the reconciler as one ECS Fargate service for every dataset, a least-privilege
 * IAM role for each half, and per dataset the catalogue's alarms and a dashboard. The committed
 * {@value #PATH} is generated from {@value #EXAMPLE_CONTRACT}.
 *
 * <p>The contract is the single source of truth: the job gets {@code --contract} and, per trigger,
 * {@code --dataset}; the reconciler gets {@code TIDEMARK_CONTRACT}. Both read the file from {@code
 * s3://<ArtifactBucketName>/<ContractKey>}, where the user uploads it next to the job's jar. What
 * the contract says is written into the stack where CloudFormation needs it: the raw tables'
 * columns and partition projection ({@link RawTables}), the buckets and prefixes the roles may read
 * and write, the Glue tables the job may create, the alarms' and dashboards' dimensions.
 *
 * <p>An AWS stack needs a contract whose raw locations are {@code s3://} folders and whose catalog
 * is AWS Glue with an {@code s3://} warehouse; any other is refused with a message naming the
 * dataset and the key ({@link ContractException}).
 */
public final class StackTemplate {
  public static final String PATH = "deploy/tidemark-stack.json";

  /** The contract the committed stack is generated from. */
  public static final String EXAMPLE_CONTRACT = "deploy/example-contract.yaml";

  /**
   * Glue 6.0 (Spark 4.1), the version the job is built for. cfn-lint 1.51's schema accepts it; the
   * stack test fails if a cfn-lint update stops doing so.
   */
  public static final String GLUE_VERSION = "6.0";

  /** The object deploy/glue/ingest.scala defines: the Glue job's {@code --class}. */
  public static final String GLUE_SCRIPT_OBJECT = "TidemarkIngest";

  /** The reconciler's variable naming the contract file it reads every dataset from. */
  public static final String CONTRACT_VARIABLE = "TIDEMARK_CONTRACT";

  /** The ingest job's option naming the contract file, and the one naming its dataset. */
  public static final String CONTRACT_OPTION = "--contract";

  public static final String DATASET_OPTION = "--dataset";

  public static final String CONTRACT_KEY_DEFAULT = "tidemark/tidemark.yaml";
  public static final String DEPLOYMENT_NAME_DEFAULT = "main";

  public static final String PROJECTION_START_DEFAULT = "2020-01-01";
  public static final String PROJECTION_END = RawTables.PROJECTION_END;

  /** Athena's smallest allowed per-query cutoff is 10 MB; the default is 10 GiB. */
  public static final long BYTES_SCANNED_CUTOFF_DEFAULT = 10L * 1024 * 1024 * 1024;

  public static final String CONTAINER_NAME = "reconciler";
  public static final int CONTAINER_PORT = 8080;
  public static final String HEALTH_PATH = "/q/health/ready";

  /**
   * What {@code ReconcilerHostNames} accepts: comma-separated names, IPv4 addresses or bracketed
   * IPv6 addresses, each with an optional {@code :port}, or {@code *}; no spaces. A value the
   * service would refuse at start is refused by CloudFormation instead of by a task that stops
   * again and again.
   */
  public static final String HOST_NAMES_PATTERN =
      "(\\*|[A-Za-z0-9.-]+(:[0-9]{1,5})?|\\[[0-9A-Fa-f:.]+\\](:[0-9]{1,5})?)"
          + "(,(\\*|[A-Za-z0-9.-]+(:[0-9]{1,5})?|\\[[0-9A-Fa-f:.]+\\](:[0-9]{1,5})?))*";

  /**
   * Any host: the task's private address is assigned when it starts and changes with every task,
   * and the stack puts no load balancer or DNS name in front of it, so no list could be given in
   * advance. The host check guards a service on loopback against a browser page that rebinds its
   * own name to 127.0.0.1; this one listens on the VPC behind {@code AllowedIngressCidr}, and every
   * {@code /api} call needs an API key ({@code QUARKUS_HTTP_HOST} is beyond loopback), which such a
   * page cannot send.
   */
  public static final String HOST_NAMES_DEFAULT = "*";

  /** The condition under which the ingest job publishes only audited batches. */
  public static final String VERIFIED_PUBLISH = "VerifiedPublish";

  /** The API keys come from Secrets Manager through the task definition's {@code Secrets}. */
  public static final String API_KEYS_VARIABLE = "TIDEMARK_API_KEYS";

  private static final String GLUE_CATALOG_IMPL = "org.apache.iceberg.aws.glue.GlueCatalog";

  private StackTemplate() {}

  // ---------------------------------------------------------------- what the contract decides

  /**
   * One dataset of the stack.
   *
   * @param contract its contract
   * @param idPrefix the prefix of its resources' logical ids, e.g. {@code SalesOrdersV2}
   * @param raw its raw folder
   * @param tables its raw tables
   * @param dashboardName its dashboard's name
   */
  record DatasetPlan(
      DatasetContract contract,
      String idPrefix,
      S3Location raw,
      List<RawTables.Table> tables,
      String dashboardName) {

    String name() {
      return contract.name();
    }
  }

  /**
   * The stack's datasets and the catalog's warehouse, checked.
   *
   * @param source the contract file's name
   * @param datasets the datasets, in file order
   * @param warehouse the Iceberg warehouse's folder
   * @param tables every Glue table the ingest job writes: curated, quarantine and tombstones, as
   *     {@code database.table} in lower case
   */
  record Plan(
      String source, List<DatasetPlan> datasets, S3Location warehouse, List<String> tables) {

    /** The Glue databases of those tables, in order of first mention. */
    List<String> curatedDatabases() {
      Set<String> out = new LinkedHashSet<>();
      tables.forEach(t -> out.add(t.substring(0, t.indexOf('.'))));
      return List.copyOf(out);
    }

    /** The raw folders, grouped by bucket, in order of first mention. */
    Map<String, List<String>> rawPrefixesByBucket() {
      Map<String, List<String>> out = new LinkedHashMap<>();
      for (DatasetPlan d : datasets) {
        out.computeIfAbsent(d.raw().bucket(), b -> new ArrayList<>()).add(d.raw().prefix());
      }
      return out;
    }
  }

  /**
   * Checks that a contract can be deployed on AWS and derives the stack's names from it.
   *
   * @throws ContractException naming the contract, the dataset and the key
   */
  static Plan plan(ContractFile contract) {
    String source = fileName(contract.source());
    String cannot = "Cannot generate an AWS stack from contract " + source + ": ";
    CatalogSpec catalog =
        contract
            .catalog()
            .orElseThrow(
                () ->
                    new ContractException(
                        cannot
                            + "it declares no catalog; add catalog: {warehouse:"
                            + " s3://<bucket>/<folder>, properties: {type: glue}}: on AWS the"
                            + " curated tables live in the Glue Data Catalog"));
    Map<String, String> props = catalog.properties();
    if (!"glue".equals(props.get("type")) && !GLUE_CATALOG_IMPL.equals(props.get("catalog-impl"))) {
      throw new ContractException(
          cannot
              + "catalog.properties "
              + props.entrySet().stream()
                  .filter(e -> e.getKey().equals("type") || e.getKey().equals("catalog-impl"))
                  .map(e -> e.getKey() + "=" + e.getValue())
                  .toList()
              + " is not AWS Glue; set catalog.properties: {type: glue}");
    }
    String warehouseUri = props.get("warehouse");
    S3Location warehouse = S3Location.parse(warehouseUri);
    if (warehouse == null) {
      throw new ContractException(
          cannot + "catalog.warehouse '" + warehouseUri + "' " + S3Location.problem(warehouseUri));
    }

    List<DatasetPlan> datasets = new ArrayList<>();
    Set<String> tables = new LinkedHashSet<>();
    Map<String, String> taken = new LinkedHashMap<>();
    for (DatasetContract d : contract.datasets().values()) {
      String at = "datasets." + d.name();
      S3Location raw = S3Location.parse(d.raw().location());
      if (raw == null) {
        throw new ContractException(
            cannot
                + at
                + ".raw.location '"
                + d.raw().location()
                + "' "
                + S3Location.problem(d.raw().location()));
      }
      Map<String, String> columns = RawTables.columns(d);
      for (String key : RawTables.partitionKeys(d.raw().layout())) {
        if (columns.containsKey(key)) {
          throw new ContractException(
              cannot
                  + at
                  + ".columns."
                  + key
                  + " has the name of its raw table's partition key (from "
                  + at
                  + ".raw.layout); Athena's table cannot hold both: rename the column or the"
                  + " folders' column");
        }
      }
      DatasetPlan plan =
          new DatasetPlan(
              d,
              logicalPrefix(d.name()),
              raw,
              RawTables.tables(d, raw),
              dashboardName(d.pipeline(), d.name()));
      unique(cannot, taken, "the raw table " + RawTables.name(d), d.name());
      unique(cannot, taken, "the logical id prefix " + plan.idPrefix(), d.name());
      unique(cannot, taken, "the dashboard " + plan.dashboardName(), d.name());
      datasets.add(plan);
      for (String t : List.of(d.curatedTable(), d.quarantineTable(), d.tombstoneTable())) {
        tables.add(t.toLowerCase(Locale.ROOT));
      }
    }
    return new Plan(source, datasets, warehouse, List.copyOf(tables));
  }

  private static void unique(
      String cannot, Map<String, String> taken, String what, String dataset) {
    String other = taken.putIfAbsent(what, dataset);
    if (other != null) {
      throw new ContractException(
          cannot
              + "datasets '"
              + other
              + "' and '"
              + dataset
              + "' would share "
              + what
              + "; rename one");
    }
  }

  /**
   * A dataset's logical id prefix: the letters and digits of its name, each run starting upper case
   * ({@code sales.orders-v2} is {@code SalesOrdersV2}). CloudFormation's logical ids are
   * alphanumeric; two datasets whose prefixes would be equal are refused by {@link #plan}.
   */
  static String logicalPrefix(String dataset) {
    StringBuilder sb = new StringBuilder();
    for (String part : dataset.split("[^A-Za-z0-9]+")) {
      if (!part.isEmpty()) {
        sb.append(Character.toUpperCase(part.charAt(0))).append(part.substring(1));
      }
    }
    return sb.toString();
  }

  /**
   * {@code tidemark-<pipeline>-<dataset>}, every character a dashboard name may not hold (anything
   * but letters, digits, {@code -} and {@code _}) as {@code _}.
   */
  static String dashboardName(String pipeline, String dataset) {
    return ("tidemark-" + pipeline + "-" + dataset).replaceAll("[^A-Za-z0-9_-]", "_");
  }

  private static String fileName(String source) {
    int slash = Math.max(source.lastIndexOf('/'), source.lastIndexOf('\\'));
    return slash < 0 ? source : source.substring(slash + 1);
  }

  // ---------------------------------------------------------------- the template

  /**
   * The stack for a contract's datasets.
   *
   * @throws ContractException when the contract cannot be deployed on AWS, naming the dataset and
   *     the key
   */
  public static String template(ContractFile contract) {
    Plan plan = plan(contract);
    ObjectNode t = MAPPER.createObjectNode();
    t.put("AWSTemplateFormatVersion", "2010-09-09");
    String names = String.join(", ", plan.datasets().stream().map(DatasetPlan::name).toList());
    String description =
        "Tidemark on AWS for the datasets of contract "
            + plan.source()
            + " ("
            + names
            + "): lake bucket, Glue databases and raw tables, Athena workgroup, the ingest job on"
            + " Glue, the reconciler on ECS Fargate, least-privilege roles, alarms and dashboards."
            + " Generated by the stack module's TemplateGenerator; do not edit by hand.";
    if (description.length() > MAX_DESCRIPTION) {
      description = description.replace(names, plan.datasets().size() + " datasets");
    }
    t.put("Description", description);
    ObjectNode params = t.putObject("Parameters");
    parameters(params);
    TemplateGenerator.alarmParameters(params);
    ObjectNode conditions = t.putObject("Conditions");
    conditions.set("CreateLakeBucket", equalsNode(ref("CreateLakeBucket"), text("true")));
    conditions.set(VERIFIED_PUBLISH, notEmpty("ReconcilerUrl"));
    TemplateGenerator.alarmConditions(conditions);
    rules(t.putObject("Rules"), plan);

    ObjectNode r = t.putObject("Resources");
    lake(r);
    catalog(r, plan);
    athena(r);
    ingestJob(r, plan);
    reconciler(r, plan);
    for (DatasetPlan d : plan.datasets()) {
      DatasetContract c = d.contract();
      TemplateGenerator.alarms(
          r,
          TemplateGenerator.AlarmScope.of(
              d.idPrefix(), c.pipeline(), c.name(), Metric.NAMESPACE_DEFAULT),
          c.reconcile().rules());
      TemplateGenerator.dashboard(
          r,
          d.idPrefix() + "Dashboard",
          text(d.dashboardName()),
          Metric.NAMESPACE_DEFAULT,
          c.pipeline(),
          c.name());
    }

    ObjectNode out = t.putObject("Outputs");
    output(out, "GlueDatabaseName", ref("GlueDatabase"), "The Glue database of the raw tables");
    for (DatasetPlan d : plan.datasets()) {
      output(
          out,
          d.idPrefix() + "RawTableName",
          ref(d.idPrefix() + "RawTable"),
          "The raw table of dataset " + d.name());
    }
    output(out, "AthenaWorkGroupName", ref("AthenaWorkGroup"), "The reconciler's workgroup");
    output(out, "IngestJobName", ref("IngestJob"), "The Glue job");
    output(out, "ReconcilerClusterName", ref("ReconcilerCluster"), "The ECS cluster");
    output(out, "ReconcilerServiceName", getAtt("ReconcilerService", "Name"), "The ECS service");
    String text = Cfn.write(t);
    String cannot =
        "Cannot generate an AWS stack from contract "
            + plan.source()
            + ": its "
            + plan.datasets().size()
            + " datasets need ";
    String split =
        "; split the datasets over several contract files, one stack (and one reconciler) each";
    if (r.size() > MAX_RESOURCES) {
      throw new ContractException(
          cannot
              + r.size()
              + " resources, more than the "
              + MAX_RESOURCES
              + " CloudFormation allows in a stack"
              + split);
    }
    if (text.getBytes(java.nio.charset.StandardCharsets.UTF_8).length > MAX_TEMPLATE_BYTES) {
      throw new ContractException(
          cannot
              + "a template of "
              + text.length()
              + " bytes, more than the "
              + MAX_TEMPLATE_BYTES
              + " CloudFormation reads from S3"
              + split);
    }
    return text;
  }

  /** CloudFormation's limits: resources in a stack, a description's length, a template's size. */
  static final int MAX_RESOURCES = 500;

  static final int MAX_DESCRIPTION = 1024;
  static final int MAX_TEMPLATE_BYTES = 1_000_000;

  // ---------------------------------------------------------------- parameters

  private static void parameters(ObjectNode p) {
    string(
        p,
        "DeploymentName",
        DEPLOYMENT_NAME_DEFAULT,
        "[a-z0-9][a-z0-9-]{0,31}",
        "Names this deployment's job, cluster, service and log group (tidemark-ingest-<name>,"
            + " tidemark-<name>...).");
    string(
        p,
        "LakeBucketName",
        null,
        "[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]",
        "The lake bucket: state (run and reconciliation reports, leases) and Athena results. Raw"
            + " files and the warehouse are where the contract says.");
    p.putObject("CreateLakeBucket")
        .put("Type", "String")
        .put("Default", "true")
        .put(
            "Description",
            "true: create LakeBucketName (versioned, public access blocked); false: it exists.")
        .putArray("AllowedValues")
        .add("true")
        .add("false");
    string(
        p,
        "StatePrefix",
        "state",
        PREFIX,
        "State prefix: run reports (_runs/), reconciliation reports (_reconciliation/), leases.");
    string(p, "AthenaResultsPrefix", "athena-results", PREFIX, "Athena query results prefix.");
    string(
        p,
        "GlueDatabaseName",
        "tidemark",
        "[a-z0-9_]{1,255}",
        "Glue database of the raw tables (the curated tables are in the databases the contract"
            + " names, which the stack creates).");
    string(
        p,
        "ProjectionStart",
        PROJECTION_START_DEFAULT,
        "[0-9]{4}-[0-9]{2}-[0-9]{2}",
        "Oldest raw date folder the raw tables read (partition projection start).");
    string(
        p,
        "AthenaWorkGroupName",
        "tidemark",
        "[a-zA-Z0-9._-]{1,128}",
        "The reconciler's Athena workgroup.");
    p.putObject("BytesScannedCutoffPerQuery")
        .put("Type", "Number")
        .put("Default", BYTES_SCANNED_CUTOFF_DEFAULT)
        .put("MinValue", 10_485_760)
        .put("Description", "Athena cancels a query that scans more bytes than this.");
    string(
        p,
        "ArtifactBucketName",
        null,
        "[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]",
        "Bucket holding the ingest job's script and jar, and the contract file.");
    string(
        p,
        "JobScriptKey",
        "tidemark/ingest.scala",
        ".+",
        "Key of the Glue job's script (deploy/glue/ingest.scala).");
    string(
        p,
        "JobJarKey",
        "tidemark/tidemark-ingest.jar",
        ".+",
        "Key of the ingest job's jar (ingest-job/target/tidemark-ingest-job-VERSION-glue.jar).");
    string(
        p,
        "ContractKey",
        CONTRACT_KEY_DEFAULT,
        ".+",
        "Key of the contract file this stack was generated from: the ingest job (--contract) and"
            + " the reconciler (TIDEMARK_CONTRACT) read every dataset from it.");
    string(
        p,
        "ReconcilerUrl",
        "",
        "(https?://[^\\s@/]+(/[^\\s@]*)?)?",
        "Verified publish: the reconciler's URL as the ingest job reaches it (its load balancer or"
            + " Cloud Map name; a Glue connection in its subnets). Each run then publishes its batch"
            + " only after the reconciler's audit of it passed. Empty: publish without an audit.");
    string(
        p,
        "ReconcilerApiKeyKey",
        "tidemark/reconciler-api-key",
        ".+",
        "Verified publish: key, in ArtifactBucketName, of an object holding one of the"
            + " reconciler's API keys alone on one line (encrypt it; only the job's role may read"
            + " it). Used when ReconcilerUrl is set.");
    string(
        p,
        "IngestSchedule",
        "cron(0 3 * * ? *)",
        "cron\\(.+\\)",
        "When each dataset's ingest runs (a Glue trigger's cron, UTC).");
    string(
        p,
        "SweepSchedule",
        "cron(0 5 ? * SUN *)",
        "cron\\(.+\\)",
        "When each dataset's ingest runs --mode sweep, picking up raw files the lookback missed"
            + " (a Glue trigger's cron, UTC; keep it clear of IngestSchedule: a dataset's runs"
            + " take its lease one at a time).");
    p.putObject("GlueWorkerType")
        .put("Type", "String")
        .put("Default", "G.1X")
        .put("Description", "Glue worker type.")
        .putArray("AllowedValues")
        .add("G.1X")
        .add("G.2X")
        .add("G.4X")
        .add("G.8X");
    p.putObject("GlueNumberOfWorkers")
        .put("Type", "Number")
        .put("Default", 2)
        .put("MinValue", 2)
        .put("Description", "Glue workers of each run.");
    string(
        p,
        "ReconcilerImageUri",
        null,
        ".+",
        "The reconciler's container image: an ECR repository URI with tag.");
    string(
        p,
        "ReconcilerImageRepository",
        "tidemark-reconciler",
        "[a-z0-9][a-z0-9._/-]*",
        "The image's ECR repository in this account and region (the execution role pulls from it"
            + " only).");
    string(
        p,
        "ApiKeySecretArn",
        null,
        "arn:aws[a-z-]*:secretsmanager:.+",
        "Secrets Manager secret whose value is the API key(s), comma-separated.");
    p.putObject("VpcId")
        .put("Type", "AWS::EC2::VPC::Id")
        .put("Description", "VPC of the reconciler's tasks.");
    p.putObject("SubnetIds")
        .put("Type", "List<AWS::EC2::Subnet::Id>")
        .put(
            "Description", "Subnets of the reconciler's tasks (private, with a NAT or endpoints).");
    p.putObject("AssignPublicIp")
        .put("Type", "String")
        .put("Default", "DISABLED")
        .put("Description", "ENABLED only for public subnets without a NAT.")
        .putArray("AllowedValues")
        .add("ENABLED")
        .add("DISABLED");
    p.putObject("AllowedIngressCidr")
        .put("Type", "String")
        .put("Default", "10.0.0.0/8")
        .put("AllowedPattern", "[0-9]{1,3}(\\.[0-9]{1,3}){3}/[0-9]{1,2}")
        .put("Description", "Who may reach the reconciler's port 8080.");
    string(
        p,
        "ReconcilerHostNames",
        HOST_NAMES_DEFAULT,
        HOST_NAMES_PATTERN,
        "Host names the reconciler answers (TIDEMARK_API_ALLOWED_HOSTS), comma-separated, no"
            + " spaces: the names and addresses clients put in the URL (a load balancer's or DNS"
            + " name, a fixed address), each optionally with :8080; others get 421, /q/health"
            + " aside. * (the default) accepts any: the task's private address changes with every"
            + " task, and the check defends a browser against DNS rebinding of a loopback service,"
            + " while this one is reached over the VPC and every API call needs a key.");
    p.putObject("ReconcilerCpu")
        .put("Type", "String")
        .put("Default", "1024")
        .put("Description", "Task CPU units.")
        .putArray("AllowedValues")
        .add("512")
        .add("1024")
        .add("2048")
        .add("4096");
    p.putObject("ReconcilerMemory")
        .put("Type", "String")
        .put("Default", "2048")
        .put("AllowedPattern", "[0-9]+")
        .put("Description", "Task memory (MiB), valid for ReconcilerCpu.");
    p.putObject("LogRetentionDays")
        .put("Type", "Number")
        .put("Default", 30)
        .put("Description", "Days the reconciler's logs are kept.")
        .putArray("AllowedValues")
        .add(7)
        .add(14)
        .add(30)
        .add(90)
        .add(365);
  }

  private static final String PREFIX = "[A-Za-z0-9_.-]+(/[A-Za-z0-9_.-]+)*";

  private static void string(
      ObjectNode p, String name, String def, String pattern, String description) {
    ObjectNode n = p.putObject(name).put("Type", "String");
    if (def != null) {
      n.put("Default", def);
    }
    n.put("AllowedPattern", pattern).put("Description", description);
  }

  /**
   * The raw tables' database must not be one of the curated databases: the stack creates those
   * itself, and CloudFormation cannot create one database twice.
   */
  private static void rules(ObjectNode rules, Plan plan) {
    ObjectNode contains = MAPPER.createObjectNode();
    ArrayNode args = contains.putArray("Fn::Contains");
    ArrayNode names = args.addArray();
    plan.curatedDatabases().forEach(names::add);
    args.add(ref("GlueDatabaseName"));
    ObjectNode not = MAPPER.createObjectNode();
    not.putArray("Fn::Not").add(contains);
    rules
        .putObject("RawDatabaseIsNoCuratedDatabase")
        .putArray("Assertions")
        .addObject()
        .put(
            "AssertDescription",
            "GlueDatabaseName must differ from the curated databases the contract names ("
                + String.join(", ", plan.curatedDatabases())
                + "): the stack creates those.")
        .set("Assert", not);
  }

  // ---------------------------------------------------------------- S3

  private static void lake(ObjectNode r) {
    ObjectNode bucket = resource(r, "LakeBucket", "AWS::S3::Bucket");
    bucket.put("Condition", "CreateLakeBucket");
    bucket.put("DeletionPolicy", "Retain").put("UpdateReplacePolicy", "Retain");
    ObjectNode p = bucket.with("Properties");
    p.set("BucketName", ref("LakeBucketName"));
    p.putObject("VersioningConfiguration").put("Status", "Enabled");
    p.putObject("PublicAccessBlockConfiguration")
        .put("BlockPublicAcls", true)
        .put("BlockPublicPolicy", true)
        .put("IgnorePublicAcls", true)
        .put("RestrictPublicBuckets", true);
    p.putObject("BucketEncryption")
        .putArray("ServerSideEncryptionConfiguration")
        .addObject()
        .putObject("ServerSideEncryptionByDefault")
        .put("SSEAlgorithm", "AES256");
  }

  // ---------------------------------------------------------------- Glue catalog

  /** The logical id of a curated database the stack creates. */
  static String curatedDatabaseId(String database) {
    return "CuratedDatabase" + logicalPrefix(database);
  }

  private static void catalog(ObjectNode r, Plan plan) {
    ObjectNode db = resource(r, "GlueDatabase", "AWS::Glue::Database").with("Properties");
    db.set("CatalogId", ref("AWS::AccountId"));
    db.putObject("DatabaseInput")
        .put("Description", "Tidemark: the raw layer's external tables, one per dataset")
        .set("Name", ref("GlueDatabaseName"));

    // Kept when the stack goes: they hold the ingest job's Iceberg tables, not the stack's.
    for (String name : plan.curatedDatabases()) {
      ObjectNode curated = resource(r, curatedDatabaseId(name), "AWS::Glue::Database");
      curated.put("DeletionPolicy", "Retain").put("UpdateReplacePolicy", "Retain");
      ObjectNode p = curated.with("Properties");
      p.set("CatalogId", ref("AWS::AccountId"));
      p.putObject("DatabaseInput")
          .put("Name", name)
          .put("Description", "Tidemark: curated Iceberg tables the ingest job writes");
    }

    for (DatasetPlan d : plan.datasets()) {
      Map<String, String> columns = RawTables.columns(d.contract());
      for (RawTables.Table table : d.tables()) {
        ObjectNode p =
            resource(r, d.idPrefix() + table.idSuffix(), "AWS::Glue::Table").with("Properties");
        p.set("CatalogId", ref("AWS::AccountId"));
        p.set("DatabaseName", ref("GlueDatabase"));
        ObjectNode in = p.putObject("TableInput");
        in.put("Name", table.name());
        in.put("Description", table.description());
        in.put("TableType", "EXTERNAL_TABLE");
        ObjectNode tp = in.putObject("Parameters");
        tp.put("EXTERNAL", "TRUE");
        tp.put("classification", "parquet");
        table.parameters().forEach(tp::set);
        if (!table.partitionKeys().isEmpty()) {
          ArrayNode keys = in.putArray("PartitionKeys");
          table
              .partitionKeys()
              .forEach(k -> keys.addObject().put("Name", k.name()).put("Type", k.type()));
        }
        ObjectNode sd = in.putObject("StorageDescriptor");
        ArrayNode cols = sd.putArray("Columns");
        columns.forEach((name, type) -> cols.addObject().put("Name", name).put("Type", type));
        sd.put("Location", d.raw().uri() + "/");
        sd.put("InputFormat", "org.apache.hadoop.hive.ql.io.parquet.MapredParquetInputFormat");
        sd.put("OutputFormat", "org.apache.hadoop.hive.ql.io.parquet.MapredParquetOutputFormat");
        sd.putObject("SerdeInfo")
            .put(
                "SerializationLibrary",
                "org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe")
            .putObject("Parameters")
            .put("serialization.format", "1");
      }
    }
  }

  // ---------------------------------------------------------------- Athena

  private static void athena(ObjectNode r) {
    ObjectNode wg = resource(r, "AthenaWorkGroup", "AWS::Athena::WorkGroup").with("Properties");
    wg.set("Name", ref("AthenaWorkGroupName"));
    wg.put("Description", "Tidemark's reconciliations: bounded bytes per query");
    wg.put("State", "ENABLED");
    ObjectNode c = wg.putObject("WorkGroupConfiguration");
    c.set("BytesScannedCutoffPerQuery", ref("BytesScannedCutoffPerQuery"));
    c.put("EnforceWorkGroupConfiguration", true);
    c.put("PublishCloudWatchMetricsEnabled", true);
    c.putObject("EngineVersion").put("SelectedEngineVersion", "Athena engine version 3");
    ObjectNode rc = c.putObject("ResultConfiguration");
    rc.set("OutputLocation", sub("s3://${LakeBucketName}/${AthenaResultsPrefix}/"));
    rc.putObject("EncryptionConfiguration").put("EncryptionOption", "SSE_S3");
  }

  // ---------------------------------------------------------------- the ingest job

  private static JsonNode contractUri() {
    return sub("s3://${ArtifactBucketName}/${ContractKey}");
  }

  /**
   * The ingest job's default options, by their names in {@code IngestCommand}: the contract, the
   * state root, CloudWatch. The contract gives the dataset's raw location, pipeline, tables and
   * catalog; each trigger names its dataset.
   */
  static Map<String, JsonNode> jobArguments() {
    Map<String, JsonNode> a = new LinkedHashMap<>();
    // A Scala job: Glue compiles the script (deploy/glue/ingest.scala) against the job jar and runs
    // its object, which hands the arguments to io.tidemark.ingest.cli.GlueEntryPoint.
    a.put("--job-language", text("scala"));
    a.put("--class", text(GLUE_SCRIPT_OBJECT));
    a.put("--datalake-formats", text("iceberg"));
    a.put("--extra-jars", sub("s3://${ArtifactBucketName}/${JobJarKey}"));
    a.put(CONTRACT_OPTION, contractUri());
    a.put("--state-root", sub("s3://${LakeBucketName}/${StatePrefix}"));
    a.put("--cloudwatch", text("true"));
    a.put("--cloudwatch-namespace", text(Metric.NAMESPACE_DEFAULT));
    a.put("--cloudwatch-region", ref("AWS::Region"));
    a.put("--events", text("true"));
    a.put("--events-region", ref("AWS::Region"));
    a.put("--deployment", ref("DeploymentName"));
    // Verified publish, when ReconcilerUrl is set: the audit's URL and the API key's object.
    a.put("--verified-publish", ifVerifiedPublish(ref("ReconcilerUrl")));
    a.put(
        "--reconciler-api-key-file",
        ifVerifiedPublish(sub("s3://${ArtifactBucketName}/${ReconcilerApiKeyKey}")));
    return a;
  }

  /** {@code value} when ReconcilerUrl is set, else no value (the argument is left out). */
  private static JsonNode ifVerifiedPublish(JsonNode value) {
    ObjectNode n = MAPPER.createObjectNode();
    n.putArray("Fn::If").add(VERIFIED_PUBLISH).add(value).add(ref("AWS::NoValue"));
    return n;
  }

  private static void ingestJob(ObjectNode r, Plan plan) {
    ObjectNode role = resource(r, "IngestJobRole", "AWS::IAM::Role").with("Properties");
    role.set("AssumeRolePolicyDocument", assumeRole("glue.amazonaws.com"));
    ArrayNode statements = MAPPER.createArrayNode();
    statements.add(
        allow(
            "ReadJobArtifactsAndContract",
            List.of("s3:GetObject"),
            sub("arn:${AWS::Partition}:s3:::${ArtifactBucketName}/${JobScriptKey}"),
            sub("arn:${AWS::Partition}:s3:::${ArtifactBucketName}/${JobJarKey}"),
            sub("arn:${AWS::Partition}:s3:::${ArtifactBucketName}/${ContractKey}"),
            sub("arn:${AWS::Partition}:s3:::${ArtifactBucketName}/${ReconcilerApiKeyKey}")));
    listRawAndWarehouse(statements, plan);
    statements.add(listLake("ListState", List.of("${StatePrefix}")));
    statements.add(allow("ReadRaw", List.of("s3:GetObject"), rawObjects(plan)));
    statements.add(
        allow(
            "ReadWriteWarehouseAndState",
            List.of("s3:GetObject", "s3:PutObject", "s3:DeleteObject"),
            objects(plan.warehouse()),
            lakeObjects("${StatePrefix}/*")));
    List<JsonNode> glue = new ArrayList<>();
    glue.add(glueArn("catalog"));
    plan.curatedDatabases().forEach(db -> glue.add(glueArn("database/" + literal(db))));
    plan.tables().forEach(t -> glue.add(glueArn("table/" + literal(t.replace('.', '/')))));
    statements.add(
        allow(
            "CuratedTablesInGlue",
            List.of(
                "glue:GetDatabase",
                "glue:GetTable",
                "glue:GetTables",
                "glue:CreateTable",
                "glue:UpdateTable"),
            glue.toArray(JsonNode[]::new)));
    statements.add(putMetricData());
    statements.add(putDefaultBusEvents("PutIngestRunEvents"));
    statements.add(
        allow(
            "GlueJobLogs",
            List.of("logs:CreateLogGroup", "logs:CreateLogStream", "logs:PutLogEvents"),
            glueLogGroup("output"),
            glueLogGroup("error"),
            glueLogGroup("logs-v2")));
    policies(role, "tidemark-ingest", statements);

    ObjectNode job = resource(r, "IngestJob", "AWS::Glue::Job").with("Properties");
    job.set("Name", sub("tidemark-ingest-${DeploymentName}"));
    job.put(
        "Description",
        "Tidemark ingest: new raw files into the curated Iceberg table of the dataset given by"
            + " --dataset, as the contract declares it");
    job.set("Role", getAtt("IngestJobRole", "Arn"));
    job.put("GlueVersion", GLUE_VERSION);
    job.set("WorkerType", ref("GlueWorkerType"));
    job.set("NumberOfWorkers", ref("GlueNumberOfWorkers"));
    job.put("MaxRetries", 0);
    job.put("Timeout", 240);
    ObjectNode cmd = job.putObject("Command");
    cmd.put("Name", "glueetl");
    cmd.set("ScriptLocation", sub("s3://${ArtifactBucketName}/${JobScriptKey}"));
    ObjectNode args = job.putObject("DefaultArguments");
    jobArguments().forEach(args::set);
    // Every dataset's trigger fires at IngestSchedule: one run per dataset at a time. Two runs of
    // one dataset never overlap: the second finds the dataset's lease taken and fails.
    job.putObject("ExecutionProperty").put("MaxConcurrentRuns", plan.datasets().size());

    for (DatasetPlan d : plan.datasets()) {
      String name = literal(d.name());
      ObjectNode trigger =
          resource(r, d.idPrefix() + "IngestTrigger", "AWS::Glue::Trigger").with("Properties");
      trigger.set("Name", sub("tidemark-ingest-${DeploymentName}-" + name + "-schedule"));
      trigger.put("Description", "The scheduled ingest of dataset " + d.name());
      trigger.put("Type", "SCHEDULED");
      trigger.set("Schedule", ref("IngestSchedule"));
      trigger.put("StartOnCreation", true);
      ObjectNode action = trigger.putArray("Actions").addObject();
      action.set("JobName", ref("IngestJob"));
      action.putObject("Arguments").put(DATASET_OPTION, d.name());

      // The weekly sweep: the same job and dataset, in --mode sweep (SWEEP's alarms watch it).
      ObjectNode sweep =
          resource(r, d.idPrefix() + "SweepTrigger", "AWS::Glue::Trigger").with("Properties");
      sweep.set("Name", sub("tidemark-ingest-${DeploymentName}-" + name + "-sweep"));
      sweep.put("Description", "The weekly sweep of dataset " + d.name());
      sweep.put("Type", "SCHEDULED");
      sweep.set("Schedule", ref("SweepSchedule"));
      sweep.put("StartOnCreation", true);
      ObjectNode sweepAction = sweep.putArray("Actions").addObject();
      sweepAction.set("JobName", ref("IngestJob"));
      sweepAction.putObject("Arguments").put(DATASET_OPTION, d.name()).put("--mode", "sweep");
    }
  }

  // ---------------------------------------------------------------- the reconciler

  /**
   * The container's environment, by variable name: the contract (every dataset, the catalog) and
   * what the deployment decides (state root, Athena, CloudWatch, HTTP). No variable names a
   * dataset, so one task serves every dataset of the contract, whatever their names.
   */
  static Map<String, JsonNode> environment() {
    Map<String, JsonNode> env = new LinkedHashMap<>();
    env.put(CONTRACT_VARIABLE, contractUri());
    env.put("TIDEMARK_STATE_ROOT", sub("s3://${LakeBucketName}/${StatePrefix}"));
    env.put("TIDEMARK_ENGINE", text("athena"));
    env.put("TIDEMARK_ATHENA_REGION", ref("AWS::Region"));
    env.put("TIDEMARK_ATHENA_WORKGROUP", ref("AthenaWorkGroup"));
    env.put(
        "TIDEMARK_ATHENA_OUTPUT_LOCATION", sub("s3://${LakeBucketName}/${AthenaResultsPrefix}/"));
    env.put("TIDEMARK_ATHENA_DATABASE", ref("GlueDatabase"));
    env.put("QUARKUS_HTTP_HOST", text("0.0.0.0"));
    // The service answers only these Host names (421 otherwise, /q/health aside); its loopback
    // default would refuse every client reaching the task by its address.
    env.put("TIDEMARK_API_ALLOWED_HOSTS", ref("ReconcilerHostNames"));
    env.put("TIDEMARK_CLOUDWATCH_ENABLED", text("true"));
    env.put("TIDEMARK_CLOUDWATCH_REGION", ref("AWS::Region"));
    // Every finished reconciliation's event, on the account's default bus.
    env.put("TIDEMARK_EVENTS_ENABLED", text("true"));
    env.put("TIDEMARK_EVENTS_REGION", ref("AWS::Region"));
    env.put("TIDEMARK_EVENTS_DEPLOYMENT", ref("DeploymentName"));
    return env;
  }

  private static void reconciler(ObjectNode r, Plan plan) {
    ObjectNode role = resource(r, "ReconcilerTaskRole", "AWS::IAM::Role").with("Properties");
    role.set("AssumeRolePolicyDocument", assumeRole("ecs-tasks.amazonaws.com"));
    ArrayNode statements = MAPPER.createArrayNode();
    statements.add(
        allow(
            "AthenaOnItsWorkGroup",
            List.of(
                "athena:StartQueryExecution",
                "athena:GetQueryExecution",
                "athena:GetQueryResults",
                "athena:StopQueryExecution",
                "athena:GetWorkGroup"),
            sub(
                "arn:${AWS::Partition}:athena:${AWS::Region}:${AWS::AccountId}:workgroup/${AthenaWorkGroup}")));
    List<JsonNode> glue = new ArrayList<>();
    glue.add(glueArn("catalog"));
    glue.add(glueArn("database/${GlueDatabase}"));
    for (DatasetPlan d : plan.datasets()) {
      d.tables().forEach(t -> glue.add(glueArn("table/${GlueDatabase}/" + literal(t.name()))));
    }
    plan.curatedDatabases().forEach(db -> glue.add(glueArn("database/" + literal(db))));
    // The curated table it compares, and the quarantine it counts (GET .../quarantine).
    for (DatasetPlan d : plan.datasets()) {
      for (String t : List.of(d.contract().curatedTable(), d.contract().quarantineTable())) {
        glue.add(glueArn("table/" + literal(t.toLowerCase(Locale.ROOT).replace('.', '/'))));
      }
    }
    statements.add(
        allow(
            "GlueReadTables",
            List.of("glue:GetDatabase", "glue:GetTable", "glue:GetPartitions"),
            glue.toArray(JsonNode[]::new)));
    // A FULL reconciliation that passes moves the contract's verified tag on the curated table:
    // a new metadata file in the table's folder (where Glue's Iceberg catalog puts a table of a
    // database without a location: <warehouse>/<database>.db/<table>), and the catalog pointed
    // at it. No data file or manifest is written, so the grant names metadata files only
    // (NNNNN-<uuid>.metadata.json, or .gz.metadata.json when compressed).
    List<JsonNode> taggedTables = new ArrayList<>();
    List<JsonNode> tagMetadata = new ArrayList<>();
    for (DatasetPlan d : plan.datasets()) {
      if (d.contract().reconcile().tag().isPresent()) {
        String[] table = d.contract().curatedTable().toLowerCase(Locale.ROOT).split("\\.");
        taggedTables.add(glueArn("table/" + literal(table[0] + "/" + table[1])));
        tagMetadata.add(
            objects(
                new S3Location(
                    plan.warehouse().bucket(),
                    plan.warehouse().prefix() + "/" + table[0] + ".db/" + table[1] + "/metadata"),
                "*.metadata.json"));
      }
    }
    if (!taggedTables.isEmpty()) {
      // Glue authorizes UpdateTable on the catalog and the database as well as the table.
      Set<String> databases = new LinkedHashSet<>();
      for (DatasetPlan d : plan.datasets()) {
        if (d.contract().reconcile().tag().isPresent()) {
          databases.add(d.contract().curatedTable().toLowerCase(Locale.ROOT).split("\\.")[0]);
        }
      }
      List<JsonNode> scope = new ArrayList<>();
      scope.add(glueArn("catalog"));
      databases.forEach(db -> scope.add(glueArn("database/" + literal(db))));
      taggedTables.addAll(0, scope);
      statements.add(
          allow(
              "MoveVerifiedTags",
              List.of("glue:UpdateTable"),
              taggedTables.toArray(JsonNode[]::new)));
      statements.add(
          allow("WriteTagMetadata", List.of("s3:PutObject"), tagMetadata.toArray(JsonNode[]::new)));
    }
    listRawAndWarehouse(statements, plan);
    statements.add(listLake("ListLake", List.of("${StatePrefix}", "${AthenaResultsPrefix}")));
    List<JsonNode> buckets = new ArrayList<>();
    buckets.add(sub("arn:${AWS::Partition}:s3:::${LakeBucketName}"));
    Set<String> others = new LinkedHashSet<>(plan.rawPrefixesByBucket().keySet());
    others.add(plan.warehouse().bucket());
    others.forEach(b -> buckets.add(sub("arn:${AWS::Partition}:s3:::" + literal(b))));
    statements.add(
        allow(
            "BucketLocations", List.of("s3:GetBucketLocation"), buckets.toArray(JsonNode[]::new)));
    List<JsonNode> reads = new ArrayList<>(List.of(rawObjects(plan)));
    reads.add(objects(plan.warehouse()));
    reads.add(lakeObjects("${StatePrefix}/" + StateLayout.RUNS_FOLDER + "/*"));
    reads.add(sub("arn:${AWS::Partition}:s3:::${ArtifactBucketName}/${ContractKey}"));
    statements.add(
        allow(
            "ReadRawWarehouseRunReportsAndContract",
            List.of("s3:GetObject"),
            reads.toArray(JsonNode[]::new)));
    statements.add(
        allow(
            "ReadWriteReportsAndAthenaResults",
            List.of("s3:GetObject", "s3:PutObject", "s3:AbortMultipartUpload"),
            lakeObjects("${StatePrefix}/" + StateLayout.RECONCILIATION_FOLDER + "/*"),
            lakeObjects("${AthenaResultsPrefix}/*")));
    statements.add(putMetricData());
    statements.add(putDefaultBusEvents("PutReconciliationEvents"));
    policies(role, "tidemark-reconciler", statements);
    failedReconciliationsRule(r, plan);

    ObjectNode logs = resource(r, "ReconcilerLogGroup", "AWS::Logs::LogGroup").with("Properties");
    logs.set("LogGroupName", sub("/tidemark/${DeploymentName}/reconciler"));
    logs.set("RetentionInDays", ref("LogRetentionDays"));

    ObjectNode exec = resource(r, "ReconcilerExecutionRole", "AWS::IAM::Role").with("Properties");
    exec.set("AssumeRolePolicyDocument", assumeRole("ecs-tasks.amazonaws.com"));
    ArrayNode execStatements = MAPPER.createArrayNode();
    execStatements.add(
        allow(
            "WriteLogs",
            List.of("logs:CreateLogStream", "logs:PutLogEvents"),
            getAtt("ReconcilerLogGroup", "Arn")));
    execStatements.add(
        allow(
            "ReadApiKeySecret", List.of("secretsmanager:GetSecretValue"), ref("ApiKeySecretArn")));
    // ecr:GetAuthorizationToken has no resource-level permissions: AWS requires "*".
    execStatements.add(allow("EcrLogin", List.of("ecr:GetAuthorizationToken"), text("*")));
    execStatements.add(
        allow(
            "PullImage",
            List.of("ecr:BatchGetImage", "ecr:GetDownloadUrlForLayer"),
            sub(
                "arn:${AWS::Partition}:ecr:${AWS::Region}:${AWS::AccountId}:repository/${ReconcilerImageRepository}")));
    policies(exec, "tidemark-reconciler-execution", execStatements);

    ObjectNode cluster = resource(r, "ReconcilerCluster", "AWS::ECS::Cluster").with("Properties");
    cluster.set("ClusterName", sub("tidemark-${DeploymentName}"));

    ObjectNode sg =
        resource(r, "ReconcilerSecurityGroup", "AWS::EC2::SecurityGroup").with("Properties");
    sg.put("GroupDescription", "Tidemark reconciler: HTTP API on 8080");
    sg.set("VpcId", ref("VpcId"));
    sg.putArray("SecurityGroupIngress")
        .addObject()
        .put("IpProtocol", "tcp")
        .put("FromPort", CONTAINER_PORT)
        .put("ToPort", CONTAINER_PORT)
        .set("CidrIp", ref("AllowedIngressCidr"));

    ObjectNode td =
        resource(r, "ReconcilerTaskDefinition", "AWS::ECS::TaskDefinition").with("Properties");
    td.set("Family", sub("tidemark-reconciler-${DeploymentName}"));
    td.put("NetworkMode", "awsvpc");
    td.putArray("RequiresCompatibilities").add("FARGATE");
    td.set("Cpu", ref("ReconcilerCpu"));
    td.set("Memory", ref("ReconcilerMemory"));
    td.set("TaskRoleArn", getAtt("ReconcilerTaskRole", "Arn"));
    td.set("ExecutionRoleArn", getAtt("ReconcilerExecutionRole", "Arn"));
    ObjectNode c = td.putArray("ContainerDefinitions").addObject();
    c.put("Name", CONTAINER_NAME);
    c.set("Image", ref("ReconcilerImageUri"));
    c.put("Essential", true);
    c.putArray("PortMappings")
        .addObject()
        .put("ContainerPort", CONTAINER_PORT)
        .put("Protocol", "tcp");
    ArrayNode env = c.putArray("Environment");
    environment().forEach((k, v) -> env.addObject().put("Name", k).set("Value", v));
    c.putArray("Secrets")
        .addObject()
        .put("Name", API_KEYS_VARIABLE)
        .set("ValueFrom", ref("ApiKeySecretArn"));
    ObjectNode hc = c.putObject("HealthCheck");
    hc.putArray("Command")
        .add("CMD-SHELL")
        .add("curl -fsS http://localhost:" + CONTAINER_PORT + HEALTH_PATH + " || exit 1");
    hc.put("Interval", 30).put("Timeout", 5).put("Retries", 3).put("StartPeriod", 60);
    ObjectNode log = c.putObject("LogConfiguration");
    log.put("LogDriver", "awslogs");
    ObjectNode lo = log.putObject("Options");
    lo.set("awslogs-group", ref("ReconcilerLogGroup"));
    lo.set("awslogs-region", ref("AWS::Region"));
    lo.put("awslogs-stream-prefix", "reconciler");

    ObjectNode svc = resource(r, "ReconcilerService", "AWS::ECS::Service").with("Properties");
    svc.set("ServiceName", sub("tidemark-reconciler-${DeploymentName}"));
    svc.set("Cluster", ref("ReconcilerCluster"));
    svc.set("TaskDefinition", ref("ReconcilerTaskDefinition"));
    svc.put("LaunchType", "FARGATE");
    // One replica: scheduled reconciliations would otherwise run once per replica.
    svc.put("DesiredCount", 1);
    ObjectNode vpc = svc.putObject("NetworkConfiguration").putObject("AwsvpcConfiguration");
    vpc.set("AssignPublicIp", ref("AssignPublicIp"));
    vpc.set("Subnets", ref("SubnetIds"));
    vpc.putArray("SecurityGroups").add(getAtt("ReconcilerSecurityGroup", "GroupId"));
  }

  // ---------------------------------------------------------------- IAM helpers

  /**
   * An EventBridge rule that sends the event of every FAILED or ERROR reconciliation of the stack's
   * deployment and datasets to the alarm topic, when one is given: the verdict with its failing
   * rules and report, next to the alarms' state changes. The topic's policy must let
   * events.amazonaws.com publish.
   */
  private static void failedReconciliationsRule(ObjectNode r, Plan plan) {
    ObjectNode rule = resource(r, "FailedReconciliationsRule", "AWS::Events::Rule");
    rule.put("Condition", TemplateGenerator.HAS_TOPIC);
    ObjectNode p = rule.with("Properties");
    p.set("Name", sub("${AWS::StackName}-failed-reconciliations"));
    p.put(
        "Description",
        "Tidemark: the event of every FAILED or ERROR reconciliation of this stack's datasets, to"
            + " the alarm topic");
    p.put("EventBusName", "default");
    p.put("State", "ENABLED");
    ObjectNode pattern = p.putObject("EventPattern");
    pattern.putArray("source").add(io.tidemark.model.events.ReconciliationFinished.SOURCE);
    pattern
        .putArray("detail-type")
        .add(io.tidemark.model.events.ReconciliationFinished.DETAIL_TYPE);
    ObjectNode detail = pattern.putObject("detail");
    // This deployment's events only: another stack on the account's bus may serve the same names.
    detail.putArray("deployment").add(ref("DeploymentName"));
    detail.putArray("status").add("FAILED").add("ERROR");
    ArrayNode names = detail.putArray("dataset");
    plan.datasets().forEach(d -> names.add(d.name()));
    ObjectNode target = p.putArray("Targets").addObject();
    target.put("Id", "AlarmTopic");
    target.set("Arn", ref("AlarmTopicArn"));
  }

  private static ObjectNode putMetricData() {
    // cloudwatch:PutMetricData has no resource-level permissions: AWS requires "*". The condition
    // limits it to the catalogue's namespace.
    ObjectNode s = allow("PublishMetrics", List.of("cloudwatch:PutMetricData"), text("*"));
    s.putObject("Condition")
        .putObject("StringEquals")
        .put("cloudwatch:namespace", Metric.NAMESPACE_DEFAULT);
    return s;
  }

  /** events:PutEvents on the account's default bus only, where the stack's rules listen. */
  private static ObjectNode putDefaultBusEvents(String sid) {
    return allow(
        sid,
        List.of("events:PutEvents"),
        sub("arn:${AWS::Partition}:events:${AWS::Region}:${AWS::AccountId}:event-bus/default"));
  }

  /**
   * s3:ListBucket on each raw bucket, limited to the datasets' folders there ({@code ListRaw1},
   * {@code ListRaw2}... in order of first mention), and on the warehouse's bucket.
   */
  private static void listRawAndWarehouse(ArrayNode statements, Plan plan) {
    int i = 1;
    for (Map.Entry<String, List<String>> e : plan.rawPrefixesByBucket().entrySet()) {
      statements.add(listBucket("ListRaw" + i++, e.getKey(), e.getValue()));
    }
    statements.add(
        listBucket("ListWarehouse", plan.warehouse().bucket(), List.of(plan.warehouse().prefix())));
  }

  private static ObjectNode listBucket(String sid, String bucket, List<String> prefixes) {
    ObjectNode s =
        allow(sid, List.of("s3:ListBucket"), sub("arn:${AWS::Partition}:s3:::" + literal(bucket)));
    ArrayNode values = s.putObject("Condition").putObject("StringLike").putArray("s3:prefix");
    prefixes.forEach(p -> values.add(p + "/*"));
    prefixes.forEach(values::add);
    return s;
  }

  /** s3:ListBucket on the lake bucket, limited to those (parameter) prefixes. */
  private static ObjectNode listLake(String sid, List<String> prefixes) {
    ObjectNode s =
        allow(sid, List.of("s3:ListBucket"), sub("arn:${AWS::Partition}:s3:::${LakeBucketName}"));
    ArrayNode values = s.putObject("Condition").putObject("StringLike").putArray("s3:prefix");
    prefixes.forEach(p -> values.add(sub(p + "/*")));
    prefixes.forEach(p -> values.add(sub(p)));
    return s;
  }

  private static JsonNode[] rawObjects(Plan plan) {
    return plan.datasets().stream().map(d -> objects(d.raw())).toArray(JsonNode[]::new);
  }

  /** The objects below a folder. */
  private static JsonNode objects(S3Location folder) {
    return objects(folder, "*");
  }

  /** The objects below a folder whose names match {@code pattern} (an IAM wildcard). */
  private static JsonNode objects(S3Location folder, String pattern) {
    return sub(
        "arn:${AWS::Partition}:s3:::"
            + literal(folder.bucket() + "/" + folder.prefix())
            + "/"
            + pattern);
  }

  private static JsonNode lakeObjects(String keyPattern) {
    return sub("arn:${AWS::Partition}:s3:::${LakeBucketName}/" + keyPattern);
  }

  /** The log groups Glue jobs write to (driver output, errors, continuous logs), their streams. */
  private static JsonNode glueLogGroup(String name) {
    return sub(
        "arn:${AWS::Partition}:logs:${AWS::Region}:${AWS::AccountId}:log-group:/aws-glue/jobs/"
            + name
            + ":*");
  }

  private static JsonNode glueArn(String suffix) {
    return sub("arn:${AWS::Partition}:glue:${AWS::Region}:${AWS::AccountId}:" + suffix);
  }

  private static ObjectNode allow(String sid, List<String> actions, JsonNode... resources) {
    ObjectNode s = MAPPER.createObjectNode();
    s.put("Sid", sid).put("Effect", "Allow");
    ArrayNode a = s.putArray("Action");
    actions.forEach(a::add);
    ArrayNode res = s.putArray("Resource");
    for (JsonNode n : resources) {
      res.add(n);
    }
    return s;
  }

  private static ObjectNode assumeRole(String service) {
    ObjectNode doc = MAPPER.createObjectNode().put("Version", "2012-10-17");
    ObjectNode s = doc.putArray("Statement").addObject();
    s.put("Effect", "Allow").putObject("Principal").put("Service", service);
    s.put("Action", "sts:AssumeRole");
    return doc;
  }

  private static void policies(ObjectNode role, String name, ArrayNode statements) {
    ObjectNode p = role.putArray("Policies").addObject();
    p.put("PolicyName", name);
    p.putObject("PolicyDocument").put("Version", "2012-10-17").set("Statement", statements);
  }

  // ---------------------------------------------------------------- JSON helpers

  private static ObjectNode resource(ObjectNode resources, String id, String type) {
    ObjectNode n = TemplateGenerator.newResource(resources, id);
    n.put("Type", type);
    n.putObject("Properties");
    return n;
  }

  private static void output(ObjectNode outputs, String name, JsonNode value, String description) {
    outputs.putObject(name).put("Description", description).set("Value", value);
  }

  /** {"Fn::Not": [{"Fn::Equals": [{"Ref": parameter}, ""]}]} */
  private static ObjectNode notEmpty(String parameter) {
    ObjectNode n = MAPPER.createObjectNode();
    n.putArray("Fn::Not").add(equalsNode(ref(parameter), text("")));
    return n;
  }
}
