package io.tidemark.stack;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.tidemark.model.contract.ContractFile;
import io.tidemark.model.metrics.Metric;
import io.tidemark.model.testing.ProjectFiles;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The deployment stack, {@code deploy/tidemark-stack.json}, generated from {@code
 * deploy/example-contract.yaml}: the real cfn-lint accepts it (so CloudFormation's schema accepts
 * every resource, including those moto's CloudFormation cannot create: the Glue databases, tables,
 * job and triggers, the Athena workgroup and the alarms), and its IAM is least privilege. (That the
 * committed file is what the generator writes is {@link TestTemplates}'s first test; what a
 * contract makes of the stack, {@link TestContractStack}.)
 */
@Tag("cfnlint")
class TestStackTemplate {
  private static final ObjectMapper MAPPER = new ObjectMapper();

  private static Path stack() {
    return ProjectFiles.root().resolve(StackTemplate.PATH);
  }

  private static JsonNode resources() throws Exception {
    return MAPPER.readTree(stack().toFile()).path("Resources");
  }

  @Test
  void cfnLintPassesWithoutAWarning() throws Exception {
    TestCfnLint.Lint lint = TestCfnLint.cfnLint(List.of(stack()));
    assertThat(lint.output()).isEmpty();
    assertThat(lint.exitCode()).isZero();
  }

  @Test
  void cfnLintCatchesABrokenGlueJobAndWorkGroup(@TempDir Path scratch) throws Exception {
    Path broken = scratch.resolve("broken.json");
    Files.writeString(
        broken,
        Files.readString(stack())
            .replace("\"GlueVersion\" : \"6.0\"", "\"GlueVersion\" : \"60\"")
            .replace("\"BytesScannedCutoffPerQuery\" : {", "\"BytesScannedCutoff\" : {"));
    TestCfnLint.Lint lint = TestCfnLint.cfnLint(List.of(broken));
    assertThat(lint.exitCode()).isNotZero();
    assertThat(lint.output()).contains("'60'").contains("BytesScannedCutoff");
  }

  /** Every statement of every role, as (role, statement). */
  private static List<Map.Entry<String, JsonNode>> statements() throws Exception {
    List<Map.Entry<String, JsonNode>> out = new ArrayList<>();
    resources()
        .fields()
        .forEachRemaining(
            r -> {
              if (r.getValue().path("Type").asText().equals("AWS::IAM::Role")) {
                for (JsonNode policy : r.getValue().path("Properties").path("Policies")) {
                  for (JsonNode s : policy.path("PolicyDocument").path("Statement")) {
                    out.add(Map.entry(r.getKey(), s));
                  }
                }
              }
            });
    return out;
  }

  private static List<String> resourceTexts(JsonNode statement) {
    List<String> out = new ArrayList<>();
    for (JsonNode r : statement.path("Resource")) {
      out.add(
          r.isTextual() ? r.asText() : r.has("Fn::Sub") ? r.get("Fn::Sub").asText() : r.toString());
    }
    return out;
  }

  @Test
  void onlyActionsWithoutResourceLevelPermissionsUseAWildcardResource() throws Exception {
    List<String> starred = new ArrayList<>();
    for (Map.Entry<String, JsonNode> e : statements()) {
      JsonNode s = e.getValue();
      assertThat(s.path("Effect").asText()).isEqualTo("Allow");
      for (JsonNode a : s.path("Action")) {
        assertThat(a.asText()).as("%s %s", e.getKey(), s.path("Sid")).doesNotContain("*");
      }
      for (String r : resourceTexts(s)) {
        if (r.equals("*")) {
          starred.add(e.getKey() + "/" + s.path("Sid").asText() + " " + s.path("Action"));
        } else {
          // A wildcard may only end an ARN below a named prefix or log group: objects or streams,
          // or objects of one kind there (/*.metadata.json).
          assertThat(r.replaceAll("(/|:)\\*(\\.[a-z]+)*$", ""))
              .as("%s %s", e.getKey(), s.path("Sid"))
              .doesNotContain("*");
        }
      }
    }
    assertThat(starred)
        .containsExactlyInAnyOrder(
            "IngestJobRole/PublishMetrics [\"cloudwatch:PutMetricData\"]",
            "ReconcilerTaskRole/PublishMetrics [\"cloudwatch:PutMetricData\"]",
            "ReconcilerExecutionRole/EcrLogin [\"ecr:GetAuthorizationToken\"]");
    for (Map.Entry<String, JsonNode> e : statements()) {
      if (e.getValue().path("Sid").asText().equals("PublishMetrics")) {
        assertThat(
                e.getValue()
                    .path("Condition")
                    .path("StringEquals")
                    .path("cloudwatch:namespace")
                    .asText())
            .as("%s may publish to the catalogue's namespace only", e.getKey())
            .isEqualTo(Metric.NAMESPACE_DEFAULT);
      }
    }
  }

