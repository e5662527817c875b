package io.tidemark.reconcile.rest;

import static org.assertj.core.api.Assertions.assertThat;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;
import io.tidemark.reconcile.fixtures.GatedEngine;
import io.tidemark.reconcile.fixtures.QuarkusFixtures;
import jakarta.inject.Inject;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code reconciler/bin/tidemark-reconcile}, the client an orchestrator's task calls, against the
 * running service: its exit code is the verdict, as its --help documents.
 */
@QuarkusTest
@QuarkusTestResource(QuarkusFixtures.class)
class TestReconcileCli {
  private static final Path CLI = Path.of("bin/tidemark-reconcile");

  @Inject GatedEngine gate;
  @TempDir Path dir;

  private record Outcome(int exit, String out, String err) {}

  private Outcome run(Map<String, String> env, String... args)
      throws IOException, InterruptedException {
    List<String> command = new ArrayList<>(List.of(CLI.toAbsolutePath().toString()));
    command.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(command);
    pb.environment().remove("TIDEMARK_API_KEY");
    pb.environment().remove("TIDEMARK_URL");
    pb.environment().putAll(env);
    Path out = dir.resolve("out.txt");
    Path err = dir.resolve("err.txt");
    pb.redirectOutput(out.toFile()).redirectError(err.toFile());
    Process p = pb.start();
    assertThat(p.waitFor(120, TimeUnit.SECONDS)).as("the client ended").isTrue();
    return new Outcome(
        p.exitValue(),
        Files.readString(out, StandardCharsets.UTF_8).trim(),
        Files.readString(err, StandardCharsets.UTF_8).trim());
  }

  private Outcome reconcile(String... args) throws IOException, InterruptedException {
    return run(
        Map.of(
            "TIDEMARK_API_KEY",
            QuarkusFixtures.API_KEY,
            "TIDEMARK_URL",
            "http://127.0.0.1:" + RestAssured.port),
        args);
  }

  @Test
  void aCleanDatasetExitsZero() throws Exception {
    Path report = dir.resolve("report.json");
    Outcome o =
        reconcile("--dataset", "customers", "--mode", "full", "--report", report.toString());

    assertThat(o.exit()).as(o.out() + o.err()).isZero();
    assertThat(o.out()).startsWith("PASSED reconciliation ").endsWith(" of customers");
    assertThat(Files.readString(report)).contains("\"status\":\"PASSED\"");
  }

  @Test
  void aDamagedDatasetExitsOneNamingTheRulesThatFailed() throws Exception {
    Outcome o = reconcile("--dataset", "damaged", "--mode", "full");

    assertThat(o.exit()).as(o.out() + o.err()).isEqualTo(1);
    assertThat(o.out())
        .startsWith("FAILED reconciliation ")
        .endsWith(" of damaged: missing_keys, foreign_commits did not pass");
  }

  /**
   * The Airflow example's reconcile task ({@code deploy/airflow/tidemark_dag.py}): its command, as
   * the worker runs it, exits with the verdict, so that the publish task runs on PASSED only.
   */
  @Test
  void theAirflowDagsReconcileCommandExitsWithTheVerdict() throws Exception {
    String dag = Files.readString(Path.of("../deploy/airflow/tidemark_dag.py"));
    java.util.regex.Matcher command =
        java.util.regex.Pattern.compile("(?m)^RECONCILE_COMMAND = f\"tidemark-reconcile (.*)\"$")
            .matcher(dag);
    assertThat(command.find()).as("the DAG's RECONCILE_COMMAND").isTrue();
    for (Map.Entry<String, Integer> d : Map.of("customers", 0, "damaged", 1).entrySet()) {
      String[] args = command.group(1).replace("{DATASET}", d.getKey()).split(" ");
      Outcome o = reconcile(args);
      assertThat(o.exit()).as(d.getKey() + ": " + o.out() + o.err()).isEqualTo(d.getValue());
    }
  }

