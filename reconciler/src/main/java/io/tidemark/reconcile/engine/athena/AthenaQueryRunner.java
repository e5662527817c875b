package io.tidemark.reconcile.engine.athena;

import static java.util.Objects.requireNonNull;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.athena.AthenaClient;
import software.amazon.awssdk.services.athena.AthenaClientBuilder;
import software.amazon.awssdk.services.athena.model.AthenaError;
import software.amazon.awssdk.services.athena.model.Datum;
import software.amazon.awssdk.services.athena.model.GetQueryResultsResponse;
import software.amazon.awssdk.services.athena.model.QueryExecution;
import software.amazon.awssdk.services.athena.model.QueryExecutionState;
import software.amazon.awssdk.services.athena.model.QueryExecutionStatistics;
import software.amazon.awssdk.services.athena.model.Row;
import software.amazon.awssdk.services.athena.model.StartQueryExecutionRequest;
import software.amazon.awssdk.services.athena.model.StatementType;
import software.amazon.awssdk.services.athena.model.TooManyRequestsException;

/**
 * Runs queries on Amazon Athena with the AWS SDK v2: StartQueryExecution in the configured
 * workgroup, catalog and database; GetQueryExecution polled with exponential backoff until the
 * query ends; GetQueryResults page by page. Safe for concurrent use by the threads of one
 * reconciliation, at most {@link AthenaSettings#maxInFlight()} queries at once.
 *
 * <ul>
 *   <li>FAILED and CANCELLED end in a {@link QueryFailedException} carrying Athena's reason and the
 *       query id; a query running past {@link AthenaSettings#queryTimeout()} is stopped and ends in
 *       one with state {@value #TIMED_OUT}.
 *   <li>Throttled calls are retried with bounded exponential backoff, at most {@link
 *       AthenaSettings#maxThrottleRetries()} times per call, then fail with state {@value
 *       #THROTTLED}. The SDK's own retries are off in the client this runner builds, so that bound
 *       is the only one.
 *   <li>{@link #close()} stops every query still running.
 * </ul>
 */
public final class AthenaQueryRunner implements QueryRunner {
  /** The state of a query this runner stopped because it ran too long. */
  public static final String TIMED_OUT = "TIMED_OUT";

  /** The state of a call Athena kept throttling past the retry bound. */
  public static final String THROTTLED = "THROTTLED";

  /** The state of a call Athena refused outright (bad request, access denied, unreachable). */
  public static final String REFUSED = "REFUSED";

  /** Athena's largest page of results. */
  static final int PAGE_SIZE = 1000;

  private static final Logger LOG = LoggerFactory.getLogger(AthenaQueryRunner.class);

  private final AthenaSettings settings;
  private final AthenaClient client;
  private final boolean ownsClient;
  private final Semaphore slots;
  private final Set<String> running = ConcurrentHashMap.newKeySet();
  private volatile boolean closed;

  /** A runner with its own client, authenticated by the default credential chain. */
  public AthenaQueryRunner(AthenaSettings settings) {
    this(settings, DefaultCredentialsProvider.builder().build());
  }

  /** A runner with its own client, authenticated by the given credentials. */
  public AthenaQueryRunner(AthenaSettings settings, AwsCredentialsProvider credentials) {
    this(settings, newClient(settings, credentials), true);
  }

  /**
   * A runner on a client the caller owns (and closes). Turn the client's own retries off ({@link
   * AwsRetryStrategy#doNotRetry()}), or throttled calls are retried by both.
   */
  public AthenaQueryRunner(AthenaSettings settings, AthenaClient client) {
    this(settings, client, false);
  }

  private AthenaQueryRunner(AthenaSettings settings, AthenaClient client, boolean ownsClient) {
    this.settings = requireNonNull(settings, "settings is null");
    this.client = requireNonNull(client, "client is null");
    this.ownsClient = ownsClient;
    this.slots = new Semaphore(settings.maxInFlight(), true);
  }

  /** The client this runner builds from its settings: no SDK retries, the runner owns them. */
  public static AthenaClient newClient(
      AthenaSettings settings, AwsCredentialsProvider credentials) {
    AthenaClientBuilder builder =
        AthenaClient.builder()
            .region(Region.of(settings.region()))
            .credentialsProvider(requireNonNull(credentials, "credentials is null"))
            .httpClientBuilder(UrlConnectionHttpClient.builder())
            .overrideConfiguration(c -> c.retryStrategy(AwsRetryStrategy.doNotRetry()));
    settings.endpointOverride().ifPresent(builder::endpointOverride);
    return builder.build();
  }

  public AthenaSettings settings() {
    return settings;
  }

  /** The ids of the queries this runner has started and not yet seen end. */
  public Set<String> inFlight() {
    return Set.copyOf(running);
  }