  @Test
  void theIngestJobCannotWriteRawAndTheReconcilerCannotWriteRunReportsOrCuratedData()
      throws Exception {
    List<String> rawFolders =
        ContractFile.load(ProjectFiles.root().resolve(StackTemplate.EXAMPLE_CONTRACT))
            .datasets()
            .values()
            .stream()
            .map(d -> d.raw().location().substring("s3://".length()))
            .toList();
    assertThat(rawFolders)
        .containsExactly("acme-lake/raw/customers", "acme-dms/exports/sales/orders");
    int writes = 0;
    for (Map.Entry<String, JsonNode> e : statements()) {
      List<String> actions = new ArrayList<>();
      e.getValue().path("Action").forEach(a -> actions.add(a.asText()));
      if (!actions.contains("s3:PutObject") && !actions.contains("s3:DeleteObject")) {
        continue;
      }
      for (String r : resourceTexts(e.getValue())) {
        writes++;
        for (String raw : rawFolders) {
          assertThat(r).as("%s writes %s", e.getKey(), r).doesNotContain(raw);
        }
        if (e.getKey().equals("ReconcilerTaskRole")) {
          assertThat(r)
              .as(
                  "the reconciler writes only its reports, Athena's results and the curated"
                      + " tables' metadata files (the verified tag)")
              .matches(
                  ".*/\\$\\{(StatePrefix}/_reconciliation|AthenaResultsPrefix})/\\*"
                      + "|.*/warehouse/curated\\.db/[a-z_]+/metadata/\\*\\.metadata\\.json");
        }
      }
    }
    assertThat(writes).isEqualTo(6);
  }

  @Test
  void theGlueJobRunsTheIngestJobOnIcebergForEachDatasetOfTheContractOneRunPerDatasetAtATime()
      throws Exception {
    JsonNode job = resources().path("IngestJob").path("Properties");
    assertThat(job.path("GlueVersion").asText()).isEqualTo("6.0");
    assertThat(job.path("Command").path("Name").asText()).isEqualTo("glueetl");
    assertThat(job.path("ExecutionProperty").path("MaxConcurrentRuns").asInt()).isEqualTo(2);
    JsonNode args = job.path("DefaultArguments");
    assertThat(args.path("--datalake-formats").asText()).isEqualTo("iceberg");
    assertThat(args.path("--job-language").asText()).isEqualTo("scala");
    assertThat(args.path("--class").asText()).isEqualTo(StackTemplate.GLUE_SCRIPT_OBJECT);
    assertThat(args.path("--contract").path("Fn::Sub").asText())
        .isEqualTo("s3://${ArtifactBucketName}/${ContractKey}");
    assertThat(args.path("--cloudwatch-namespace").asText()).isEqualTo(Metric.NAMESPACE_DEFAULT);
    // The contract says where raw is, which pipeline and table, and which catalog.
    for (String gone :
        List.of(
            "--raw-root",
            "--dataset",
            "--pipeline",
            "--table",
            "--catalog-property",
            "--warehouse")) {
      assertThat(args.has(gone)).as(gone).isFalse();
    }
    for (String dataset : List.of("customers", "orders")) {
      String prefix = StackTemplate.logicalPrefix(dataset);
      JsonNode trigger = resources().path(prefix + "IngestTrigger").path("Properties");
      assertThat(trigger.path("Type").asText()).isEqualTo("SCHEDULED");
      assertThat(trigger.path("Schedule").path("Ref").asText()).isEqualTo("IngestSchedule");
      JsonNode action = trigger.path("Actions").get(0);
      assertThat(action.path("JobName").path("Ref").asText()).isEqualTo("IngestJob");
      assertThat(action.path("Arguments").path("--dataset").asText()).isEqualTo(dataset);
      // A weekly sweep of the same job picks up files the lookback missed.
      JsonNode sweep = resources().path(prefix + "SweepTrigger").path("Properties");
      assertThat(sweep.path("Type").asText()).isEqualTo("SCHEDULED");
      assertThat(sweep.path("Schedule").path("Ref").asText()).isEqualTo("SweepSchedule");
      JsonNode sweepAction = sweep.path("Actions").get(0);
      assertThat(sweepAction.path("JobName").path("Ref").asText()).isEqualTo("IngestJob");
      assertThat(sweepAction.path("Arguments").path("--dataset").asText()).isEqualTo(dataset);
      assertThat(sweepAction.path("Arguments").path("--mode").asText()).isEqualTo("sweep");
    }
  }

  @Test
  void aCreatedLakeBucketIsVersionedAndNeverPublic() throws Exception {
    JsonNode bucket = resources().path("LakeBucket").path("Properties");
    assertThat(bucket.path("VersioningConfiguration").path("Status").asText()).isEqualTo("Enabled");
    assertThat(bucket.path("PublicAccessBlockConfiguration").properties())
        .extracting(Map.Entry::getKey)
        .containsExactlyInAnyOrder(
            "BlockPublicAcls", "BlockPublicPolicy", "IgnorePublicAcls", "RestrictPublicBuckets");
    bucket.path("PublicAccessBlockConfiguration").forEach(v -> assertThat(v.asBoolean()).isTrue());
  }
}
