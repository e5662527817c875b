package io.tidemark.stack;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tidemark.model.config.ChangeMarkerType;
import io.tidemark.model.config.DatasetSpec;
import io.tidemark.model.contract.StateLayout;
import io.tidemark.model.metrics.Metric;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The CloudFormation stack that deploys Tidemark on AWS ({@code deploy/tidemark-stack.json}): the
 * lake bucket, the Glue database and the raw table, the Athena workgroup, the ingest job as a Glue
 * job on a schedule, the reconciler as an ECS Fargate service, and a least-privilege IAM role for
 * each.
 *
 * <p>Generated rather than hand-written so that what both halves must agree on comes from the code:
 * the CloudWatch namespace the roles may publish to ({@link Metric#NAMESPACE_DEFAULT}), the default
 * dataset's contract columns ({@link DatasetSpec#customers}), the partition column, the state
 * folders ({@link StateLayout}) and the ingest job's option names. The raw table's columns and
 * projection properties are held equal to the reconciler's Athena DDL by a reconciler test (the DDL
 * lives there), and the container's environment is fed to the reconciler's configuration mapping by
 * another.
 */
public final class StackTemplate {
  public static final String PATH = "deploy/tidemark-stack.json";

  /** The dataset the stack deploys: the data contract's default one. */
  public static final DatasetSpec DATASET = DatasetSpec.customers("s3://lake/raw/customers", "x.y");

  /**
   * The curated types of the default dataset's payload columns (the demo's and the job's default
   * schema writes them as strings); the reconciler's DDL types the raw table from them.
   */
  static final Map<String, String> PAYLOAD_TYPES =
      Map.of("customer_name", "string", "email", "string");

  /**
   * Glue 6.0 (Spark 4.1), the version the job is built for. cfn-lint 1.51's schema accepts it; the
   * stack test fails if a cfn-lint update stops doing so.
   */
  public static final String GLUE_VERSION = "6.0";

  /** The object deploy/glue/ingest.scala defines: the Glue job's {@code --class}. */
  public static final String GLUE_SCRIPT_OBJECT = "TidemarkIngest";

  public static final String PROJECTION_START_DEFAULT = "2020-01-01";
  public static final String PROJECTION_END = "NOW+1DAYS";

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

  /**
   * The container's environment, by variable name. The first block is the agreed list the image's
   * test checks; the dataset block addresses {@code tidemark.datasets.customers.*} (env names are
   * upper-case, so another dataset needs a regenerated template).
   */
  static Map<String, JsonNode> environment() {
    Map<String, JsonNode> env = new LinkedHashMap<>();
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
    env.put(
        "TIDEMARK_DATASETS_CUSTOMERS_RAW_LOCATION",
        sub("s3://${LakeBucketName}/${RawPrefix}/${Dataset}"));
    env.put("TIDEMARK_DATASETS_CUSTOMERS_CURATED_TABLE", sub("${GlueDatabase}.${Dataset}"));
    env.put(
        "TIDEMARK_DATASETS_CUSTOMERS_CATALOG_WAREHOUSE",
        sub("s3://${LakeBucketName}/${WarehousePrefix}"));
    // An s3:// warehouse already means Iceberg's Glue catalog; said explicitly, as an operator
    // reading the task definition would look for it.
    env.put("TIDEMARK_DATASETS_CUSTOMERS_CATALOG_PROPERTIES_TYPE", text("glue"));
    // Without them value_mismatches compares no column, and no metric reaches CloudWatch (the
    // reconciliation-missing alarm would fire every day).
    env.put(
        "TIDEMARK_DATASETS_CUSTOMERS_COMPARED_COLUMNS",
        text(String.join(",", DATASET.comparedColumns())));
    env.put("TIDEMARK_CLOUDWATCH_ENABLED", text("true"));
    env.put("TIDEMARK_CLOUDWATCH_REGION", ref("AWS::Region"));
    return env;
  }

  /** The API keys come from Secrets Manager through the task definition's {@code Secrets}. */
  public static final String API_KEYS_VARIABLE = "TIDEMARK_API_KEYS";

  private static final ObjectMapper MAPPER =
      new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  private StackTemplate() {}

  /** The raw table's data columns, in contract order, with their Hive types. */
  public static Map<String, String> rawColumns() {
    Map<String, String> cols = new LinkedHashMap<>();
    DATASET.keyColumns().forEach(k -> cols.put(k, "string"));
    cols.put(
        DATASET.changeMarker().column(),
        DATASET.changeMarker().type() == ChangeMarkerType.TIMESTAMP ? "timestamp" : "bigint");
    cols.put(DATASET.operationColumn(), "string");
    DATASET.comparedColumns().forEach(c -> cols.put(c, PAYLOAD_TYPES.get(c)));
    return cols;
  }

  public static String template() {
    ObjectNode t = MAPPER.createObjectNode();
    t.put("AWSTemplateFormatVersion", "2010-09-09");
    t.put(
        "Description",
        "Tidemark on AWS: lake bucket, Glue database and raw table, Athena workgroup, the ingest"
            + " job on Glue, the reconciler on ECS Fargate, least-privilege roles. Generated by"
            + " the stack module's TemplateGenerator; do not edit by hand.");
    parameters(t.putObject("Parameters"));
    ObjectNode conditions = t.putObject("Conditions");
    conditions.set("CreateLakeBucket", equalsNode(ref("CreateLakeBucket"), text("true")));

    ObjectNode r = t.putObject("Resources");
    lake(r);
    catalog(r);
    athena(r);
    ingestJob(r);
    reconciler(r);

    ObjectNode out = t.putObject("Outputs");
    output(out, "GlueDatabaseName", ref("GlueDatabase"), "The Glue database");
    output(out, "RawTableName", ref("RawTable"), "The raw layer's external table");
    output(out, "AthenaWorkGroupName", ref("AthenaWorkGroup"), "The reconciler's workgroup");
    output(out, "IngestJobName", ref("IngestJob"), "The Glue job");
    output(out, "ReconcilerClusterName", ref("ReconcilerCluster"), "The ECS cluster");
    output(out, "ReconcilerServiceName", getAtt("ReconcilerService", "Name"), "The ECS service");
    return write(t);
  }

  // ---------------------------------------------------------------- parameters

  private static void parameters(ObjectNode p) {
    string(
        p,
        "LakeBucketName",
        null,
        "[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]",
        "The lake bucket (raw, warehouse, state, Athena results).");
    p.putObject("CreateLakeBucket")
        .put("Type", "String")
        .put("Default", "true")
        .put(
            "Description",
            "true: create LakeBucketName (versioned, public access blocked); false: it exists.")
        .putArray("AllowedValues")
        .add("true")
        .add("false");
    string(p, "RawPrefix", "raw", PREFIX, "Raw layer prefix: <RawPrefix>/<Dataset>/ingest_date=");
    string(p, "WarehousePrefix", "warehouse", PREFIX, "Iceberg warehouse prefix.");
    string(
        p,
        "StatePrefix",
        "state",
        PREFIX,
        "State prefix: run reports (_runs/) and reconciliation reports (_reconciliation/).");
    string(p, "AthenaResultsPrefix", "athena-results", PREFIX, "Athena query results prefix.");
    p.putObject("Dataset")
        .put("Type", "String")
        .put("Default", DATASET.name())
        .put(
            "Description",
            "The dataset. The raw table's columns and the reconciler's TIDEMARK_DATASETS_CUSTOMERS_*"
                + " variables are the default dataset's; another one needs a regenerated template.")
        .putArray("AllowedValues")
        .add(DATASET.name());
    string(
        p,
        "Pipeline",
        DatasetSpec.PIPELINE_DEFAULT,
        "[A-Za-z0-9][A-Za-z0-9_.-]{0,127}",
        "The Pipeline metric dimension.");
    string(
        p,
        "GlueDatabaseName",
        "tidemark",
        "[a-z0-9_]{1,255}",
        "Glue database of the raw and curated tables.");
    string(
        p,
        "ProjectionStart",
        PROJECTION_START_DEFAULT,
        "[0-9]{4}-[0-9]{2}-[0-9]{2}",
        "Oldest raw date folder the raw table reads (partition projection start).");
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
        "Bucket holding the ingest job's script and jar.");
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
        "IngestSchedule",
        "cron(0 3 * * ? *)",
        "cron\\(.+\\)",
        "When the ingest job runs (a Glue trigger's cron, UTC).");
    string(
        p,
        "SweepSchedule",
        "cron(0 5 ? * SUN *)",
        "cron\\(.+\\)",
        "When the ingest job runs --mode sweep, picking up raw files the lookback missed (a Glue"
            + " trigger's cron, UTC; keep it clear of IngestSchedule: the job runs one at a time).");
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
        .put("Description", "Glue workers.");
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

  private static void catalog(ObjectNode r) {
    ObjectNode db = resource(r, "GlueDatabase", "AWS::Glue::Database").with("Properties");
    db.set("CatalogId", ref("AWS::AccountId"));
    db.putObject("DatabaseInput")
        .put(
            "Description",
            "Tidemark: the raw layer's external tables and the curated Iceberg tables")
        .set("Name", ref("GlueDatabaseName"));

    ObjectNode table = resource(r, "RawTable", "AWS::Glue::Table").with("Properties");
    table.set("CatalogId", ref("AWS::AccountId"));
    table.set("DatabaseName", ref("GlueDatabase"));
    ObjectNode in = table.putObject("TableInput");
    in.set("Name", sub("${Dataset}_raw"));
    in.put("Description", "Raw exports of the dataset: Parquet, one folder per ingest day");
    in.put("TableType", "EXTERNAL_TABLE");
    String part = DATASET.raw().partitionColumn();
    ObjectNode tp = in.putObject("Parameters");
    tp.put("EXTERNAL", "TRUE");
    tp.put("classification", "parquet");
    projection(part).forEach((k, v) -> tp.set(k, v));
    in.putArray("PartitionKeys").addObject().put("Name", part).put("Type", "string");
    ObjectNode sd = in.putObject("StorageDescriptor");
    ArrayNode cols = sd.putArray("Columns");
    rawColumns().forEach((name, type) -> cols.addObject().put("Name", name).put("Type", type));
    sd.set("Location", sub("s3://${LakeBucketName}/${RawPrefix}/${Dataset}/"));
    sd.put("InputFormat", "org.apache.hadoop.hive.ql.io.parquet.MapredParquetInputFormat");
    sd.put("OutputFormat", "org.apache.hadoop.hive.ql.io.parquet.MapredParquetOutputFormat");
    sd.putObject("SerdeInfo")
        .put("SerializationLibrary", "org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe")
        .putObject("Parameters")
        .put("serialization.format", "1");
  }

  /** The partition projection table properties, as the reconciler's DDL writes them. */
  private static Map<String, JsonNode> projection(String part) {
    Map<String, JsonNode> m = new LinkedHashMap<>();
    m.put("projection.enabled", text("true"));
    m.put("projection." + part + ".type", text("date"));
    m.put("projection." + part + ".format", text("yyyy-MM-dd"));
    m.put("projection." + part + ".range", sub("${ProjectionStart}," + PROJECTION_END));
    m.put("projection." + part + ".interval", text("1"));
    m.put("projection." + part + ".interval.unit", text("DAYS"));
    // ${!x} is Fn::Sub's escape for a literal ${x}: Athena fills in the partition value.
    m.put(
        "storage.location.template",
        sub("s3://${LakeBucketName}/${RawPrefix}/${Dataset}/" + part + "=${!" + part + "}/"));
    return m;
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

  /** The ingest job's options, by their names in {@code IngestCommand}. */
  static Map<String, JsonNode> jobArguments() {
    Map<String, JsonNode> a = new LinkedHashMap<>();
    // A Scala job: Glue compiles the script (deploy/glue/ingest.scala) against the job jar and runs
    // its object, which hands the arguments to io.tidemark.ingest.cli.GlueEntryPoint.
    a.put("--job-language", text("scala"));
    a.put("--class", text(GLUE_SCRIPT_OBJECT));
    a.put("--datalake-formats", text("iceberg"));
    a.put("--extra-jars", sub("s3://${ArtifactBucketName}/${JobJarKey}"));
    a.put("--raw-root", sub("s3://${LakeBucketName}/${RawPrefix}"));
    a.put("--dataset", ref("Dataset"));
    a.put("--pipeline", ref("Pipeline"));
    // One --catalog-property fits in Glue's argument map; the job adds --warehouse to a typed
    // catalog's properties as its warehouse.
    a.put("--catalog-property", text("type=glue"));
    a.put("--warehouse", sub("s3://${LakeBucketName}/${WarehousePrefix}"));
    a.put("--table", sub("${GlueDatabase}.${Dataset}"));
    a.put("--state-root", sub("s3://${LakeBucketName}/${StatePrefix}"));
    a.put("--cloudwatch", text("true"));
    a.put("--cloudwatch-namespace", text(Metric.NAMESPACE_DEFAULT));
    a.put("--cloudwatch-region", ref("AWS::Region"));
    return a;
  }

  private static void ingestJob(ObjectNode r) {
    ObjectNode role = resource(r, "IngestJobRole", "AWS::IAM::Role").with("Properties");
    role.set("AssumeRolePolicyDocument", assumeRole("glue.amazonaws.com"));
    ArrayNode statements = MAPPER.createArrayNode();
    statements.add(
        allow(
            "ReadJobArtifacts",
            List.of("s3:GetObject"),
            sub("arn:${AWS::Partition}:s3:::${ArtifactBucketName}/${JobScriptKey}"),
            sub("arn:${AWS::Partition}:s3:::${ArtifactBucketName}/${JobJarKey}")));
    statements.add(
        listBucket(
            "ListLake",
            List.of("${RawPrefix}/*", "${WarehousePrefix}/*", "${StatePrefix}/*"),
            List.of("${RawPrefix}", "${WarehousePrefix}", "${StatePrefix}")));
    statements.add(allow("ReadRaw", List.of("s3:GetObject"), objects("${RawPrefix}/${Dataset}/*")));
    statements.add(
        allow(
            "ReadWriteWarehouseAndState",
            List.of("s3:GetObject", "s3:PutObject", "s3:DeleteObject"),
            objects("${WarehousePrefix}/*"),
            objects("${StatePrefix}/*")));
    statements.add(
        allow(
            "CuratedTablesInGlue",
            List.of(
                "glue:GetDatabase",
                "glue:GetTable",
                "glue:GetTables",
                "glue:CreateTable",
                "glue:UpdateTable"),
            glueArn("catalog"),
            glueArn("database/${GlueDatabase}"),
            glueArn("table/${GlueDatabase}/${Dataset}"),
            glueArn("table/${GlueDatabase}/${Dataset}_quarantine"),
            glueArn("table/${GlueDatabase}/${Dataset}_tombstones")));
    statements.add(putMetricData());
    statements.add(
        allow(
            "GlueJobLogs",
            List.of("logs:CreateLogGroup", "logs:CreateLogStream", "logs:PutLogEvents"),
            glueLogGroup("output"),
            glueLogGroup("error"),
            glueLogGroup("logs-v2")));
    policies(role, "tidemark-ingest", statements);

    ObjectNode job = resource(r, "IngestJob", "AWS::Glue::Job").with("Properties");
    job.set("Name", sub("tidemark-ingest-${Pipeline}-${Dataset}"));
    job.put("Description", "Tidemark ingest: new raw files into the curated Iceberg table");
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
    job.putObject("ExecutionProperty").put("MaxConcurrentRuns", 1);

    ObjectNode trigger = resource(r, "IngestTrigger", "AWS::Glue::Trigger").with("Properties");
    trigger.set("Name", sub("tidemark-ingest-${Pipeline}-${Dataset}-schedule"));
    trigger.put("Type", "SCHEDULED");
    trigger.set("Schedule", ref("IngestSchedule"));
    trigger.put("StartOnCreation", true);
    trigger.putArray("Actions").addObject().set("JobName", ref("IngestJob"));

    // The weekly sweep: the same job and arguments, in --mode sweep (SWEEP's alarms watch it).
    ObjectNode sweep = resource(r, "SweepTrigger", "AWS::Glue::Trigger").with("Properties");
    sweep.set("Name", sub("tidemark-ingest-${Pipeline}-${Dataset}-sweep"));
    sweep.put("Type", "SCHEDULED");
    sweep.set("Schedule", ref("SweepSchedule"));
    sweep.put("StartOnCreation", true);
    ObjectNode action = sweep.putArray("Actions").addObject();
    action.set("JobName", ref("IngestJob"));
    action.putObject("Arguments").put("--mode", "sweep");
  }

  // ---------------------------------------------------------------- the reconciler

  private static void reconciler(ObjectNode r) {
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
    statements.add(
        allow(
            "GlueReadTables",
            List.of("glue:GetDatabase", "glue:GetTable", "glue:GetPartitions"),
            glueArn("catalog"),
            glueArn("database/${GlueDatabase}"),
            glueArn("table/${GlueDatabase}/${RawTable}"),
            glueArn("table/${GlueDatabase}/${Dataset}")));
    statements.add(
        listBucket(
            "ListLake",
            List.of(
                "${RawPrefix}/*",
                "${WarehousePrefix}/*",
                "${StatePrefix}/*",
                "${AthenaResultsPrefix}/*"),
            List.of(
                "${RawPrefix}", "${WarehousePrefix}", "${StatePrefix}", "${AthenaResultsPrefix}")));
    statements.add(allow("LakeLocation", List.of("s3:GetBucketLocation"), bucketArn()));
    statements.add(
        allow(
            "ReadRawWarehouseAndRunReports",
            List.of("s3:GetObject"),
            objects("${RawPrefix}/${Dataset}/*"),
            objects("${WarehousePrefix}/*"),
            objects("${StatePrefix}/" + StateLayout.RUNS_FOLDER + "/*")));
    statements.add(
        allow(
            "ReadWriteReportsAndAthenaResults",
            List.of("s3:GetObject", "s3:PutObject", "s3:AbortMultipartUpload"),
            objects("${StatePrefix}/" + StateLayout.RECONCILIATION_FOLDER + "/*"),
            objects("${AthenaResultsPrefix}/*")));
    statements.add(putMetricData());
    policies(role, "tidemark-reconciler", statements);

    ObjectNode logs = resource(r, "ReconcilerLogGroup", "AWS::Logs::LogGroup").with("Properties");
    logs.set("LogGroupName", sub("/tidemark/${Pipeline}/reconciler"));
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
    cluster.set("ClusterName", sub("tidemark-${Pipeline}"));

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
    td.set("Family", sub("tidemark-reconciler-${Pipeline}"));
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
    svc.set("ServiceName", sub("tidemark-reconciler-${Pipeline}"));
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

  private static ObjectNode putMetricData() {
    // cloudwatch:PutMetricData has no resource-level permissions: AWS requires "*". The condition
    // limits it to the catalogue's namespace.
    ObjectNode s = allow("PublishMetrics", List.of("cloudwatch:PutMetricData"), text("*"));
    s.putObject("Condition")
        .putObject("StringEquals")
        .put("cloudwatch:namespace", Metric.NAMESPACE_DEFAULT);
    return s;
  }

  private static ObjectNode listBucket(String sid, List<String> prefixes, List<String> exact) {
    ObjectNode s = allow(sid, List.of("s3:ListBucket"), bucketArn());
    ArrayNode values = MAPPER.createArrayNode();
    prefixes.forEach(p -> values.add(sub(p)));
    exact.forEach(p -> values.add(sub(p)));
    s.putObject("Condition").putObject("StringLike").set("s3:prefix", values);
    return s;
  }

  /** The log groups Glue jobs write to (driver output, errors, continuous logs), their streams. */
  private static JsonNode glueLogGroup(String name) {
    return sub(
        "arn:${AWS::Partition}:logs:${AWS::Region}:${AWS::AccountId}:log-group:/aws-glue/jobs/"
            + name
            + ":*");
  }

  private static JsonNode bucketArn() {
    return sub("arn:${AWS::Partition}:s3:::${LakeBucketName}");
  }

  private static JsonNode objects(String keyPattern) {
    return sub("arn:${AWS::Partition}:s3:::${LakeBucketName}/" + keyPattern);
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
    ObjectNode n = resources.putObject(id);
    n.put("Type", type);
    n.putObject("Properties");
    return n;
  }

  private static void output(ObjectNode outputs, String name, JsonNode value, String description) {
    outputs.putObject(name).put("Description", description).set("Value", value);
  }

  private static ObjectNode equalsNode(JsonNode a, JsonNode b) {
    ObjectNode n = MAPPER.createObjectNode();
    n.putArray("Fn::Equals").add(a).add(b);
    return n;
  }

  private static JsonNode text(String s) {
    return MAPPER.getNodeFactory().textNode(s);
  }

  private static ObjectNode ref(String name) {
    ObjectNode n = MAPPER.createObjectNode();
    n.put("Ref", name);
    return n;
  }

  private static ObjectNode getAtt(String resource, String attribute) {
    ObjectNode n = MAPPER.createObjectNode();
    n.putArray("Fn::GetAtt").add(resource).add(attribute);
    return n;
  }

  private static ObjectNode sub(String text) {
    ObjectNode n = MAPPER.createObjectNode();
    n.put("Fn::Sub", text);
    return n;
  }

  private static String write(JsonNode node) {
    try {
      return MAPPER.writeValueAsString(node) + "\n";
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }
}
