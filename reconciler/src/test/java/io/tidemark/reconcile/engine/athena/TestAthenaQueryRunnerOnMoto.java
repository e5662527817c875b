package io.tidemark.reconcile.engine.athena;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.tidemark.model.testing.AwsEmulator;
import io.tidemark.model.testing.AwsService;
import io.tidemark.model.testing.AwsSuite;
import io.tidemark.model.testing.AwsTest;
import io.tidemark.model.testing.MotoServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import software.amazon.awssdk.services.athena.AthenaClient;
import software.amazon.awssdk.services.athena.model.QueryExecution;
import software.amazon.awssdk.services.athena.model.QueryExecutionState;

/**
 * The runner against moto's Athena. moto runs no SQL: it hands out the result sets queued on its
 * control API, one per started query, always in one page (it ignores MaxResults and never sends a
 * NextToken); its queries go QUEUED, RUNNING, SUCCEEDED, or CANCELLED when stopped, never FAILED;
 * it records the execution parameters; it always reports 0 bytes scanned. It runs on moto only: it
 * drives moto's control API, which LocalStack has no counterpart of, so its LocalStack runs are
 * skipped saying so.
 */
@AwsSuite(services = {AwsService.ATHENA, AwsService.MOTO_API})
@Tag("aws")
class TestAthenaQueryRunnerOnMoto {
  private AwsEmulator aws;

  @BeforeEach
  void emulator(AwsEmulator aws) {
    this.aws = aws;
  }

  private AthenaQueryRunner runner() {
    return new AthenaQueryRunner(AthenaTesting.settings(aws.endpoint()), AthenaTesting.CREDENTIALS);
  }

  /** Queues one result set on moto; a null value is sent as Athena sends SQL NULL. */
  private void queueResult(List<List<String>> rowsWithHeader) {
    String rows =
        rowsWithHeader.stream()
            .map(
                row ->
                    row.stream()
                        .map(v -> v == null ? "{}" : "{\"VarCharValue\":\"" + v + "\"}")
                        .collect(Collectors.joining(",", "{\"Data\":[", "]}")))
            .collect(Collectors.joining(","));
    MotoServer.of(aws)
        .control(
            "/moto-api/static/athena/query-results",
            "{\"region\":\"us-east-1\",\"results\":[{\"rows\":["
                + rows
                + "],\"column_info\":[]}]}");
  }

  /** Keeps every query moto starts from now on QUEUED until it is stopped. */
  private void keepQueriesRunning() {
    MotoServer.of(aws)
        .control(
            "/moto-api/state-manager/set-transition",
            "{\"model_name\":\"athena::execution\","
                + "\"transition\":{\"progression\":\"manual\",\"times\":1000000}}");
  }

  private QueryExecution onMoto(String id) {
    try (AthenaClient client = AthenaTesting.client(aws.endpoint())) {
      return client.getQueryExecution(r -> r.queryExecutionId(id)).queryExecution();
    }
  }

  @AwsTest
  void rowsComeBackAsTextWithNullsAndWithoutTheHeaderRow() {
    queueResult(
        List.of(List.of("customer_id", "versions"), List.of("c1", "3"), Arrays.asList("c2", null)));
    try (AthenaQueryRunner runner = runner()) {
      QueryResult result =
          runner.run("duplicate_keys", "SELECT customer_id, versions FROM t", List.of());

      assertThat(result.rows()).containsExactly(List.of("c1", "3"), Arrays.asList("c2", null));
      assertThat(result.queryId()).isNotBlank();
      assertThat(result.bytesScanned()).as("moto always reports 0 bytes scanned").isZero();
      assertThat(runner.inFlight()).isEmpty();
    }
  }

  @AwsTest
  void aLargeResultComesBackWholeAndInOrder() {
    List<List<String>> rows = new ArrayList<>();
    rows.add(List.of("customer_id"));
    IntStream.range(0, 2_500).forEach(i -> rows.add(List.of("c" + i)));
    queueResult(rows);
    try (AthenaQueryRunner runner = runner()) {
      QueryResult result = runner.run("missing_keys", "SELECT customer_id FROM t", List.of());

      assertThat(result.rows()).hasSize(2_500);
      assertThat(result.rows().get(0)).containsExactly("c0");
      assertThat(result.rows().get(2_499)).containsExactly("c2499");
    }
  }

