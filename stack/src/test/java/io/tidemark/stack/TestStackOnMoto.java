package io.tidemark.stack;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tidemark.model.alarms.AlarmDefinition;
import io.tidemark.model.alarms.AlarmTemplateReader;
import io.tidemark.model.config.RuleKind;
import io.tidemark.model.testing.MotoServer;
import io.tidemark.model.testing.ProjectFiles;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
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
import software.amazon.awssdk.services.cloudformation.model.Capability;
import software.amazon.awssdk.services.cloudformation.model.Parameter;
import software.amazon.awssdk.services.cloudformation.model.StackResource;
import software.amazon.awssdk.services.cloudformation.model.StackStatus;
import software.amazon.awssdk.services.cloudwatch.CloudWatchClient;
import software.amazon.awssdk.services.cloudwatch.model.MetricAlarm;

/**
 * The deployment stack of the example contract (two datasets) goes through moto_server's
 * CloudFormation, and what it created is read back with the services' own APIs (ECS, IAM, S3, Logs,
 * CloudWatch, Glue, Athena).
 *
 * <p>moto 5.2's CloudFormation has no support for {@code AWS::Glue::Database}, {@code
 * AWS::Glue::Table}, {@code AWS::Glue::Job}, {@code AWS::Glue::Trigger}, {@code
 * AWS::Athena::WorkGroup} and {@code AWS::CloudWatch::Alarm}: it skips them with a warning and
 * leaves references to them empty, so a full stack would "succeed" with a blank workgroup in the
 * container's environment. The test therefore creates a reduced stack without those resources,
 * where every reference to one is replaced by what CloudFormation's {@code Ref} returns for it (its
 * name), and then creates each of them as CloudFormation would: its properties resolved ({@link
 * Intrinsics}) against the same parameters and the roles the stack created, sent to moto's Glue,
 * Athena and CloudWatch APIs (their property names are the APIs' own). cfn-lint checks those
 * resources against CloudFormation's schema ({@link TestStackTemplate}).
 *
 * <p>moto's CloudFormation also ignores some properties of resources it creates (the bucket's
 * versioning and public access block; the task definition's roles, CPU and memory; the service's
 * launch type and network configuration): the test does not claim them, cfn-lint checks their
 * schema and {@link TestStackTemplate} their values.
 *
 * <p>The project's AWS SDK has no ECS, IAM, Glue or Athena client here, so those are read with
 * their plain HTTP protocols (JSON 1.1, or the query protocol for IAM and EC2), which moto answers
 * unsigned.
 */
@Tags({@Tag("aws"), @Tag("cfnlint")})
class TestStackOnMoto {
  private static final ObjectMapper MAPPER = new ObjectMapper();

  /** The composite alarms' properties as CloudFormation would resolve them. */
  private static List<JsonNode> compositeAlarms = List.of();

  /** What moto's CloudFormation cannot create; the test creates them through their APIs. */
  static final Set<String> NOT_ON_MOTO_TYPES =
      Set.of(
          "AWS::Glue::Database",
          "AWS::Glue::Table",
          "AWS::Glue::Job",
          "AWS::Glue::Trigger",
          "AWS::Athena::WorkGroup",
          "AWS::CloudWatch::Alarm",
          // moto's CloudFormation creates these but lists them without their logical ids.
          "AWS::CloudWatch::CompositeAlarm",
          "AWS::Events::Rule");

  /** The property of each of them that names it: what CloudFormation's Ref returns. */
  private static final Map<String, String> NAME_PROPERTY =
      Map.of(
          "AWS::Glue::Database", "/DatabaseInput/Name",
          "AWS::Glue::Table", "/TableInput/Name",
          "AWS::Glue::Job", "/Name",
          "AWS::Glue::Trigger", "/Name",
          "AWS::Athena::WorkGroup", "/Name",
          "AWS::CloudWatch::Alarm", "/AlarmName",
          "AWS::CloudWatch::CompositeAlarm", "/AlarmName",
          "AWS::Events::Rule", "/Name");

  private static final String SECRET =
      "arn:aws:secretsmanager:us-east-1:123456789012:secret:tidemark-api-keys-AbCdEf";

  private static final String ALARM_TOPIC = "arn:aws:sns:us-east-1:123456789012:tidemark-alarms";

  private static MotoServer moto;
  private static CloudFormationClient cfn;
  private static CloudWatchClient cloudWatch;
  private static final HttpClient HTTP = HttpClient.newHttpClient();
  private static Map<String, String> params;
  private static Map<String, StackResource> created;
  private static JsonNode template;

  /** Each resource moto's CloudFormation skips, by logical id, with its name. */
  private static Map<String, String> notOnMoto;

