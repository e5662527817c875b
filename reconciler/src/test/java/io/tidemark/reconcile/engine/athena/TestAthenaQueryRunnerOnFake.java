package io.tidemark.reconcile.engine.athena;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tidemark.reconcile.fixtures.FakeAthena;
import io.tidemark.reconcile.fixtures.FakeAthena.Script;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The runner against a scripted fake Athena endpoint, for what moto cannot do: FAILED with a
 * reason, bytes scanned, several pages of results, throttling, queries that run long enough to
 * count how many run at once.
 */
class TestAthenaQueryRunnerOnFake {
  private FakeAthena fake;

  @BeforeEach
  void start() {
    fake = FakeAthena.start();
  }

  @AfterEach
  void stop() {
    fake.close();
  }

  private AthenaQueryRunner runner(AthenaSettings settings) {
    return new AthenaQueryRunner(settings, AthenaTesting.CREDENTIALS);
  }

  private AthenaQueryRunner runner() {
    return runner(AthenaTesting.settings(fake.endpoint()));
  }

  @Test
  void aFailedQueryCarriesAthenasReasonAndItsId() {
    fake.script(
        Script.succeeded(List.of("n"), List.of())
            .withRunningPolls(2)
            .withEnd("FAILED", "COLUMN_NOT_FOUND: line 1:8: Column 'emial' cannot be resolved"));
    try (AthenaQueryRunner runner = runner()) {
      assertThatThrownBy(() -> runner.run("value_mismatches", "SELECT emial FROM t", List.of()))
          .isInstanceOfSatisfying(
              QueryFailedException.class,
              e -> {
                String id = fake.started().get(0).id();
                assertThat(e.queryId()).isEqualTo(id);
                assertThat(e.state()).isEqualTo("FAILED");
                assertThat(e.getMessage())
                    .isEqualTo(
                        "Cannot run query value_mismatches (Athena id "
                            + id
                            + "): FAILED: COLUMN_NOT_FOUND: line 1:8: Column 'emial' cannot be"
                            + " resolved");
              });
      assertThat(runner.inFlight()).isEmpty();
    }
  }

  @Test
  void aCancelledQueryCarriesAthenasReason() {
    fake.script(
        Script.succeeded(List.of("n"), List.of()).withEnd("CANCELLED", "Query cancelled by user"));
    try (AthenaQueryRunner runner = runner()) {
      assertThatThrownBy(() -> runner.run("missing_keys", "SELECT 1", List.of()))
          .isInstanceOfSatisfying(
              QueryFailedException.class,
              e -> {
                assertThat(e.state()).isEqualTo("CANCELLED");
                assertThat(e.getMessage()).endsWith("CANCELLED: Query cancelled by user");
              });
    }
  }

  @Test
  void everyPageIsReadAndOnlyTheFirstPagesHeaderIsSkipped() {
    List<List<String>> rows = new ArrayList<>();
    IntStream.range(0, 2_500)
        .forEach(i -> rows.add(Arrays.asList("c" + i, i % 2 == 0 ? null : "x")));
    fake.script(Script.succeeded(List.of("customer_id", "email"), rows).withPageSize(1_000));
    try (AthenaQueryRunner runner = runner()) {
      QueryResult result =
          runner.run("missing_keys", "SELECT customer_id, email FROM t", List.of());

      assertThat(result.rows()).isEqualTo(rows);
      assertThat(fake.calls("GetQueryResults"))
          .as("2,501 rows with the header, 1,000 a page")
          .isEqualTo(3);
    }
  }

  @Test
  void bytesScannedComeFromTheQuerysStatistics() {
    fake.script(
        Script.succeeded(List.of("n"), List.of(List.of("7"))).withBytesScanned(123_456_789L));
    try (AthenaQueryRunner runner = runner()) {
      QueryResult result = runner.run("row_count", "SELECT count(*) FROM t", List.of());

      assertThat(result.bytesScanned()).isEqualTo(123_456_789L);
      assertThat(result.rows()).containsExactly(List.of("7"));
    }
  }

  @Test
  void aRunningQueryIsPolledUntilItEnds() {
    fake.script(Script.succeeded(List.of("n"), List.of(List.of("1"))).withRunningPolls(6));
    try (AthenaQueryRunner runner = runner()) {
      assertThat(runner.run("row_count", "SELECT 1", List.of()).rows())
          .containsExactly(List.of("1"));
      assertThat(fake.calls("GetQueryExecution")).isEqualTo(7);
    }
  }