  /** A gate before downstream work that starts nothing: is what readers see now proven? */
  @Test
  void theVerdictExitsZeroOnlyWhileTheCurrentSnapshotIsTheProvenOne() throws Exception {
    assertThat(reconcile("--dataset", "customers", "--mode", "full").exit()).isZero();
    Path answer = dir.resolve("verdict.json");
    Outcome proven =
        reconcile("--dataset", "customers", "--verdict", "--report", answer.toString());
    assertThat(proven.exit()).as(proven.out() + proven.err()).isZero();
    assertThat(proven.out())
        .startsWith("VERIFIED customers: FULL reconciliation ")
        .endsWith(") equal to raw");
    assertThat(Files.readString(answer)).contains("\"verified\":true");

    assertThat(reconcile("--dataset", "damaged", "--mode", "full").exit()).isEqualTo(1);
    Outcome damaged = reconcile("--dataset", "damaged", "--verdict");
    assertThat(damaged.exit()).as(damaged.out() + damaged.err()).isEqualTo(1);
    assertThat(damaged.out())
        .startsWith("UNVERIFIED damaged: The latest FULL reconciliation, ")
        .contains(", FAILED rule(s) missing_keys, foreign_commits");

    Outcome unknown = reconcile("--dataset", "nosuch", "--verdict");
    assertThat(unknown.exit()).isEqualTo(2);
    assertThat(unknown.out()).startsWith("REFUSED (404): ").contains("nosuch");

    Outcome mixed = reconcile("--dataset", "customers", "--verdict", "--mode", "full");
    assertThat(mixed.exit()).isEqualTo(2);
    assertThat(mixed.err())
        .contains("--mode does not go with --verdict, which starts nothing (see --help)");
  }

  @Test
  void noVerdictWithinTheWaitExitsFour() throws Exception {
    gate.close();
    Outcome o;
    try {
      o = reconcile("--dataset", "gated", "--wait", "PT1S");
    } finally {
      gate.open();
    }
    assertThat(o.exit()).as(o.out() + o.err()).isEqualTo(4);
    assertThat(o.out())
        .startsWith("RUNNING reconciliation ")
        .contains("no verdict within PT1S; follow http://127.0.0.1:");
    TestReconciliationApi.awaitFinished(o.out().split(" ")[2].replace(":", ""));
  }

  @Test
  void aRefusedRequestExitsTwoSayingWhy() throws Exception {
    Outcome unknown = reconcile("--dataset", "nosuch");
    assertThat(unknown.exit()).isEqualTo(2);
    assertThat(unknown.out()).startsWith("REFUSED (404): ").contains("nosuch");

    Outcome badWait = reconcile("--dataset", "customers", "--wait", "PT1H");
    assertThat(badWait.exit()).isEqualTo(2);
    assertThat(badWait.out()).startsWith("REFUSED (400): ").contains("wait");

    Outcome wrongKey =
        run(
            Map.of(
                "TIDEMARK_API_KEY",
                "not-the-key",
                "TIDEMARK_URL",
                "http://127.0.0.1:" + RestAssured.port),
            "--dataset",
            "customers");
    assertThat(wrongKey.exit()).isEqualTo(2);
    assertThat(wrongKey.out()).startsWith("REFUSED (401): ");

    Outcome noKey = run(Map.of(), "--dataset", "customers");
    assertThat(noKey.exit()).isEqualTo(2);
    assertThat(noKey.err()).contains("TIDEMARK_API_KEY is not set");
  }

  @Test
  void anUnreachableServiceExitsFive() throws Exception {
    Outcome o =
        run(
            Map.of("TIDEMARK_API_KEY", "k"),
            "--dataset",
            "customers",
            "--url",
            "http://127.0.0.1:9");

    assertThat(o.exit()).isEqualTo(5);
    assertThat(o.out())
        .startsWith("UNREACHABLE: cannot reach the reconciler at http://127.0.0.1:9");
  }

  @Test
  void helpDocumentsTheExitCodes() throws Exception {
    Outcome o = run(Map.of(), "--help");

    assertThat(o.exit()).isZero();
    assertThat(o.out())
        .contains("0  PASSED")
        .contains("1  FAILED")
        .contains("2  the request was refused")
        .contains("3  ERROR")
        .contains("4  no verdict within --wait")
        .contains("5  the reconciler could not be reached");
  }
}