  @BeforeAll
  static void createTheStack() throws Exception {
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
    // moto's default VPC and one of its subnets, for the service's network configuration.
    String vpc = firstMatch(ec2("DescribeVpcs"), "<vpcId>(vpc-[0-9a-f]+)</vpcId>");
    String subnet = firstMatch(ec2("DescribeSubnets"), "<subnetId>(subnet-[0-9a-f]+)</subnetId>");

    params = new LinkedHashMap<>();
    params.put("DeploymentName", "crm");
    params.put("LakeBucketName", "acme-lake");
    params.put("ArtifactBucketName", "acme-artifacts");
    params.put(
        "ReconcilerImageUri",
        "123456789012.dkr.ecr.us-east-1.amazonaws.com/tidemark-reconciler:1.0");
    params.put("ApiKeySecretArn", SECRET);
    params.put("VpcId", vpc);
    params.put("SubnetIds", subnet);
    params.put("GlueDatabaseName", "lake_db");
    params.put("AthenaWorkGroupName", "tidemark-crm");
    params.put("AlarmTopicArn", ALARM_TOPIC);

    template = MAPPER.readTree(ProjectFiles.root().resolve(StackTemplate.PATH).toFile());
    Map<String, String> refs = refs(template);
    notOnMoto = new LinkedHashMap<>();
    Intrinsics names = new Intrinsics(refs, Map.of(), template);
    template
        .path("Resources")
        .fields()
        .forEachRemaining(
            e -> {
              String type = e.getValue().path("Type").asText();
              if (NOT_ON_MOTO_TYPES.contains(type)) {
                JsonNode name = e.getValue().path("Properties").at(NAME_PROPERTY.get(type));
                notOnMoto.put(e.getKey(), names.resolve(name).asText());
              }
            });

    String body = MAPPER.writeValueAsString(reduced(template));
    cfn.createStack(
        r ->
            r.stackName("tidemark")
                .templateBody(body)
                .capabilities(Capability.CAPABILITY_IAM)
                .parameters(
                    params.entrySet().stream()
                        .map(
                            e ->
                                Parameter.builder()
                                    .parameterKey(e.getKey())
                                    .parameterValue(e.getValue())
                                    .build())
                        .toList()));
    Instant deadline = Instant.now().plus(Duration.ofSeconds(60));
    StackStatus status;
    do {
      status = cfn.describeStacks(r -> r.stackName("tidemark")).stacks().get(0).stackStatus();
    } while (status == StackStatus.CREATE_IN_PROGRESS && Instant.now().isBefore(deadline));
    assertThat(status).isEqualTo(StackStatus.CREATE_COMPLETE);
    created =
        cfn.describeStackResources(r -> r.stackName("tidemark")).stackResources().stream()
            .collect(Collectors.toMap(StackResource::logicalResourceId, r -> r));

    createWhatMotosCloudFormationSkips(refs);
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

  /** What Ref returns: the parameters (defaults and given), pseudo parameters. */
  private static Map<String, String> refs(JsonNode template) {
    Map<String, String> refs = new HashMap<>();
    template
        .path("Parameters")
        .fields()
        .forEachRemaining(
            p -> {
              if (p.getValue().has("Default")) {
                refs.put(p.getKey(), p.getValue().get("Default").asText());
              }
            });
    refs.putAll(params);
    refs.put("AWS::Region", MotoServer.REGION);
    refs.put("AWS::AccountId", "123456789012");
    refs.put("AWS::Partition", "aws");
    refs.put("AWS::StackName", "tidemark");
    return refs;
  }

  /** The template without what moto cannot create; references to those become their names. */
  static JsonNode reduced(JsonNode template) {
    ObjectNode t = template.deepCopy();
    ObjectNode resources = (ObjectNode) t.get("Resources");
    notOnMoto.keySet().forEach(resources::remove);
    return rewrite(t);
  }

  private static JsonNode rewrite(JsonNode node) {
    if (node.isObject() && node.size() == 1 && node.has("Ref")) {
      String name = notOnMoto.get(node.get("Ref").asText());
      if (name != null) {
        return MAPPER.getNodeFactory().textNode(name);
      }
    }
    if (node.isObject()
        && node.size() == 1
        && node.has("Fn::Sub")
        && node.get("Fn::Sub").isTextual()) {
      String text = node.get("Fn::Sub").asText();
      for (Map.Entry<String, String> e : notOnMoto.entrySet()) {
        text = text.replace("${" + e.getKey() + "}", e.getValue());
      }
      ObjectNode sub = MAPPER.createObjectNode();
      sub.put("Fn::Sub", text);
      return sub;
    }
    if (node.isObject()) {
      ObjectNode out = MAPPER.createObjectNode();
      node.fields().forEachRemaining(e -> out.set(e.getKey(), rewrite(e.getValue())));
      return out;
    }
    if (node.isArray()) {
      ArrayNode out = MAPPER.createArrayNode();
      node.forEach(n -> out.add(rewrite(n)));
      return out;
    }
    return node;
  }

  /**
   * Creates, in template order, each resource moto's CloudFormation skips, with the properties
   * CloudFormation would send: resolved against the stack's parameters, the names of the others and
   * the roles the stack created.
   */
  private static void createWhatMotosCloudFormationSkips(Map<String, String> stackRefs)
      throws Exception {
    Map<String, String> refs = new HashMap<>(stackRefs);
    refs.putAll(notOnMoto);
    Map<String, String> attributes = new HashMap<>();
    for (String role : List.of("IngestJobRole", "ReconcilerTaskRole")) {
      String xml =
          query(
              "iam",
              "Action=GetRole&Version=2010-05-08&RoleName="
                  + URLEncoder.encode(
                      created.get(role).physicalResourceId(), StandardCharsets.UTF_8));
      attributes.put(role + ".Arn", firstMatch(xml, "<Arn>(arn:aws:iam::[^<]+)</Arn>"));
    }
    Intrinsics cfnWould = new Intrinsics(refs, attributes, template);
    List<JsonNode> composites = new ArrayList<>();
    var it = template.path("Resources").fields();
    while (it.hasNext()) {
      var e = it.next();
      if (!notOnMoto.containsKey(e.getKey())) {
        continue;
      }
      JsonNode props = cfnWould.resolve(e.getValue().path("Properties"));
      switch (e.getValue().path("Type").asText()) {
        case "AWS::Glue::Database" -> glue("CreateDatabase", props);
        case "AWS::Glue::Table" -> glue("CreateTable", props);
        case "AWS::Glue::Job" -> glue("CreateJob", props);
        case "AWS::Glue::Trigger" -> glue("CreateTrigger", props);
        case "AWS::Athena::WorkGroup" -> {
          // CloudFormation's WorkGroupConfiguration is the API's Configuration.
          ObjectNode request = MAPPER.createObjectNode();
          request.set("Name", props.get("Name"));
          request.set("Description", props.get("Description"));
          request.set("Configuration", props.get("WorkGroupConfiguration"));
          json("athena", "AmazonAthena.CreateWorkGroup", request);
        }
        case "AWS::Events::Rule" -> {
          // CloudFormation's EventPattern is an object; the API takes it as text.
          ObjectNode rule = props.deepCopy();
          rule.remove("Targets");
          rule.put("EventPattern", MAPPER.writeValueAsString(props.get("EventPattern")));
          json("events", "AWSEvents.PutRule", rule);
          // Its target, the alarm topic, is not put: moto's EventBridge cannot deliver to SNS.
          // The test routes the rule to a queue it reads instead.
        }
        case "AWS::CloudWatch::CompositeAlarm" -> composites.add(props);
        default -> {} // the alarms: below, through the alarm reader
      }
    }
    for (AlarmDefinition a : AlarmTemplateReader.read(template, refs)) {
      cloudWatch.putMetricAlarm(TestTemplatesOnMoto.asCloudFormationWould(a));
    }
    // moto holds no composite alarm (no PutCompositeAlarm, none in its CloudFormation): the
    // test keeps them as CloudFormation would create them and checks what their rules name.
    compositeAlarms = composites;
  }

  // ---------------------------------------------------------------- what the stack created

  /**
   * Each dataset has one composite alarm whose rule names every one of that dataset's alarms (as
   * created on moto) and none of the other's: what pages once per dataset.
   */
  @Test
  void eachDatasetsCompositeAlarmWatchesEveryAlarmOfItsOwn() {
    assertThat(compositeAlarms).hasSize(2);
    for (List<String> pair : List.of(List.of("crm", "customers"), List.of("sales", "orders"))) {
      String prefix = "tidemark-" + pair.get(0) + "-" + pair.get(1) + "-";
      List<String> own =
          cloudWatch.describeAlarms(r -> r.alarmNamePrefix(prefix)).metricAlarms().stream()
              .map(MetricAlarm::alarmName)
              .toList();
      JsonNode composite =
          compositeAlarms.stream()
              .filter(c -> c.path("AlarmName").asText().equals(prefix + "dataset"))
              .findFirst()
              .orElseThrow();
      String rule = composite.path("AlarmRule").asText();
      List<String> named = new ArrayList<>();
      Matcher m = Pattern.compile("ALARM\\(\"([^\"]+)\"\\)").matcher(rule);
      while (m.find()) {
        named.add(m.group(1));
      }
      assertThat(named)
          .containsExactlyInAnyOrderElementsOf(own)
          .hasSize(RuleKind.values().length + 15);
      assertThat(rule.split(" OR ")).hasSize(named.size());
      // The stack's topic, through the composite alone (AlarmNotifications' default).
      assertThat(composite.path("AlarmActions").toString())
          .isEqualTo("[\"" + params.get("AlarmTopicArn") + "\"]");
    }
  }

  /**
   * The stack's rule sends the events the reconciler puts for a FAILED or ERROR verdict of its
   * deployment's datasets to the alarm topic, and lets a PASSED verdict, other datasets' and
   * another deployment's events by. moto's EventBridge cannot deliver to SNS, so the test points
   * the rule (its pattern as the template states it) at a queue it reads and puts the reconciler's
   * own event documents on the bus.
   */
  @Test
  void failedVerdictsOfTheStacksDatasetsGoToTheAlarmTopic() throws Exception {
    JsonNode generated = template.path("Resources").path("FailedReconciliationsRule");
    assertThat(generated.path("Properties").path("Targets").get(0).path("Arn").toString())
        .isEqualTo("{\"Ref\":\"AlarmTopicArn\"}");
    JsonNode rule =
        json("events", "AWSEvents.DescribeRule", json("Name", "tidemark-failed-reconciliations"));
    assertThat(rule.path("State").asText()).isEqualTo("ENABLED");

    String queue =
        sqs("AmazonSQS.CreateQueue", json("QueueName", "tidemark-alarm-topic-stand-in"))
            .path("QueueUrl")
            .asText();
    String queueArn =
        sqs(
                "AmazonSQS.GetQueueAttributes",
                (ObjectNode) json("QueueUrl", queue).set("AttributeNames", array("QueueArn")))
            .path("Attributes")
            .path("QueueArn")
            .asText();
    ObjectNode targets = json("Rule", "tidemark-failed-reconciliations");
    targets.putArray("Targets").addObject().put("Id", "stand-in").put("Arn", queueArn);
    json("events", "AWSEvents.PutTargets", targets);

    ObjectNode put = MAPPER.createObjectNode();
    ArrayNode entries = put.putArray("Entries");
    for (String[] verdict :
        List.of(
            new String[] {"crm", "customers", "FAILED"},
            new String[] {"crm", "customers", "PASSED"},
            new String[] {"crm", "another_stacks_dataset", "FAILED"},
            new String[] {"crm-staging", "customers", "FAILED"},
            new String[] {"crm", "orders", "ERROR"})) {
      entries
          .addObject()
          .put("Source", io.tidemark.model.events.ReconciliationFinished.SOURCE)
          .put("DetailType", io.tidemark.model.events.ReconciliationFinished.DETAIL_TYPE)
          .put(
              "Detail",
              io.tidemark.model.json.Json.write(event(verdict[0], verdict[1], verdict[2])));
    }
    json("events", "AWSEvents.PutEvents", put);

    List<String> routed = new ArrayList<>();
    for (JsonNode m :
        sqs(
                "AmazonSQS.ReceiveMessage",
                json("QueueUrl", queue).put("MaxNumberOfMessages", 10).put("WaitTimeSeconds", 1))
            .path("Messages")) {
      JsonNode detail = MAPPER.readTree(m.path("Body").asText()).path("detail");
      routed.add(detail.path("dataset").asText() + " " + detail.path("status").asText());
    }
    assertThat(routed).containsExactlyInAnyOrder("customers FAILED", "orders ERROR");
  }

  /** The event document the reconciler puts for a FULL reconciliation of a dataset. */
  private static io.tidemark.model.events.ReconciliationFinished event(
      String deployment, String dataset, String status) {
    return new io.tidemark.model.events.ReconciliationFinished(
        deployment,
        "default",
        dataset,
        "20261204T020000Z-0123abcd",
        "FULL",
        status,
        "schedule",
        status.equals("PASSED") ? List.of() : List.of("missing_keys"),
        null,
        Instant.parse("2026-12-04T02:00:00Z"),
        42L,
        Instant.parse("2026-12-04T02:00:00Z"),
        Instant.parse("2026-12-04T02:01:00Z"),
        "/api/reconciliations/20261204T020000Z-0123abcd",
        null);
  }

  private static ArrayNode array(String... values) {
    ArrayNode a = MAPPER.createArrayNode();
    for (String v : values) {
      a.add(v);
    }
    return a;
  }

  /** An SQS call in its JSON protocol. */
  private static JsonNode sqs(String target, JsonNode request) throws Exception {
    HttpResponse<String> r =
        HTTP.send(
            HttpRequest.newBuilder(moto.endpoint().resolve("/"))
                .header("Content-Type", "application/x-amz-json-1.0")
                .header("X-Amz-Target", target)
                .header("Authorization", auth("sqs"))
                .POST(HttpRequest.BodyPublishers.ofString(MAPPER.writeValueAsString(request)))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).as("%s: %s", target, r.body()).isEqualTo(200);
    return MAPPER.readTree(r.body());
  }

  @Test
  void everyResourceMotosCloudFormationSupportsIsCreated() {
    assertThat(created.keySet())
        .containsExactlyInAnyOrder(
            "LakeBucket",
            "IngestJobRole",
            "ReconcilerTaskRole",
            "ReconcilerExecutionRole",
            "ReconcilerLogGroup",
            "ReconcilerCluster",
            "ReconcilerSecurityGroup",
            "ReconcilerTaskDefinition",
            "ReconcilerService",
            "CustomersDashboard",
            "OrdersDashboard");
    created
        .values()
        .forEach(
            r -> {
              assertThat(r.resourceStatusAsString())
                  .as(r.logicalResourceId())
                  .isEqualTo("CREATE_COMPLETE");
              assertThat(r.physicalResourceId()).as(r.logicalResourceId()).isNotBlank();
            });
    assertThat(created.get("LakeBucket").physicalResourceId()).isEqualTo("acme-lake");
  }

  @Test
  void theReconcilerContainerGetsTheContractAndTheDeploymentsSettingsAndTheApiKeySecret()
      throws Exception {
    JsonNode container =
        ecs(
                "DescribeTaskDefinition",
                "{\"taskDefinition\":\""
                    + created.get("ReconcilerTaskDefinition").physicalResourceId()
                    + "\"}")
            .path("taskDefinition")
            .path("containerDefinitions")
            .get(0);
    Map<String, String> env = new LinkedHashMap<>();
    container
        .path("environment")
        .forEach(e -> env.put(e.path("name").asText(), e.path("value").asText()));
    assertThat(env)
        .containsExactlyInAnyOrderEntriesOf(
            Map.ofEntries(
                Map.entry("TIDEMARK_CONTRACT", "s3://acme-artifacts/tidemark/tidemark.yaml"),
                Map.entry("TIDEMARK_STATE_ROOT", "s3://acme-lake/state"),
                Map.entry("TIDEMARK_ENGINE", "athena"),
                Map.entry("TIDEMARK_ATHENA_REGION", "us-east-1"),
                Map.entry("TIDEMARK_ATHENA_WORKGROUP", "tidemark-crm"),
                Map.entry("TIDEMARK_ATHENA_OUTPUT_LOCATION", "s3://acme-lake/athena-results/"),
                Map.entry("TIDEMARK_ATHENA_DATABASE", "lake_db"),
                Map.entry("QUARKUS_HTTP_HOST", "0.0.0.0"),
                Map.entry("TIDEMARK_API_ALLOWED_HOSTS", "*"),
                Map.entry("TIDEMARK_CLOUDWATCH_ENABLED", "true"),
                Map.entry("TIDEMARK_CLOUDWATCH_REGION", "us-east-1"),
                Map.entry("TIDEMARK_EVENTS_ENABLED", "true"),
                Map.entry("TIDEMARK_EVENTS_REGION", "us-east-1"),
                Map.entry("TIDEMARK_EVENTS_DEPLOYMENT", "crm")));
    assertThat(container.path("secrets").size()).isEqualTo(1);
    assertThat(container.path("secrets").get(0).path("name").asText())
        .isEqualTo("TIDEMARK_API_KEYS");
    assertThat(container.path("secrets").get(0).path("valueFrom").asText()).isEqualTo(SECRET);
    assertThat(container.path("image").asText()).isEqualTo(params.get("ReconcilerImageUri"));
    assertThat(container.path("portMappings").get(0).path("containerPort").asInt()).isEqualTo(8080);
    assertThat(container.path("healthCheck").path("command").toString())
        .contains("http://localhost:8080/q/health/ready");
    assertThat(container.path("logConfiguration").path("options").path("awslogs-group").asText())
        .isEqualTo(created.get("ReconcilerLogGroup").physicalResourceId())
        .isEqualTo("/tidemark/crm/reconciler");
  }

  @Test
  void theServiceRunsTheTaskDefinitionInTheCluster() throws Exception {
    JsonNode service =
        ecs(
                "DescribeServices",
                "{\"cluster\":\""
                    + created.get("ReconcilerCluster").physicalResourceId()
                    + "\",\"services\":[\""
                    + created.get("ReconcilerService").physicalResourceId()
                    + "\"]}")
            .path("services")
            .get(0);
    assertThat(service.path("serviceName").asText()).isEqualTo("tidemark-reconciler-crm");
    assertThat(service.path("taskDefinition").asText())
        .isEqualTo(created.get("ReconcilerTaskDefinition").physicalResourceId());
    assertThat(service.path("desiredCount").asInt()).isEqualTo(1);
  }

  @Test
  void theRolesPoliciesAreResolvedAndScopedToTheContractsFoldersAndTables() throws Exception {
    String reconciler =
        rolePolicy(created.get("ReconcilerTaskRole").physicalResourceId(), "tidemark-reconciler");
    assertThat(reconciler).doesNotContain("${");
    JsonNode doc = MAPPER.readTree(reconciler);
    Map<String, JsonNode> bySid = new HashMap<>();
    doc.path("Statement").forEach(s -> bySid.put(s.path("Sid").asText(), s));
    assertThat(bySid.get("AthenaOnItsWorkGroup").path("Resource").toString())
        .isEqualTo("[\"arn:aws:athena:us-east-1:123456789012:workgroup/tidemark-crm\"]");
    assertThat(bySid.get("GlueReadTables").path("Resource").toString())
        .contains(
            "arn:aws:glue:us-east-1:123456789012:database/lake_db\"",
            "arn:aws:glue:us-east-1:123456789012:table/lake_db/customers_raw\"",
            "arn:aws:glue:us-east-1:123456789012:table/lake_db/orders_raw\"",
            "arn:aws:glue:us-east-1:123456789012:database/curated\"",
            "arn:aws:glue:us-east-1:123456789012:table/curated/customers\"",
            "arn:aws:glue:us-east-1:123456789012:table/curated/orders_quarantine\"");
    assertThat(bySid.get("ReadRawWarehouseRunReportsAndContract").path("Resource").toString())
        .isEqualTo(
            "[\"arn:aws:s3:::acme-lake/raw/customers/*\",\"arn:aws:s3:::acme-dms/exports/sales/orders/*\","
                + "\"arn:aws:s3:::acme-lake/warehouse/*\",\"arn:aws:s3:::acme-lake/state/_runs/*\","
                + "\"arn:aws:s3:::acme-artifacts/tidemark/tidemark.yaml\"]");
    assertThat(bySid.get("ReadWriteReportsAndAthenaResults").path("Resource").toString())
        .isEqualTo(
            "[\"arn:aws:s3:::acme-lake/state/_reconciliation/*\",\"arn:aws:s3:::acme-lake/athena-results/*\"]");
    assertThat(bySid.get("PublishMetrics").path("Condition").toString())
        .isEqualTo("{\"StringEquals\":{\"cloudwatch:namespace\":\"Tidemark\"}}");

    String ingest =
        rolePolicy(created.get("IngestJobRole").physicalResourceId(), "tidemark-ingest");
    assertThat(ingest).doesNotContain("${");
    JsonNode ingestDoc = MAPPER.readTree(ingest);
    Map<String, JsonNode> ingestBySid = new HashMap<>();
    ingestDoc.path("Statement").forEach(s -> ingestBySid.put(s.path("Sid").asText(), s));
    assertThat(ingestBySid.get("ReadRaw").path("Resource").toString())
        .isEqualTo(
            "[\"arn:aws:s3:::acme-lake/raw/customers/*\",\"arn:aws:s3:::acme-dms/exports/sales/orders/*\"]");
    assertThat(ingestBySid.get("ListRaw2").path("Resource").toString())
        .isEqualTo("[\"arn:aws:s3:::acme-dms\"]");
    assertThat(ingestBySid.get("ReadWriteWarehouseAndState").path("Resource").toString())
        .isEqualTo("[\"arn:aws:s3:::acme-lake/warehouse/*\",\"arn:aws:s3:::acme-lake/state/*\"]");
    assertThat(ingestBySid.get("CuratedTablesInGlue").path("Resource").toString())
        .contains(
            "table/curated/customers_quarantine",
            "table/curated/customers_tombstones",
            "table/curated/orders\"");
  }

  // ---------------------------------------------------------------- as CloudFormation would

  @Test
  void bothDatasetsRawTablesAreInGlueWithTheContractsColumnsTypesAndLayout() throws Exception {
    JsonNode customers =
        glue("GetTable", json("DatabaseName", "lake_db", "Name", "customers_raw")).path("Table");
    assertThat(columns(customers))
        .containsExactly(
            "customer_id string",
            "customer_name string",
            "email string",
            "updated_at timestamp",
            "op string");
    assertThat(customers.path("PartitionKeys").get(0).path("Name").asText())
        .isEqualTo("ingest_date");
    assertThat(customers.path("StorageDescriptor").path("Location").asText())
        .isEqualTo("s3://acme-lake/raw/customers/");
    assertThat(customers.path("Parameters").path("projection.ingest_date.range").asText())
        .isEqualTo("2020-01-01,NOW+1DAYS");
    assertThat(customers.path("Parameters").path("storage.location.template").asText())
        .isEqualTo("s3://acme-lake/raw/customers/ingest_date=${ingest_date}/");

    JsonNode orders =
        glue("GetTable", json("DatabaseName", "lake_db", "Name", "orders_raw")).path("Table");
    assertThat(columns(orders))
        .containsExactly(
            "op string",
            "order_id string",
            "line_nr int",
            "amount decimal(12,2)",
            "order_date date",
            "paid boolean",
            "change_seq bigint");
    assertThat(orders.path("PartitionKeys").size()).isZero();
    assertThat(orders.path("StorageDescriptor").path("Location").asText())
        .isEqualTo("s3://acme-dms/exports/sales/orders/");

    // The curated tables' database, for the ingest job's Iceberg tables.
    assertThat(glue("GetDatabase", json("Name", "curated")).path("Database").path("Name").asText())
        .isEqualTo("curated");
    assertThat(
            json("athena", "AmazonAthena.GetWorkGroup", json("WorkGroup", "tidemark-crm"))
                .path("WorkGroup")
                .path("Configuration")
                .path("ResultConfiguration")
                .path("OutputLocation")
                .asText())
        .isEqualTo("s3://acme-lake/athena-results/");
  }

  @Test
  void oneJobRunsEachDatasetOnItsScheduleAndItsWeeklySweep() throws Exception {
    JsonNode job = glue("GetJob", json("JobName", "tidemark-ingest-crm")).path("Job");
    assertThat(job.path("DefaultArguments").path("--contract").asText())
        .isEqualTo("s3://acme-artifacts/tidemark/tidemark.yaml");
    assertThat(job.path("DefaultArguments").path("--state-root").asText())
        .isEqualTo("s3://acme-lake/state");
    assertThat(job.path("DefaultArguments").has("--dataset")).isFalse();
    assertThat(job.path("ExecutionProperty").path("MaxConcurrentRuns").asInt()).isEqualTo(2);
    assertThat(job.path("Role").asText())
        .startsWith("arn:aws:iam::123456789012:role/")
        .endsWith(created.get("IngestJobRole").physicalResourceId());

    Map<String, JsonNode> triggers = new LinkedHashMap<>();
    glue("GetTriggers", MAPPER.createObjectNode())
        .path("Triggers")
        .forEach(t -> triggers.put(t.path("Name").asText(), t));
    assertThat(triggers.keySet())
        .containsExactlyInAnyOrder(
            "tidemark-ingest-crm-customers-schedule",
            "tidemark-ingest-crm-customers-sweep",
            "tidemark-ingest-crm-orders-schedule",
            "tidemark-ingest-crm-orders-sweep");
    for (String dataset : List.of("customers", "orders")) {
      JsonNode nightly = triggers.get("tidemark-ingest-crm-" + dataset + "-schedule");
      assertThat(nightly.path("Schedule").asText()).isEqualTo("cron(0 3 * * ? *)");
      JsonNode action = nightly.path("Actions").get(0);
      assertThat(action.path("JobName").asText()).isEqualTo("tidemark-ingest-crm");
      assertThat(action.path("Arguments").toString())
          .isEqualTo("{\"--dataset\":\"" + dataset + "\"}");
      JsonNode sweep =
          triggers.get("tidemark-ingest-crm-" + dataset + "-sweep").path("Actions").get(0);
      assertThat(sweep.path("Arguments").toString())
          .isEqualTo("{\"--dataset\":\"" + dataset + "\",\"--mode\":\"sweep\"}");
    }
  }

  @Test
  void bothDatasetsAlarmsWatchTheirOwnDimensions() {
    for (List<String> pair : List.of(List.of("crm", "customers"), List.of("sales", "orders"))) {
      String prefix = "tidemark-" + pair.get(0) + "-" + pair.get(1) + "-";
      Map<String, MetricAlarm> alarms =
          cloudWatch.describeAlarms(r -> r.alarmNamePrefix(prefix)).metricAlarms().stream()
              .collect(Collectors.toMap(MetricAlarm::alarmName, a -> a));
      // Per rule; 6 nightly incremental, 2 sweep, 3 operator runs and maintenance failed, 2
      // reconciler, anomaly.
      assertThat(alarms).as(prefix).hasSize(RuleKind.values().length + 15);
      MetricAlarm countMatch = alarms.get(prefix + "rule-count-match-failing");
      assertThat(countMatch.namespace()).isEqualTo("Tidemark");
      assertThat(countMatch.dimensions())
          .extracting(d -> d.name() + "=" + d.value())
          .containsExactlyInAnyOrder(
              "Pipeline=" + pair.get(0), "Dataset=" + pair.get(1), "Rule=count_match");
      assertThat(alarms.get(prefix + "sweep-run-failed").dimensions())
          .extracting(d -> d.name() + "=" + d.value())
          .containsExactlyInAnyOrder(
              "Pipeline=" + pair.get(0), "Dataset=" + pair.get(1), "Mode=SWEEP");
      assertThat(
              alarms
                  .get(prefix + "changed-records-anomaly")
                  .metrics()
                  .get(0)
                  .metricStat()
                  .metric()
                  .dimensions())
          .extracting(d -> d.name() + "=" + d.value())
          .containsExactlyInAnyOrder(
              "Pipeline=" + pair.get(0), "Dataset=" + pair.get(1), "Mode=INCREMENTAL");
      assertThat(alarms.values()).allSatisfy(a -> assertThat(a.alarmActions()).isEmpty());
    }
  }

  @Test
  void eachDatasetHasItsDashboardOfItsPairInTheStacksRegion() throws Exception {
    for (List<String> pair : List.of(List.of("crm", "customers"), List.of("sales", "orders"))) {
      String name = "tidemark-" + pair.get(0) + "-" + pair.get(1);
      assertThat(
              created
                  .get(StackTemplate.logicalPrefix(pair.get(1)) + "Dashboard")
                  .physicalResourceId())
          .isEqualTo(name);
      String body = cloudWatch.getDashboard(r -> r.dashboardName(name)).dashboardBody();
      assertThat(body).doesNotContain("${");
      JsonNode dashboard = MAPPER.readTree(body);
      assertThat(CatalogueConformance.problems(dashboard)).isEmpty();
      JsonNode first = dashboard.path("widgets").get(1).path("properties");
      assertThat(first.path("region").asText()).isEqualTo(MotoServer.REGION);
      JsonNode line = first.path("metrics").get(0);
      assertThat(
              List.of(
                  line.get(2).asText(),
                  line.get(3).asText(),
                  line.get(4).asText(),
                  line.get(5).asText()))
          .containsExactly("Pipeline", pair.get(0), "Dataset", pair.get(1));
    }
  }

  private static List<String> columns(JsonNode table) {
    List<String> out = new ArrayList<>();
    table
        .path("StorageDescriptor")
        .path("Columns")
        .forEach(c -> out.add(c.path("Name").asText() + " " + c.path("Type").asText()));
    return out;
  }

  private static ObjectNode json(String... keyValues) {
    ObjectNode n = MAPPER.createObjectNode();
    for (int i = 0; i < keyValues.length; i += 2) {
      n.put(keyValues[i], keyValues[i + 1]);
    }
    return n;
  }

  // ---------------------------------------------------------------- plain-HTTP readers

  private static String auth(String service) {
    return "AWS4-HMAC-SHA256 Credential=test/20260101/us-east-1/"
        + service
        + "/aws4_request, SignedHeaders=host, Signature=0";
  }

  private static JsonNode ecs(String action, String json) throws Exception {
    return json("ecs", "AmazonEC2ContainerServiceV20141113." + action, MAPPER.readTree(json));
  }

  private static JsonNode glue(String action, JsonNode request) throws Exception {
    return json("glue", "AWSGlue." + action, request);
  }

  /** A JSON 1.1 call: the service's target and the request body. */
  private static JsonNode json(String service, String target, JsonNode request) throws Exception {
    HttpResponse<String> r =
        HTTP.send(
            HttpRequest.newBuilder(moto.endpoint().resolve("/"))
                .header("Content-Type", "application/x-amz-json-1.1")
                .header("X-Amz-Target", target)
                .header("Authorization", auth(service))
                .POST(HttpRequest.BodyPublishers.ofString(MAPPER.writeValueAsString(request)))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).as("%s: %s", target, r.body()).isEqualTo(200);
    return MAPPER.readTree(r.body());
  }

  private static String query(String service, String form) throws Exception {
    HttpResponse<String> r =
        HTTP.send(
            HttpRequest.newBuilder(moto.endpoint().resolve("/"))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .header("Authorization", auth(service))
                .POST(HttpRequest.BodyPublishers.ofString(form))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).as("%s: %s", form, r.body()).isEqualTo(200);
    return r.body();
  }

  private static String ec2(String action) throws Exception {
    return query("ec2", "Action=" + action + "&Version=2016-11-15");
  }

  private static String rolePolicy(String role, String policy) throws Exception {
    String xml =
        query(
            "iam",
            "Action=GetRolePolicy&Version=2010-05-08&RoleName="
                + URLEncoder.encode(role, StandardCharsets.UTF_8)
                + "&PolicyName="
                + policy);
    String doc = firstMatch(xml, "<PolicyDocument>(.*?)</PolicyDocument>");
    doc =
        doc.replace("&quot;", "\"").replace("&amp;", "&").replace("&lt;", "<").replace("&gt;", ">");
    doc = doc.startsWith("%") ? URLDecoder.decode(doc, StandardCharsets.UTF_8) : doc;
    // moto's CloudFormation stores an inline policy as Python's repr of the parsed document
    // ({'Version': ...}); none of the stack's policy texts holds a quote, so this reads it back.
    return doc.startsWith("{'") ? doc.replace('\'', '"') : doc;
  }

  private static String firstMatch(String text, String regex) {
    Matcher m = Pattern.compile(regex, Pattern.DOTALL).matcher(text);
    assertThat(m.find()).as("%s in %s", regex, text).isTrue();
    return m.group(1);
  }
}
