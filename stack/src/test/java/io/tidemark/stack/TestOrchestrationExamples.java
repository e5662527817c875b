package io.tidemark.stack;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tidemark.model.report.ReconciliationStatus;
import io.tidemark.model.testing.ProjectFiles;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The examples in {@code deploy/} that wire Tidemark into an orchestrator hold together: the Step
 * Functions state machine passes cfn-lint's state-language schema and is a complete graph whose
 * verdict covers every way a reconciliation ends; the Airflow DAG is valid Python. (The reconciler
 * module's TestStateMachineContract and TestReconcileCli run their requests against the service
 * itself.)
 */
@Tag("cfnlint")
class TestOrchestrationExamples {
  static final Path STATE_MACHINE =
      ProjectFiles.root().resolve("deploy/step-functions/ingest-then-reconcile.asl.json");
  static final Path DAG = ProjectFiles.root().resolve("deploy/airflow/tidemark_dag.py");

  private static final ObjectMapper JSON = new ObjectMapper();

  private static JsonNode stateMachine() throws IOException {
    return JSON.readTree(STATE_MACHINE.toFile());
  }

  @Test
  void theStateMachinePassesCfnLintsStateLanguageSchema(@TempDir Path scratch) throws Exception {
    ObjectNode template = JSON.createObjectNode();
    template.put("AWSTemplateFormatVersion", "2010-09-09");
    template.putObject("Parameters").putObject("RoleArn").put("Type", "String");
    ObjectNode props =
        template
            .putObject("Resources")
            .putObject("IngestThenReconcile")
            .put("Type", "AWS::StepFunctions::StateMachine")
            .putObject("Properties");
    props.putObject("RoleArn").put("Ref", "RoleArn");
    props.set("Definition", stateMachine());
    Path file = scratch.resolve("state-machine.json");
    Files.writeString(file, JSON.writeValueAsString(template));

    TestCfnLint.Lint lint = TestCfnLint.cfnLint(List.of(file));
    assertThat(lint.output()).isEmpty();
    assertThat(lint.exitCode()).isZero();

    // The schema is checked: a state of an unknown type is refused.
    ((ObjectNode) props.path("Definition").path("States").path("WaitForVerdict"))
        .put("Type", "Sleep");
    Files.writeString(file, JSON.writeValueAsString(template));
    TestCfnLint.Lint broken = TestCfnLint.cfnLint(List.of(file));
    assertThat(broken.output()).contains("E3601").contains("'Sleep'");
  }

  @Test
  void everyStateIsReachedAndEveryPathEnds() throws Exception {
    JsonNode sm = stateMachine();
    JsonNode states = sm.path("States");
    Map<String, List<String>> next = new LinkedHashMap<>();
    states
        .fields()
        .forEachRemaining(
            e -> {
              List<String> targets = new ArrayList<>();
              JsonNode s = e.getValue();
              if (s.has("Next")) {
                targets.add(s.path("Next").asText());
              }
              if (s.has("Default")) {
                targets.add(s.path("Default").asText());
              }
              s.path("Choices").forEach(c -> targets.add(c.path("Next").asText()));
              s.path("Catch").forEach(c -> targets.add(c.path("Next").asText()));
              String type = s.path("Type").asText();
              boolean ends =
                  s.path("End").asBoolean(false) || type.equals("Succeed") || type.equals("Fail");
              assertThat(ends || !targets.isEmpty())
                  .as("state %s goes somewhere or ends", e.getKey())
                  .isTrue();
              next.put(e.getKey(), targets);
            });
    next.values().forEach(t -> assertThat(next.keySet()).containsAll(t));

    Set<String> reached = new HashSet<>();
    Deque<String> todo = new ArrayDeque<>(List.of(sm.path("StartAt").asText()));
    while (!todo.isEmpty()) {
      String s = todo.pop();
      if (reached.add(s)) {
        todo.addAll(next.get(s));
      }
    }
    assertThat(reached).as("every state is reached from StartAt").isEqualTo(next.keySet());
  }

  /**
   * A reconciliation that ended, however it ended, leaves the poll loop: a status the verdict did
   * not name (ABANDONED, after a restart) would poll until the execution times out.
   */
  @Test
  void theVerdictNamesEveryWayAReconciliationEndsAndWaitsOnlyWhileItRuns() throws Exception {
    JsonNode verdict = stateMachine().path("States").path("Verdict");
    Map<String, String> branches = new LinkedHashMap<>();
    verdict
        .path("Choices")
        .forEach(
            c -> {
              assertThat(c.path("Variable").asText()).isEqualTo("$.reconciliation.status");
              branches.put(c.path("StringEquals").asText(), c.path("Next").asText());
            });
    Set<String> finished = new HashSet<>();
    Arrays.stream(ReconciliationStatus.values())
        .filter(ReconciliationStatus::finished)
        .forEach(s -> finished.add(s.name()));
    assertThat(branches.keySet()).isEqualTo(finished);
    assertThat(branches.get("PASSED")).isEqualTo("Verified");
    assertThat(verdict.path("Default").asText()).isEqualTo("WaitForVerdict");
    // Both HTTP tasks read what the verdict looks at into the same place.
    for (String task : List.of("StartReconciliation", "PollReconciliation")) {
      JsonNode t = stateMachine().path("States").path(task);
      assertThat(t.path("ResultPath").asText()).isEqualTo("$.reconciliation");
      assertThat(t.path("ResultSelector").path("status.$").asText())
          .isEqualTo("$.ResponseBody.status");
    }
  }

  @Test
  void theIngestStepRunsTheStacksJobForOneDataset() throws Exception {
    JsonNode ingest = stateMachine().path("States").path("Ingest");
    assertThat(ingest.path("Resource").asText())
        .isEqualTo("arn:aws:states:::glue:startJobRun.sync");
    // The option each of the stack's triggers passes.
    assertThat(ingest.path("Parameters").path("Arguments").path("--dataset.$").asText())
        .isEqualTo("$.dataset");
  }

  @Test
  void theAirflowDagIsValidPython() throws Exception {
    Process p =
        new ProcessBuilder(
                "python3",
                "-c",
                "import ast, sys; compile(open(sys.argv[1]).read(), sys.argv[1], 'exec');"
                    + " print(sorted(n.id for n in ast.walk(ast.parse(open(sys.argv[1]).read()))"
                    + " if isinstance(n, ast.Name) and n.id.endswith('Operator')))",
                DAG.toString())
            .redirectErrorStream(true)
            .start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as(out).isZero();
    assertThat(out)
        .as("the operators the DAG's tasks are made of")
        .isEqualTo("['BashOperator', 'BashOperator', 'GlueJobOperator']");
  }
}