  @AwsTest
  void theQueryRunsInTheConfiguredContextWithParametersAsLiterals() {
    try (AthenaQueryRunner runner = runner()) {
      QueryResult result =
          runner.run(
              "stale_versions",
              "SELECT count(*) FROM t WHERE name = ? AND seq > ? AND n < ?",
              List.of("O'Brien", 42L, 7));

      QueryExecution execution = onMoto(result.queryId());
      assertThat(execution.executionParameters()).containsExactly("'O''Brien'", "42", "7");
      assertThat(execution.query())
          .isEqualTo("SELECT count(*) FROM t WHERE name = ? AND seq > ? AND n < ?");
      assertThat(execution.workGroup()).isEqualTo("primary");
      assertThat(execution.queryExecutionContext().catalog()).isEqualTo("AwsDataCatalog");
      assertThat(execution.queryExecutionContext().database()).isEqualTo("tidemark");
      assertThat(execution.resultConfiguration().outputLocation())
          .startsWith("s3://tidemark-athena-results/queries/");
    }
  }

  @AwsTest
  void aQueryWithoutParametersSendsNone() {
    try (AthenaQueryRunner runner = runner()) {
      QueryResult result = runner.run("row_count", "SELECT count(*) FROM t", List.of());

      assertThat(onMoto(result.queryId()).hasExecutionParameters())
          .as("Athena refuses an empty ExecutionParameters list")
          .isFalse();
    }
  }

  @AwsTest
  void aQueryCancelledElsewhereFailsWithItsIdAndState() {
    keepQueriesRunning();
    try (AthenaQueryRunner runner = runner();
        AthenaClient operator = AthenaTesting.client(aws.endpoint())) {
      CompletableFuture<QueryResult> run =
          CompletableFuture.supplyAsync(() -> runner.run("missing_keys", "SELECT 1", List.of()));
      await().atMost(Duration.ofSeconds(20)).until(() -> !runner.inFlight().isEmpty());
      String id = runner.inFlight().iterator().next();

      operator.stopQueryExecution(r -> r.queryExecutionId(id));

      assertThatThrownBy(run::join)
          .isInstanceOf(CompletionException.class)
          .cause()
          .isInstanceOf(QueryFailedException.class)
          .hasMessageContaining("missing_keys")
          .hasMessageContaining(id)
          .hasMessageContaining("CANCELLED")
          .satisfies(
              e -> {
                assertThat(((QueryFailedException) e).queryId()).isEqualTo(id);
                assertThat(((QueryFailedException) e).state()).isEqualTo("CANCELLED");
              });
    }
  }

  @AwsTest
  void aQueryPastItsTimeoutIsStoppedOnAthena() {
    keepQueriesRunning();
    AthenaSettings settings =
        AthenaTesting.settings(aws.endpoint())
            .withTimings(Duration.ofMillis(500), Duration.ofMillis(20), Duration.ofMillis(100));
    try (AthenaQueryRunner runner = new AthenaQueryRunner(settings, AthenaTesting.CREDENTIALS)) {
      assertThatThrownBy(() -> runner.run("value_mismatches", "SELECT 1", List.of()))
          .isInstanceOfSatisfying(
              QueryFailedException.class,
              e -> {
                assertThat(e.state()).isEqualTo(AthenaQueryRunner.TIMED_OUT);
                assertThat(e.getMessage())
                    .contains("value_mismatches", e.queryId(), "query timeout of PT0.5S");
                assertThat(onMoto(e.queryId()).status().state())
                    .as("the runner stopped the query on Athena")
                    .isEqualTo(QueryExecutionState.CANCELLED);
              });
    }
  }

  @AwsTest
  void closeStopsEveryQueryStillRunning() {
    keepQueriesRunning();
    AthenaQueryRunner runner = runner();
    List<CompletableFuture<QueryResult>> runs =
        List.of(
            CompletableFuture.supplyAsync(() -> runner.run("a", "SELECT 1", List.of())),
            CompletableFuture.supplyAsync(() -> runner.run("b", "SELECT 2", List.of())));
    await().atMost(Duration.ofSeconds(20)).until(() -> runner.inFlight().size() == 2);
    List<String> ids = List.copyOf(runner.inFlight());

    runner.close();

    for (CompletableFuture<QueryResult> run : runs) {
      assertThatThrownBy(run::join)
          .cause()
          .isInstanceOfSatisfying(
              QueryFailedException.class, e -> assertThat(e.state()).isEqualTo("CANCELLED"));
    }
    for (String id : ids) {
      assertThat(onMoto(id).status().state()).isEqualTo(QueryExecutionState.CANCELLED);
    }
    assertThatThrownBy(() -> runner.run("c", "SELECT 3", List.of()))
        .isInstanceOf(QueryFailedException.class)
        .hasMessage("Cannot run query c: the runner is closed");
    runner.close(); // a second close is a no-op
  }
}
