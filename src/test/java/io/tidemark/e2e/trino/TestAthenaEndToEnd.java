package io.tidemark.e2e.trino;

import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.e2e.Pipeline;
import io.tidemark.e2e.TestFaultInjection;
import io.tidemark.model.config.CatalogSpec;
import io.tidemark.model.config.RuleKind;
import io.tidemark.model.contract.DatasetContract;
import io.tidemark.model.report.ReconciliationMode;
import io.tidemark.model.report.ReconciliationReport;
import io.tidemark.model.report.ReconciliationStatus;
import io.tidemark.model.report.RuleResult;
import io.tidemark.model.report.RuleStatus;
import io.tidemark.model.testing.raw.RawFile;
import io.tidemark.reconcile.config.ReconciledDataset;
import io.tidemark.reconcile.engine.EngineNames;
import io.tidemark.reconcile.engine.EngineRequest;
import io.tidemark.reconcile.engine.Observations;
import io.tidemark.reconcile.engine.athena.AthenaEngine;
import io.tidemark.reconcile.engine.athena.AthenaQueryRunner;
import io.tidemark.reconcile.engine.athena.AthenaSettings;
import io.tidemark.reconcile.engine.athena.QueryResult;
import io.tidemark.reconcile.engine.athena.QueryRunner;
import io.tidemark.reconcile.fixtures.MotoProcess;
import io.tidemark.reconcile.fixtures.S3Clients;
import io.tidemark.reconcile.report.LocalRunReports;
import io.tidemark.reconcile.report.S3ReportStore;
import io.tidemark.reconcile.report.S3RunReports;
import io.tidemark.reconcile.service.Reconciler;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Tags;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.athena.AthenaClient;
import software.amazon.awssdk.services.athena.model.QueryExecution;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * The reconciler configured for Athena, end to end, without an AWS account: the pipeline's raw
 * files and run reports are uploaded to S3 (moto_server), the reconciliation runs on the {@code
 * athena} engine against moto's Athena API, and reports land on S3.
 *
 * <p>moto does not run SQL, it answers each query with the next result queued on it. So the same
 * reconciliation first runs on a real Trino (Athena engine v3's SQL engine) over the same files and
 * records every query and its rows; those rows are queued on moto, and the test then holds the
 * Athena run to three things: every query it sent is the Trino-proven text (only the table names
 * differ: Trino reads catalogs of its own) with the same values as execution parameters ({@code
 * "$path"} values name the S3 objects instead of local files); its report equals the report of the
 * embedded DuckDB engine on the same pipeline, rule by rule, sample keys included; and the report
 * is on S3, next to the run reports it read.
 *
 * <p>The curated table's column types come from its local Iceberg catalog here (on AWS, from the
 * Glue catalog the job registers it in).
 */
@Tags({@Tag("aws"), @Tag("spark"), @Tag("trino")})
class TestAthenaEndToEnd {
  private static final String BUCKET = "tidemark-lake";
  private static final String RAW_PREFIX = "raw/customers";
  private static final String STATE_PREFIX = "state";

  @TempDir Path work;

  /** What one query sent and what Trino answered. */
  record Query(String label, String sql, List<Object> params, List<List<String>> rows) {}

  /** A runner that keeps every query it ran, in order, and the most it ran at once. */
  static final class Recording implements QueryRunner {
    private final QueryRunner delegate;
    private final List<Query> queries;
    private final AtomicInteger running = new AtomicInteger();
    private final AtomicInteger mostAtOnce;

    Recording(QueryRunner delegate, List<Query> queries, AtomicInteger mostAtOnce) {
      this.delegate = delegate;
      this.queries = queries;
      this.mostAtOnce = mostAtOnce;
    }

    @Override
    public QueryResult run(String label, String sql, List<Object> params) {
      mostAtOnce.accumulateAndGet(running.incrementAndGet(), Math::max);
      try {
        QueryResult result = delegate.run(label, sql, params);
        queries.add(new Query(label, sql, List.copyOf(params), result.rows()));
        return result;
      } finally {
        running.decrementAndGet();
      }
    }

    @Override
    public void close() {
      delegate.close();
    }
  }