  @Test
  void parametersReachAthenaAsSqlLiterals() {
    try (AthenaQueryRunner runner = runner()) {
      runner.run("window", "SELECT 1 WHERE a = ? AND b >= ?", List.of("it's", 1_700_000_000_000L));

      assertThat(fake.started().get(0).executionParameters())
          .containsExactly("'it''s'", "1700000000000");
    }
  }

  @Test
  void throttledCallsAreRetriedUntilTheySucceed() {
    fake.failNext("StartQueryExecution", 3, "ThrottlingException", "Rate exceeded");
    fake.failNext("GetQueryExecution", 1, "TooManyRequestsException", "Rate exceeded");
    fake.failNext("GetQueryResults", 2, "ThrottlingException", "Rate exceeded");
    try (AthenaQueryRunner runner = runner()) {
      QueryResult result = runner.run("row_count", "SELECT 1", List.of());

      assertThat(result.rows()).containsExactly(List.of("1"));
      assertThat(fake.started()).as("a throttled start starts nothing").hasSize(1);
      assertThat(fake.calls("StartQueryExecution")).isEqualTo(4);
      assertThat(fake.calls("GetQueryResults")).isEqualTo(3);
    }
  }

  @Test
  void throttlingPastTheRetryBoundIsAClearError() {
    fake.failNext("StartQueryExecution", 100, "ThrottlingException", "Rate exceeded");
    try (AthenaQueryRunner runner = runner()) {
      assertThatThrownBy(() -> runner.run("row_count", "SELECT 1", List.of()))
          .isInstanceOfSatisfying(
              QueryFailedException.class,
              e -> {
                assertThat(e.state()).isEqualTo(AthenaQueryRunner.THROTTLED);
                assertThat(e.queryId()).isNull();
                assertThat(e.getMessage())
                    .startsWith(
                        "Cannot run query row_count: Athena throttled StartQueryExecution 4 times"
                            + " in a row (max throttle retries 3): Rate exceeded");
              });
      assertThat(fake.calls("StartQueryExecution")).isEqualTo(4);
    }
  }

  @Test
  void aRefusalIsNotRetried() {
    fake.failNext(
        "StartQueryExecution", 1, "InvalidRequestException", "line 1:1: mismatched input");
    try (AthenaQueryRunner runner = runner()) {
      assertThatThrownBy(() -> runner.run("row_count", "SELEC 1", List.of()))
          .isInstanceOfSatisfying(
              QueryFailedException.class,
              e -> {
                assertThat(e.state()).isEqualTo(AthenaQueryRunner.REFUSED);
                assertThat(e.getMessage())
                    .startsWith(
                        "Cannot run query row_count: Athena refused StartQueryExecution: line 1:1:"
                            + " mismatched input");
              });
      assertThat(fake.calls("StartQueryExecution")).isEqualTo(1);
    }
  }

  @Test
  void noMoreQueriesRunAtOnceThanTheRunnerAllows() throws Exception {
    fake.script(Script.succeeded(List.of("n"), List.of(List.of("1"))).withRunningPolls(8));
    AthenaSettings settings = AthenaTesting.settings(fake.endpoint()).withLimits(2, 3);
    ExecutorService pool = Executors.newFixedThreadPool(6);
    try (AthenaQueryRunner runner = runner(settings)) {
      CountDownLatch go = new CountDownLatch(1);
      List<CompletableFuture<QueryResult>> runs = new ArrayList<>();
      for (int i = 0; i < 6; i++) {
        String label = "q" + i;
        runs.add(
            CompletableFuture.supplyAsync(
                () -> {
                  try {
                    go.await();
                  } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                  }
                  return runner.run(label, "SELECT 1", List.of());
                },
                pool));
      }
      go.countDown();
      for (CompletableFuture<QueryResult> run : runs) {
        assertThat(run.get(60, TimeUnit.SECONDS).rows()).containsExactly(List.of("1"));
      }

      assertThat(fake.started()).hasSize(6);
      assertThat(fake.maxRunning()).isEqualTo(2);
    } finally {
      pool.shutdownNow();
    }
  }
}
