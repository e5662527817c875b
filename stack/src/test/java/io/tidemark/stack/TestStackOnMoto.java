package io.tidemark.stack;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
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
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.cloudformation.CloudFormationClient;
import software.amazon.awssdk.services.cloudformation.model.Capability;
import software.amazon.awssdk.services.cloudformation.model.Parameter;
import software.amazon.awssdk.services.cloudformation.model.StackResource;
import software.amazon.awssdk.services.cloudformation.model.StackStatus;

/**
 * The deployment stack goes through moto_server's CloudFormation, and what it created is read back
 * with the services' own APIs (ECS, IAM, S3, Logs).
 *
 * <p>moto 5.2's CloudFormation has no support for {@code AWS::Glue::Database}, {@code
 * AWS::Glue::Table}, {@code AWS::Glue::Job}, {@code AWS::Glue::Trigger} and {@code
 * AWS::Athena::WorkGroup}: it skips them with a warning and leaves references to them empty, so a
 * full stack would "succeed" with a blank workgroup in the container's environment. The test
 * therefore creates a reduced stack without those five resources, where every reference to one is
 * replaced by what CloudFormation's {@code Ref} returns for it (its name, from the parameters).
 * Those five are covered by cfn-lint only ({@link TestStackTemplate}); the raw table's columns and
 * projection are compared with the reconciler's DDL in the reconciler's {@code TestDeployStack}.
 *
 * <p>moto's CloudFormation also ignores some properties of resources it creates (the bucket's
 * versioning and public access block; the task definition's roles, CPU and memory; the service's
 * launch type and network configuration): the test does not claim them, cfn-lint checks their
 * schema and {@link TestStackTemplate} their values.
 *
 * <p>The project's AWS SDK has no ECS or IAM client, so those two are read with their plain HTTP
 * protocols (JSON 1.1 for ECS, the query protocol for IAM), which moto answers unsigned.
 */
class TestStackOnMoto {
  private static final ObjectMapper MAPPER = new ObjectMapper();

  /** What moto's CloudFormation cannot create, and what CloudFormation's Ref returns for each. */
  static final Map<String, String> NOT_ON_MOTO =
      Map.of(
          "GlueDatabase", "${GlueDatabaseName}",
          "RawTable", "${Dataset}_raw",
          "IngestJob", "tidemark-ingest-${Pipeline}-${Dataset}",
          "IngestTrigger", "tidemark-ingest-${Pipeline}-${Dataset}-schedule",
          "SweepTrigger", "tidemark-ingest-${Pipeline}-${Dataset}-sweep",
          "AthenaWorkGroup", "${AthenaWorkGroupName}");

  static final Set<String> NOT_ON_MOTO_TYPES =
      Set.of(
          "AWS::Glue::Database",
          "AWS::Glue::Table",
          "AWS::Glue::Job",
          "AWS::Glue::Trigger",
          "AWS::Athena::WorkGroup");

  private static final String SECRET =
      "arn:aws:secretsmanager:us-east-1:123456789012:secret:tidemark-api-keys-AbCdEf";

  private static MotoServer moto;
  private static CloudFormationClient cfn;
  private static final HttpClient HTTP = HttpClient.newHttpClient();
  private static Map<String, String> params;
  private static Map<String, StackResource> created;

  @BeforeAll
  static void createTheReducedStack() throws Exception {
    moto = MotoServer.start();
    cfn =
        CloudFormationClient.builder()
            .endpointOverride(moto.endpoint())
            .region(Region.of(MotoServer.REGION))
            .credentialsProvider(
                StaticCredentialsProvider.create(
                    AwsBasicCredentials.create(MotoServer.ACCESS_KEY, MotoServer.SECRET_KEY)))
            .build();
    // moto's default VPC and one of its subnets, for the service's network configuration.
    String vpc = firstMatch(ec2("DescribeVpcs"), "<vpcId>(vpc-[0-9a-f]+)</vpcId>");
    String subnet = firstMatch(ec2("DescribeSubnets"), "<subnetId>(subnet-[0-9a-f]+)</subnetId>");

    params = new LinkedHashMap<>();
    params.put("LakeBucketName", "acme-lake");
    params.put("ArtifactBucketName", "acme-artifacts");
    params.put(
        "ReconcilerImageUri",
        "123456789012.dkr.ecr.us-east-1.amazonaws.com/tidemark-reconciler:1.0");
    params.put("ApiKeySecretArn", SECRET);
    params.put("VpcId", vpc);
    params.put("SubnetIds", subnet);
    params.put("Pipeline", "crm");
    params.put("GlueDatabaseName", "lake_db");
    params.put("AthenaWorkGroupName", "tidemark-crm");

    JsonNode template = MAPPER.readTree(ProjectFiles.root().resolve(StackTemplate.PATH).toFile());
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
  }

  @AfterAll
  static void stop() {
    if (cfn != null) {
      cfn.close();
    }
    if (moto != null) {
      moto.close();
    }
  }