  @Override
  public QueryResult run(String label, String sql, List<Object> params) {
    requireNonNull(label, "label is null");
    requireNonNull(sql, "sql is null");
    requireNonNull(params, "params is null");
    List<String> literals = literals(label, params);
    ensureOpen(label, null);
    try {
      slots.acquire();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new QueryFailedException(
          "Cannot run query " + label + ": interrupted while waiting for a free slot",
          null,
          QueryExecutionState.CANCELLED.toString(),
          e);
    }
    try {
      ensureOpen(label, null);
      String id = start(label, sql, literals);
      running.add(id);
      try {
        QueryExecution done = awaitEnd(label, id);
        List<List<String>> rows = fetch(label, id, done.statementType());
        long bytes = bytesScanned(done.statistics());
        LOG.debug(
            "Athena query {} ({}) returned {} rows, scanned {} bytes",
            label,
            id,
            rows.size(),
            bytes);
        return new QueryResult(id, rows, bytes);
      } finally {
        running.remove(id);
      }
    } finally {
      slots.release();
    }
  }

  /**
   * Athena's execution parameters are not typed binds: Athena puts each value's text into the query
   * where its {@code ?} stands, and parses the result. So a string goes as a quoted SQL literal
   * ({@code 'O''Brien'}), a number as its digits, and nothing else is accepted: a double, a
   * timestamp or a null has no one literal form both engines read alike, and guessing one would
   * silently change what a rule compares. Callers pass such values as strings and cast in the SQL.
   */
  static List<String> literals(String label, List<Object> params) {
    List<String> out = new ArrayList<>(params.size());
    for (int i = 0; i < params.size(); i++) {
      Object value = params.get(i);
      if (value instanceof String s) {
        out.add("'" + s.replace("'", "''") + "'");
      } else if (value instanceof Long || value instanceof Integer) {
        out.add(value.toString());
      } else {
        throw new IllegalArgumentException(
            "Cannot run query "
                + label
                + ": parameter "
                + (i + 1)
                + " is "
                + (value == null ? "null" : "a " + value.getClass().getSimpleName())
                + "; Athena parameters must be String, Long or Integer");
      }
    }
    return out;
  }

  private String start(String label, String sql, List<String> literals) {
    StartQueryExecutionRequest.Builder request =
        StartQueryExecutionRequest.builder()
            .queryString(sql)
            .workGroup(settings.workgroup())
            .queryExecutionContext(c -> c.catalog(settings.catalog()).database(settings.database()))
            .resultConfiguration(r -> r.outputLocation(settings.outputLocation()))
            // The same token on a retried start: Athena returns the first start's query, not a
            // twin.
            .clientRequestToken(UUID.randomUUID().toString());
    if (!literals.isEmpty()) {
      // Athena refuses an empty list.
      request.executionParameters(literals);
    }
    StartQueryExecutionRequest built = request.build();
    String id =
        call("StartQueryExecution", label, null, () -> client.startQueryExecution(built))
            .queryExecutionId();
    LOG.debug("Athena query {} started as {}", label, id);
    return id;
  }