  @Test
  void theServiceOnAthenaSendsTheTrinoProvenSqlAndReportsWhatDuckDbReports() {
    Path root = work.resolve("pipeline");
    SparkSession spark = Pipeline.localSpark(root);
    try (Pipeline p = TestFaultInjection.ingestAll(root, 23, spark);
        MotoProcess moto = MotoProcess.start();
        S3Client s3 = S3Clients.on(moto.endpoint());
        EngineAgreement trino = new EngineAgreement(p, work)) {
      // Healthy, every bucket of keys agrees: the counts' query settles every key measure, whose
      // queries (a scan of both layers each) never run, and the answers are DuckDB's. Freshness's
      // markers come in the same query, and with no raw version newer than curated's newest no
      // query looks for pending keys: a healthy table is one query.
      List<Query> healthy = Collections.synchronizedList(new ArrayList<>());
      EngineRequest clean = trino.request(ReconciliationMode.FULL, null, Duration.ofHours(1));
      Observations healthyRun =
          trino
              .sqlEngine("trino", runner -> new Recording(runner, healthy, new AtomicInteger()), 2)
              .observe(clean);
      assertThat(healthy)
          .extracting(Query::label)
          .containsExactly("bucket sums and freshness markers")
          .doesNotContain(
              "key measures",
              "count_match keys",
              "missing_keys",
              "unexpected_keys",
              "duplicate_keys",
              "stale_versions",
              "value_mismatches");
      assertThat(healthyRun.expectedRows()).isEqualTo(p.curated().size());
      assertThat(trino.disagreements(clean, healthyRun))
          .as("Trino against DuckDB, healthy")
          .isEmpty();

      // A damaged curated table, so that rules fail and carry sample keys.
      List<String> keys = new ArrayList<>(p.curated().keySet());
      spark.sql(
          "DELETE FROM "
              + p.sparkTable()
              + " WHERE customer_id IN ('"
              + keys.get(5)
              + "', '"
              + keys.get(50)
              + "')");
      spark.sql(
          "UPDATE "
              + p.sparkTable()
              + " SET email = 'wrong@example.com' WHERE customer_id = '"
              + keys.get(7)
              + "'");

      s3.createBucket(b -> b.bucket(BUCKET));
      Path rawDataset = p.rawRoot().resolve("customers");
      int rawObjects = upload(s3, rawDataset, RAW_PREFIX);
      upload(s3, p.stateRoot(), STATE_PREFIX);
      assertThat(rawObjects).isEqualTo(p.landed().size());

      // One instant for all three runs: the windows, the freshness and the parameters agree.
      Clock clock = Clock.fixed(Instant.now().truncatedTo(ChronoUnit.MILLIS), ZoneOffset.UTC);
      ReconciledDataset local = dataset(p.contract(), p.catalog());

      ReconciliationReport viaDuckDb =
          Reconciler.builder(work.resolve("duckdb-state"))
              .dataset(local.contract(), p.catalog())
              .runReports(new LocalRunReports(p.stateRoot()))
              .clock(clock)
              .build()
              .run("customers", ReconciliationMode.FULL, null, null, "test");

      // One query in flight at a time: the order is the same on every run, so moto, which answers
      // queries in the order they come, can replay Trino's rows.
      List<Query> proven = Collections.synchronizedList(new ArrayList<>());
      AtomicInteger provenAtOnce = new AtomicInteger();
      ReconciliationReport viaTrino =
          Reconciler.builder(work.resolve("trino-state"))
              .engine(
                  trino.sqlEngine(
                      EngineNames.ATHENA, runner -> new Recording(runner, proven, provenAtOnce), 1))
              .dataset(local)
              .runReports(new LocalRunReports(p.stateRoot()))
              .clock(clock)
              .build()
              .run("customers", ReconciliationMode.FULL, null, null, "test");
      // Every key rule from one query; the difference of the failing rules' keys after it.
      assertThat(proven)
          .as("queries run on Trino")
          .extracting(Query::label)
          .containsExactly(
              "bucket sums and freshness markers",
              "key measures",
              "difference by column",
              "difference of the sample keys");
      assertThat(provenAtOnce).as("queries at once, at most 1 in flight").hasValue(1);
      assertThat(sameRules(viaTrino, viaDuckDb)).as("Trino against DuckDB").isEmpty();

      moto.control("/moto-api/static/athena/query-results", queued(proven));
      AthenaSettings settings =
          new AthenaSettings(
              "us-east-1",
              Optional.of(moto.endpoint()),
              "primary",
              "s3://" + BUCKET + "/athena-results/",
              "AwsDataCatalog",
              "tidemark",
              Duration.ofSeconds(60),
              Duration.ofMillis(10),
              Duration.ofMillis(100),
              1,
              3);
      DatasetContract onS3 = p.contract().withRawLocation("s3://" + BUCKET + "/" + RAW_PREFIX);
      S3ReportStore reports = new S3ReportStore(s3, BUCKET, STATE_PREFIX);
      ReconciliationReport viaAthena;
      try (AthenaClient athena =
          AthenaQueryRunner.newClient(
              settings,
              StaticCredentialsProvider.create(AwsBasicCredentials.create("testing", "testing")))) {
        viaAthena =
            Reconciler.builder(work.resolve("unused"))
                .engine(AthenaEngine.create(settings, () -> athena, () -> s3, 5.0))
                .reportStore(reports)
                .runReports(new S3RunReports(s3, BUCKET, STATE_PREFIX))
                .dataset(dataset(onS3, p.catalog()))
                .clock(clock)
                .build()
                .run("customers", ReconciliationMode.FULL, null, null, "test");

        // (a) What Athena was sent is what Trino ran.
        List<QueryExecution> sent = executions(athena);
        assertThat(sent).hasSameSizeAs(proven);
        String localRaw = TrinoServer.localUri(rawDataset) + "/";
        String s3Raw = "s3://" + BUCKET + "/" + RAW_PREFIX + "/";
        for (int i = 0; i < sent.size(); i++) {
          Query q = proven.get(i);
          String expectedSql =
              q.sql()
                  .replace(
                      TrinoServer.quoteIdentifier(EngineAgreement.RAW_CATALOG) + ".\"tidemark\".",
                      "")
                  .replace(TrinoServer.quoteIdentifier(EngineAgreement.CURATED_CATALOG) + ".", "");
          assertThat(sent.get(i).query()).as("query %d (%s)", i, q.label()).isEqualTo(expectedSql);
          List<String> expectedParams =
              q.params().stream()
                  .map(v -> v instanceof String s ? s.replace(localRaw, s3Raw) : v)
                  .map(v -> v instanceof String s ? "'" + s.replace("'", "''") + "'" : v.toString())
                  .toList();
          assertThat(sent.get(i).executionParameters())
              .as("parameters of query %d (%s)", i, q.label())
              .isEqualTo(expectedParams);
          assertThat(sent.get(i).queryExecutionContext().database()).isEqualTo("tidemark");
          assertThat(sent.get(i).workGroup()).isEqualTo("primary");
        }
      }

      // (b) The report is the embedded engine's, rule by rule.
      assertThat(viaAthena.engine()).isEqualTo(EngineNames.ATHENA);
      assertThat(viaAthena.status()).isEqualTo(ReconciliationStatus.FAILED);
      assertThat(sameRules(viaAthena, viaDuckDb)).as("Athena against DuckDB").isEmpty();
      assertThat(rule(viaAthena, "missing_keys").status()).isEqualTo(RuleStatus.FAIL);
      assertThat(rule(viaAthena, "missing_keys").sampleKeys())
          .containsExactlyInAnyOrder(keys.get(5), keys.get(50));
      assertThat(rule(viaAthena, "value_mismatches").sampleKeys()).containsExactly(keys.get(7));
      assertThat(viaAthena.scanCostUsd()).as("priced, even at 0 bytes from moto").isNotNull();

      // (c) The report is on S3, where a second replica finds it.
      assertThat(new S3ReportStore(s3, BUCKET, STATE_PREFIX).find(viaAthena.id()))
          .hasValueSatisfying(r -> assertThat(r.status()).isEqualTo(viaAthena.status()));
      assertThat(s3.headObject(b -> b.bucket(BUCKET).key(reports.key(viaAthena))).eTag())
          .isNotBlank();

      // WINDOW prunes raw partitions. With files that arrived on their own day (here they all
      // landed minutes ago, which makes every one a late arrival), a one-day window reads from the
      // day before its start on, not the whole history.
      for (RawFile f : p.landed()) {
        Instant arrived =
            Collections.min(
                List.of(
                    f.partition().atTime(12, 0).toInstant(ZoneOffset.UTC),
                    Instant.now().minusSeconds(60)));
        try {
          Files.setLastModifiedTime(rawDataset.resolve(f.relativePath()), FileTime.from(arrived));
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      }
      Instant dayAgo = Instant.now().minus(Duration.ofDays(1));
      Observations full =
          trino
              .sqlEngine()
              .observe(trino.request(ReconciliationMode.FULL, null, Duration.ofHours(1)));
      Observations window =
          trino
              .sqlEngine()
              .observe(trino.request(ReconciliationMode.WINDOW, dayAgo, Duration.ofHours(1)));
      System.out.println(
          "Bytes Trino read for count_match: FULL "
              + full.countDifference().bytesScanned()
              + ", one-day WINDOW "
              + window.countDifference().bytesScanned()
              + "; freshness: FULL "
              + full.freshness().bytesScanned()
              + ", WINDOW "
              + window.freshness().bytesScanned());
      // The curated table is read whole in both modes; raw shrinks to two of nine days. (The
      // damage is older than the window, so the window's buckets agree and only the counts' query
      // runs; FULL also runs the key measures.)
      assertThat(window.countDifference().bytesScanned())
          .as("bytes a one-day WINDOW reads for count_match, against FULL's")
          .isPositive()
          .isLessThan(full.countDifference().bytesScanned() * 6 / 10);
      assertThat(window.missing().bytesScanned()).as("no key query in an agreeing window").isZero();
      assertThat(full.missing().bytesScanned()).isPositive();
      assertThat(window.freshness().bytesScanned())
          .isLessThan(full.freshness().bytesScanned() * 6 / 10);
    } finally {
      spark.stop();
    }
  }

  private static ReconciledDataset dataset(DatasetContract contract, CatalogSpec catalog) {
    return new ReconciledDataset(contract, catalog, EngineNames.ATHENA);
  }

  /** Every query moto saw, oldest first. */
  private static List<QueryExecution> executions(AthenaClient athena) {
    List<String> ids = new ArrayList<>();
    athena
        .listQueryExecutionsPaginator(r -> r.workGroup("primary"))
        .forEach(page -> ids.addAll(page.queryExecutionIds()));
    List<QueryExecution> out = new ArrayList<>();
    for (String id : ids) {
      out.add(athena.getQueryExecution(r -> r.queryExecutionId(id)).queryExecution());
    }
    out.sort(java.util.Comparator.comparing(e -> e.status().submissionDateTime()));
    return out;
  }

  /** The recorded rows as moto's result queue wants them: a header row, then the rows. */
  private static String queued(List<Query> queries) {
    StringBuilder json = new StringBuilder("{\"region\":\"us-east-1\",\"results\":[");
    for (int i = 0; i < queries.size(); i++) {
      List<List<String>> rows = queries.get(i).rows();
      int width = rows.isEmpty() ? 1 : rows.get(0).size();
      List<List<String>> withHeader = new ArrayList<>();
      List<String> header = new ArrayList<>();
      for (int c = 0; c < width; c++) {
        header.add("c" + c);
      }
      withHeader.add(header);
      withHeader.addAll(rows);
      json.append(i == 0 ? "" : ",")
          .append("{\"rows\":[")
          .append(
              withHeader.stream()
                  .map(
                      row ->
                          row.stream()
                              .map(v -> v == null ? "{}" : "{\"VarCharValue\":" + quote(v) + "}")
                              .collect(Collectors.joining(",", "{\"Data\":[", "]}")))
                  .collect(Collectors.joining(",")))
          .append("],\"column_info\":[]}");
    }
    return json.append("]}").toString();
  }

  private static String quote(String s) {
    StringBuilder out = new StringBuilder("\"");
    for (char c : s.toCharArray()) {
      switch (c) {
        case '"' -> out.append("\\\"");
        case '\\' -> out.append("\\\\");
        case '\n' -> out.append("\\n");
        default -> {
          if (c < 0x20) {
            out.append(String.format("\\u%04x", (int) c));
          } else {
            out.append(c);
          }
        }
      }
    }
    return out.append('"').toString();
  }

  /** Uploads a folder's files under a key prefix, as the exporter and the job would on AWS. */
  private static int upload(S3Client s3, Path folder, String prefix) {
    try (Stream<Path> files = Files.walk(folder)) {
      List<Path> regular = files.filter(Files::isRegularFile).toList();
      for (Path f : regular) {
        String key = prefix + "/" + folder.relativize(f).toString().replace('\\', '/');
        s3.putObject(b -> b.bucket(BUCKET).key(key), RequestBody.fromFile(f));
      }
      return regular.size();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static RuleResult rule(ReconciliationReport r, String name) {
    return r.results().stream().filter(x -> x.ruleId().equals(name)).findFirst().orElseThrow();
  }

  /**
   * How two reports' rules differ, one line per rule; bytes and cost are engine-specific, and a
   * freshness lag may differ below the millisecond (Athena reads raw timestamps in milliseconds).
   */
  private static List<String> sameRules(
      ReconciliationReport actual, ReconciliationReport expected) {
    List<String> out = new ArrayList<>();
    assertThat(actual.results()).hasSameSizeAs(expected.results());
    for (RuleResult e : expected.results()) {
      RuleResult a = rule(actual, e.ruleId());
      boolean sameObserved =
          e.observed() == null
              ? a.observed() == null
              : a.observed() != null
                  && (e.kind() == RuleKind.FRESHNESS
                      ? Math.abs(e.observed() - a.observed()) <= 0.001
                      : e.observed().equals(a.observed()));
      String left = e.status() + " " + e.sampleKeys() + " " + e.reason();
      String right = a.status() + " " + a.sampleKeys() + " " + a.reason();
      if (!left.equals(right) || !sameObserved) {
        out.add(
            e.ruleId()
                + ": expected "
                + e.observed()
                + " "
                + left
                + " but was "
                + a.observed()
                + " "
                + right);
      }
    }
    return out;
  }
}