  /** The template without what moto cannot create; references to those become their names. */
  static JsonNode reduced(JsonNode template) {
    ObjectNode t = template.deepCopy();
    ObjectNode resources = (ObjectNode) t.get("Resources");
    List<String> dropped = new ArrayList<>();
    resources
        .fields()
        .forEachRemaining(
            e -> {
              if (NOT_ON_MOTO_TYPES.contains(e.getValue().path("Type").asText())) {
                dropped.add(e.getKey());
              }
            });
    assertThat(dropped).containsExactlyInAnyOrderElementsOf(NOT_ON_MOTO.keySet());
    dropped.forEach(resources::remove);
    ObjectNode outputs = (ObjectNode) t.get("Outputs");
    List<String> unresolved = new ArrayList<>();
    outputs
        .fields()
        .forEachRemaining(
            e -> {
              String ref = e.getValue().path("Value").path("Ref").asText();
              if (NOT_ON_MOTO.containsKey(ref)) {
                unresolved.add(e.getKey());
              }
            });
    unresolved.forEach(outputs::remove);
    return rewrite(t);
  }

  private static JsonNode rewrite(JsonNode node) {
    if (node.isObject() && node.size() == 1 && node.has("Ref")) {
      String name = NOT_ON_MOTO.get(node.get("Ref").asText());
      if (name != null) {
        ObjectNode sub = MAPPER.createObjectNode();
        sub.put("Fn::Sub", name);
        return sub;
      }
    }
    if (node.isObject() && node.size() == 1 && node.has("Fn::Sub")) {
      String text = node.get("Fn::Sub").asText();
      for (Map.Entry<String, String> e : NOT_ON_MOTO.entrySet()) {
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

  @Test
  void everyResourceMotoSupportsIsCreated() {
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
            "ReconcilerService");
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
  void theReconcilerContainerGetsExactlyTheAgreedEnvironmentAndTheApiKeySecret() throws Exception {
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
                Map.entry("TIDEMARK_STATE_ROOT", "s3://acme-lake/state"),
                Map.entry("TIDEMARK_ENGINE", "athena"),
                Map.entry("TIDEMARK_ATHENA_REGION", "us-east-1"),
                Map.entry("TIDEMARK_ATHENA_WORKGROUP", "tidemark-crm"),
                Map.entry("TIDEMARK_ATHENA_OUTPUT_LOCATION", "s3://acme-lake/athena-results/"),
                Map.entry("TIDEMARK_ATHENA_DATABASE", "lake_db"),
                Map.entry("QUARKUS_HTTP_HOST", "0.0.0.0"),
                Map.entry("TIDEMARK_API_ALLOWED_HOSTS", "*"),
                Map.entry(
                    "TIDEMARK_DATASETS_CUSTOMERS_RAW_LOCATION", "s3://acme-lake/raw/customers"),
                Map.entry("TIDEMARK_DATASETS_CUSTOMERS_CURATED_TABLE", "lake_db.customers"),
                Map.entry(
                    "TIDEMARK_DATASETS_CUSTOMERS_CATALOG_WAREHOUSE", "s3://acme-lake/warehouse"),
                Map.entry("TIDEMARK_DATASETS_CUSTOMERS_CATALOG_PROPERTIES_TYPE", "glue"),
                Map.entry("TIDEMARK_DATASETS_CUSTOMERS_COMPARED_COLUMNS", "customer_name,email"),
                Map.entry("TIDEMARK_CLOUDWATCH_ENABLED", "true"),
                Map.entry("TIDEMARK_CLOUDWATCH_REGION", "us-east-1")));
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
  void theRolesPoliciesAreResolvedAndScopedToThisStacksNames() throws Exception {
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
            "arn:aws:glue:us-east-1:123456789012:database/lake_db",
            "arn:aws:glue:us-east-1:123456789012:table/lake_db/customers_raw",
            "arn:aws:glue:us-east-1:123456789012:table/lake_db/customers\"");
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
        .isEqualTo("[\"arn:aws:s3:::acme-lake/raw/customers/*\"]");
    assertThat(ingestBySid.get("CuratedTablesInGlue").path("Resource").toString())
        .contains("table/lake_db/customers_quarantine", "table/lake_db/customers_tombstones");
  }

  // ---------------------------------------------------------------- plain-HTTP readers

  private static String auth(String service) {
    return "AWS4-HMAC-SHA256 Credential=test/20260101/us-east-1/"
        + service
        + "/aws4_request, SignedHeaders=host, Signature=0";
  }

  private static JsonNode ecs(String action, String json) throws Exception {
    HttpResponse<String> r =
        HTTP.send(
            HttpRequest.newBuilder(moto.endpoint().resolve("/"))
                .header("Content-Type", "application/x-amz-json-1.1")
                .header("X-Amz-Target", "AmazonEC2ContainerServiceV20141113." + action)
                .header("Authorization", auth("ecs"))
                .POST(HttpRequest.BodyPublishers.ofString(json))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).as("%s: %s", action, r.body()).isEqualTo(200);
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