  private QueryExecution awaitEnd(String label, String id) {
    long deadline = System.nanoTime() + settings.queryTimeout().toNanos();
    Duration wait = settings.pollInitial();
    while (true) {
      QueryExecution execution =
          call(
                  "GetQueryExecution",
                  label,
                  id,
                  () -> client.getQueryExecution(r -> r.queryExecutionId(id)))
              .queryExecution();
      QueryExecutionState state = execution.status().state();
      if (state == QueryExecutionState.SUCCEEDED) {
        return execution;
      }
      if (state == QueryExecutionState.FAILED || state == QueryExecutionState.CANCELLED) {
        throw new QueryFailedException(
            "Cannot run query "
                + label
                + " (Athena id "
                + id
                + "): "
                + state
                + ": "
                + reason(execution),
            id,
            state.toString(),
            null);
      }
      if (closed) {
        stopQuietly(id);
        throw new QueryFailedException(
            "Cannot run query " + label + " (Athena id " + id + "): the runner was closed; stopped",
            id,
            QueryExecutionState.CANCELLED.toString(),
            null);
      }
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        stopQuietly(id);
        throw new QueryFailedException(
            "Cannot run query "
                + label
                + " (Athena id "
                + id
                + "): still "
                + state
                + " after the query timeout of "
                + settings.queryTimeout()
                + "; stopped",
            id,
            TIMED_OUT,
            null);
      }
      sleep(Math.min(wait.toNanos(), left), label, id);
      wait = doubled(wait);
    }
  }

  private List<List<String>> fetch(String label, String id, StatementType type) {
    List<List<String>> rows = new ArrayList<>();
    // For a DML query Athena's first row of the first page holds the column names, not data.
    boolean skipHeader = type == null || type == StatementType.DML;
    String token = null;
    do {
      String pageToken = token;
      GetQueryResultsResponse page =
          call(
              "GetQueryResults",
              label,
              id,
              () ->
                  client.getQueryResults(
                      r -> r.queryExecutionId(id).nextToken(pageToken).maxResults(PAGE_SIZE)));
      List<Row> pageRows = page.resultSet() == null ? List.of() : page.resultSet().rows();
      for (int i = skipHeader && !pageRows.isEmpty() ? 1 : 0; i < pageRows.size(); i++) {
        List<String> values = new ArrayList<>();
        for (Datum d : pageRows.get(i).data()) {
          values.add(d.varCharValue()); // absent for SQL NULL
        }
        rows.add(values);
      }
      if (!pageRows.isEmpty()) {
        skipHeader = false;
      }
      token = page.nextToken();
    } while (token != null && !token.isEmpty());
    return rows;
  }

  private static long bytesScanned(QueryExecutionStatistics statistics) {
    if (statistics == null || statistics.dataScannedInBytes() == null) {
      return 0;
    }
    return statistics.dataScannedInBytes();
  }

  private static String reason(QueryExecution execution) {
    String reason = execution.status().stateChangeReason();
    AthenaError error = execution.status().athenaError();
    if ((reason == null || reason.isBlank()) && error != null) {
      reason = error.errorMessage();
    }
    return reason == null || reason.isBlank() ? "Athena gave no reason" : reason;
  }

  /** One call to Athena, retried while Athena throttles it, within the retry bound. */
  private <T> T call(String operation, String label, String id, Supplier<T> call) {
    Duration wait = settings.pollInitial();
    for (int attempt = 0; ; attempt++) {
      try {
        return call.get();
      } catch (SdkException e) {
        if (closed) {
          throw new QueryFailedException(
              "Cannot run query " + label + ": the runner was closed during " + operation,
              id,
              QueryExecutionState.CANCELLED.toString(),
              e);
        }
        if (!isThrottling(e)) {
          throw new QueryFailedException(
              "Cannot run query "
                  + label
                  + (id == null ? "" : " (Athena id " + id + ")")
                  + ": Athena refused "
                  + operation
                  + ": "
                  + e.getMessage(),
              id,
              REFUSED,
              e);
        }
        if (attempt >= settings.maxThrottleRetries()) {
          throw new QueryFailedException(
              "Cannot run query "
                  + label
                  + (id == null ? "" : " (Athena id " + id + ")")
                  + ": Athena throttled "
                  + operation
                  + " "
                  + (attempt + 1)
                  + " times in a row (max throttle retries "
                  + settings.maxThrottleRetries()
                  + "): "
                  + e.getMessage(),
              id,
              THROTTLED,
              e);
        }
        LOG.debug(
            "Athena throttled {} of query {}; retry {} in {}", operation, label, attempt + 1, wait);
        // Equal jitter: runners throttled together do not retry in lockstep.
        long nanos = wait.toNanos();
        sleep(nanos / 2 + ThreadLocalRandom.current().nextLong(nanos / 2 + 1), label, id);
        wait = doubled(wait);
      }
    }
  }

  /** Whether Athena asks the caller to slow down, whichever way it says so. */
  static boolean isThrottling(SdkException e) {
    if (e instanceof TooManyRequestsException) {
      return true;
    }
    if (e instanceof AwsServiceException service) {
      if (service.isThrottlingException() || service.statusCode() == 429) {
        return true;
      }
      String code =
          service.awsErrorDetails() == null ? null : service.awsErrorDetails().errorCode();
      if ("ThrottlingException".equals(code) || "TooManyRequestsException".equals(code)) {
        return true;
      }
    }
    return e.getMessage() != null && e.getMessage().contains("Rate exceeded");
  }

  private Duration doubled(Duration wait) {
    Duration next = wait.multipliedBy(2);
    return next.compareTo(settings.pollMax()) > 0 ? settings.pollMax() : next;
  }

  private void sleep(long nanos, String label, String id) {
    try {
      Thread.sleep(nanos / 1_000_000, (int) (nanos % 1_000_000));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      if (id != null) {
        stopQuietly(id);
      }
      throw new QueryFailedException(
          "Cannot run query " + label + ": interrupted; stopped",
          id,
          QueryExecutionState.CANCELLED.toString(),
          e);
    }
  }

  private void ensureOpen(String label, String id) {
    if (closed) {
      throw new QueryFailedException(
          "Cannot run query " + label + ": the runner is closed",
          id,
          QueryExecutionState.CANCELLED.toString(),
          null);
    }
  }

  private void stopQuietly(String id) {
    try {
      client.stopQueryExecution(r -> r.queryExecutionId(id));
      LOG.info("Stopped Athena query {}", id);
    } catch (RuntimeException e) {
      // The query may have ended meanwhile; Athena stops it at its own timeout anyway.
      LOG.warn("Cannot stop Athena query {}: {}", id, e.getMessage());
    }
  }

  /**
   * Stops every query still running, then closes the client if this runner built it. A query
   * started while closing is stopped by its own thread at its next poll; the client is closed only
   * once those threads are out (or after a bounded wait), so it is still there to stop them.
   */
  @Override
  public void close() {
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
    }
    for (String id : List.copyOf(running)) {
      stopQuietly(id);
    }
    if (!ownsClient) {
      return;
    }
    long waitMillis = settings.pollMax().multipliedBy(2).plusSeconds(10).toMillis();
    boolean drained = false;
    try {
      drained = slots.tryAcquire(settings.maxInFlight(), waitMillis, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (!drained) {
      LOG.warn("Closing the Athena client while queries {} may still be running", inFlight());
    }
    client.close();
  }
}
