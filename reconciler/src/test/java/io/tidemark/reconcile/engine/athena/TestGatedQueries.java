package io.tidemark.reconcile.engine.athena;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * {@code max-in-flight} holds for every query of a reconciliation, including those its calling
 * thread sends beside the engine's pool: however many threads ask, the gate lets that many run.
 */
class TestGatedQueries {
  /** A query runner (a test double of the query service) that holds each query until released. */
  private static final class Held implements QueryRunner {
    final AtomicInteger running = new AtomicInteger();
    final AtomicInteger mostAtOnce = new AtomicInteger();
    final CountDownLatch release = new CountDownLatch(1);

    @Override
    public QueryResult run(String label, String sql, List<Object> params) {
      mostAtOnce.accumulateAndGet(running.incrementAndGet(), Math::max);
      try {
        release.await(10, TimeUnit.SECONDS);
        return new QueryResult(label, List.of(List.of(label)), 1);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      } finally {
        running.decrementAndGet();
      }
    }

    @Override
    public void close() {}
  }

  @Test
  void noMoreQueriesRunAtOnceThanThePermits() throws Exception {
    Held service = new Held();
    SqlEngine.Gated gated = new SqlEngine.Gated(service, 2);
    ExecutorService callers = Executors.newFixedThreadPool(5);
    try {
      List<Future<QueryResult>> asked = new ArrayList<>();
      for (int i = 0; i < 5; i++) {
        String label = "q" + i;
        asked.add(callers.submit(() -> gated.run(label, "SELECT 1", List.of())));
      }
      // give every caller time to reach the gate, then let the queries finish
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
      while (service.running.get() < 2 && System.nanoTime() < deadline) {
        Thread.sleep(10);
      }
      Thread.sleep(200);
      assertThat(service.running).as("queries running while held").hasValue(2);
      service.release.countDown();
      List<String> answered = new ArrayList<>();
      for (Future<QueryResult> f : asked) {
        answered.add(f.get(10, TimeUnit.SECONDS).rows().get(0).get(0));
      }
      assertThat(answered)
          .as("every query answered, its own rows")
          .containsExactly("q0", "q1", "q2", "q3", "q4");
      assertThat(service.mostAtOnce).as("most queries at once").hasValue(2);
    } finally {
      callers.shutdownNow();
    }
  }
}
