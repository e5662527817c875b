package io.tidemark.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.ingest.config.IngestSettings;
import io.tidemark.ingest.run.IngestJob;
import io.tidemark.ingest.run.IngestOutcome;
import io.tidemark.model.config.RuleSpec;
import io.tidemark.model.contract.RawLayout.StrayEntry;
import io.tidemark.model.report.IngestStatus;
import io.tidemark.model.report.ReconciliationMode;
import io.tidemark.model.report.ReconciliationReport;
import io.tidemark.model.report.RuleStatus;
import io.tidemark.model.testing.raw.OrdersScenario;
import io.tidemark.model.testing.raw.RawFileWriter;
import io.tidemark.reconcile.engine.EngineRequest;
import io.tidemark.reconcile.engine.duckdb.DuckDbEngine;
import io.tidemark.reconcile.engine.duckdb.DuckDbEngine.ExpectedVersion;
import io.tidemark.reconcile.service.Reconciler;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * The ingest job (Spark) and the reconciler (DuckDB) read the same raw files under the one contract
 * of {@code io.tidemark.model.contract}, and must agree key by key: which keys are live, at which
 * change marker, which rows and files are invalid and why. The files hold what the contract has to
 * settle: ties on the change marker (within a file, across files and partitions, delete against
 * upsert), names with glob metacharacters, a colon and an upper-case suffix, a file without the
 * optional operation column, integer keys in the first file, text change markers, blank and
 * malformed keys, invalid markers and operations, a file with two columns differing only in case, a
 * file missing a contract column, and a stray folder.
 *
 * <p>A second dataset of the same contract file, {@code orders} in AWS DMS's layout, holds what a
 * real table brings: a composite key (text and int), a decimal amount, a date, a sequence change
 * marker, a full-load file without DMS's {@code Op} column, then CDC files whose {@code Op} is
 * {@code I}, {@code U} or {@code D} (matched exactly: {@code u} and {@code X} are unknown), ties on
 * the sequence between an update and a delete, and a key with a null part.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Tag("spark")
class TestRawContractAgreement {
  private static final Instant NOW = Instant.now().truncatedTo(ChronoUnit.SECONDS);
  private static final LocalDate D1 = LocalDate.ofInstant(NOW, ZoneOffset.UTC);
  private static final LocalDate D0 = D1.minusDays(1);
  // Recent enough for the default freshness rule, whatever the time of day.
  private static final Instant M = NOW.minus(Duration.ofHours(6));
  private static final Instant M2 = M.plusSeconds(3600);

  @TempDir static Path work;
  private static SparkSession spark;
  private static Pipeline pipeline;
  private static Path datasetRoot;
  private static final List<IngestOutcome> runs = new ArrayList<>();

  @BeforeAll
  static void ingestTwoDays() throws Exception {
    spark = Pipeline.localSpark(work);
    pipeline = new Pipeline(work, spark, OrdersScenario.CONTRACT.replace("RAW", ORDERS_RAW));
    datasetRoot = pipeline.rawRoot().resolve("customers");
    landOrders();

    // Day 0: sorts first with integer keys; odd names; no operation column; ties; invalid rows.
    copy(
        D0,
        "000-int-keys.parquet",
        rows("1001", "1002").replace("'1001'", "1001::BIGINT").replace("'1002'", "1002::BIGINT"));
    copy(D0, "a1.parquet", rows("k-a1"));
    copy(D0, "a[1].parquet", rows("k-abr"));
    copy(D0, "q1.parquet", rows("k-q1"));
    copy(D0, "q?.parquet", rows("k-q"));
    copy(D0, "s*.parquet", rows("k-star"));
    copy(D0, "b{x,y}.parquet", rows("k-brace"));
    copy(D0, "export-" + D0 + "T10:00:00.parquet", rows("k-colon"));
    copy(D0, "UPPER.PARQUET", rows("k-upper"));
    copy(
        D0,
        "no-op.parquet",
        "SELECT 'k-noop' AS customer_id, 'n' AS customer_name, 'e' AS email, "
            + ts(M)
            + " AS updated_at");
    copy(
        D0,
        "ties.parquet",
        values(
            row(lit("t-row"), "first", M, "'U'"),
            row(lit("t-row"), "second", M, "'U'"),
            row(lit("t-del"), "upsert", M, "'U'"),
            row(lit("t-del"), "delete", M, "'D'"),
            row(lit("t-file"), "from-d0", M, "'U'"),
            row("NULL", "null key", M, "'U'"),
            row(lit(""), "empty key", M, "'U'"),
            row(lit("\u200b"), "zero-width key", M, "'U'"),
            row(lit("\0"), "nul key", M, "'U'"),
            row(lit("k-space "), "trailing space", M, "'U'"),
            row(lit(" k-lead"), "leading space", M, "'U'"),
            row(lit("k-zw\u200b"), "zero-width inside", M, "'U'"),
            row(lit("k-nomark"), "no marker", null, "'U'"),
            row(lit("k-future"), "future", NOW.plus(Duration.ofDays(30)), "'U'"),
            row(lit("k-badop"), "bad op", M, "'X'"),
            row(lit("k-lower-u"), "lower-case op", M, "'u'"),
            row(lit("k-nullop"), "null op", M, "NULL")));
    Files.createDirectories(datasetRoot.resolve("ingest_date=garbage"));
    copy(datasetRoot.resolve("ingest_date=garbage").resolve("part-0.parquet"), rows("k-stray"));
    runs.add(ingest());

    // Day 1: equal-marker and newer versions across batches; text markers; broken files.
    copy(
        D1,
        "ties.parquet",
        values(
            row(lit("t-file"), "from-d1", M, "'U'"),
            row(lit("k-a1"), "newer", M2, "'U'"),
            row(lit("k-abr"), "deleted", M2, "'D'")));
    copy(
        D1,
        "text-marker.parquet",
        "SELECT * FROM (VALUES ('k-text1', 'n', 'e', '"
            + M2
            + "', 'U'), ('k-text2', 'n', 'e', 'not a time', 'U'))"
            + " t(customer_id, customer_name, email, updated_at, op)");
    copy(
        D1,
        "missing-email.parquet",
        "SELECT 'k-noemail' AS customer_id, 'n' AS customer_name, "
            + ts(M)
            + " AS updated_at, 'U' AS op");
    writeWithCaseDuplicates(datasetRoot.resolve("ingest_date=" + D1).resolve("dup-case.parquet"));
    // The table holds email as a string since day 0: a file with a bigint email cannot go in.
    copy(
        D1,
        "email-bigint.parquet",
        "SELECT 'k-intmail' AS customer_id, 'n' AS customer_name, 42::BIGINT AS email, "
            + ts(M)
            + " AS updated_at, 'U' AS op");
    runs.add(ingest());
    ordersRuns.add(ingestOrders());
  }

  // ---- orders, in DMS's layout ----

  private static final String ORDERS = "orders";
  private static final String ORDERS_RAW = "raw/sales/orders";
  private static final List<IngestOutcome> ordersRuns = new ArrayList<>();

  private static final String ORDER_COLUMNS =
      " t(Op, order_id, line_nr, amount, order_date, paid, change_seq)";

  private static String order(String op, String id, String line, String amount, long seq) {
    return "("
        + (op == null ? "CAST(NULL AS VARCHAR)" : "'" + op + "'")
        + ", '"
        + id
        + "', "
        + line
        + ", "
        + amount
        + "::DECIMAL(12,2), DATE '2026-03-0"
        + (seq % 9 + 1)
        + "', "
        + (seq % 2 == 0)
        + ", "
        + seq
        + "::BIGINT)";
  }

  private static void landOrders() throws Exception {
    Path root = work.resolve(ORDERS_RAW);
    Files.createDirectories(root);
    // The full load: no Op column; every row an upsert.
    copy(
        root.resolve("LOAD00000001.parquet"),
        "SELECT order_id, line_nr::INTEGER AS line_nr, amount, order_date, paid, change_seq FROM"
            + " (VALUES "
            + String.join(
                ", ",
                order(null, "O-1", "1", "1234567.89", 10),
                order(null, "O-1", "2", "0.01", 11),
                order(null, "O-2", "1", "99999.99", 12),
                order(null, "O-7", "1", "5.00", 13))
            + ")"
            + ORDER_COLUMNS);
    Path day = root.resolve(D1.toString().replace('-', '/'));
    Files.createDirectories(day);
    copy(
        day.resolve(D1.toString().replace("-", "") + "-060000001.parquet"),
        "SELECT Op, order_id, line_nr::INTEGER AS line_nr, amount, order_date, paid, change_seq"
            + " FROM (VALUES "
            + String.join(
                ", ",
                order("U", "O-1", "1", "1234567.90", 20),
                // A tie on the sequence: the delete wins on both sides.
                order("U", "O-2", "1", "1.00", 30),
                order("D", "O-2", "1", "1.00", 30),
                order("I", "O-3", "1", "10.10", 31),
                order("I", "O-3", "2", "10.20", 32),
                order("X", "O-4", "1", "4.00", 33),
                order("u", "O-5", "1", "5.00", 34),
                order(null, "O-6", "1", "6.00", 35),
                order("I", "O-8", "NULL", "8.00", 36),
                order("D", "O-7", "1", "5.00", 37))
            + ")"
            + ORDER_COLUMNS);
  }

  private static IngestOutcome ingestOrders() {
    IngestSettings settings =
        pipeline
            .ingestSettings(ORDERS)
            .withMaxInvalidRatio(1.0)
            .withClock(Clock.fixed(NOW, ZoneOffset.UTC));
    return new IngestJob(spark, settings).run();
  }

  private static EngineRequest ordersRequest() {
    return new EngineRequest(
        pipeline.contract(ORDERS),
        pipeline.catalog(),
        ReconciliationMode.FULL,
        null,
        NOW,
        NOW,
        RuleSpec.SAMPLE_SIZE_MAX,
        Duration.ofHours(1),
        null);
  }

  @Test
  void dmsOrdersAgreeKeyByKeyWithCompositeKeysExactDecimalsAndMappedOperations() {
    assertThat(ordersRuns)
        .extracting(o -> o.report().status())
        .as("%s", ordersRuns.stream().map(o -> o.report().error()).toList())
        .containsExactly(IngestStatus.SUCCEEDED);

    Map<String, Long> expectedLive = new TreeMap<>();
    for (ExpectedVersion v : DuckDbEngine.rawView(ordersRequest()).expected()) {
      if (!v.delete()) {
        expectedLive.put(v.key(), v.marker());
      }
    }
    Map<String, Long> curated = new TreeMap<>();
    Map<String, java.math.BigDecimal> amounts = new TreeMap<>();
    for (Row r :
        spark
            .sql(
                "SELECT order_id, line_nr, change_seq, amount FROM "
                    + pipeline.catalog().name()
                    + ".curated.orders")
            .collectAsList()) {
      String key = r.getString(0) + "|" + r.get(1);
      curated.put(key, r.getLong(2));
      amounts.put(key, r.getDecimal(3));
    }
    assertThat(curated).isEqualTo(expectedLive);
    // O-2 deleted on a tie, O-7 deleted, O-4 and O-5 unknown operations, O-8 without a line.
    assertThat(curated)
        .containsOnlyKeys("O-1|1", "O-1|2", "O-3|1", "O-3|2", "O-6|1")
        .containsEntry("O-1|1", 20L);
    assertThat(amounts)
        .containsEntry("O-1|1", new java.math.BigDecimal("1234567.90"))
        .containsEntry("O-1|2", new java.math.BigDecimal("0.01"));

    Map<String, String> quarantined = new TreeMap<>();
    for (Row r :
        spark
            .sql(
                "SELECT get_json_object(original_values, '$.order_id'), reason FROM "
                    + pipeline.catalog().name()
                    + "."
                    + pipeline.contract(ORDERS).quarantineTable())
            .collectAsList()) {
      quarantined.put(r.getString(0), r.getString(1));
    }
    assertThat(quarantined)
        .isEqualTo(
            Map.of("O-4", "UNKNOWN_OPERATION", "O-5", "UNKNOWN_OPERATION", "O-8", "NULL_KEY"));

    ReconciliationReport report =
        Reconciler.builder(work.resolve("orders-state"))
            .dataset(pipeline.contract(ORDERS), pipeline.catalog())
            .runReports(new io.tidemark.reconcile.report.LocalRunReports(pipeline.stateRoot()))
            .clock(Clock.fixed(NOW, ZoneOffset.UTC))
            .build()
            .run(ORDERS, ReconciliationMode.FULL, null, null, "test");
    assertThat(report.results())
        .allSatisfy(
            r ->
                assertThat(r.status())
                    .as("%s: %s", r.kind(), r.reason())
                    .isEqualTo(RuleStatus.PASS));
  }

  @AfterAll
  static void stop() {
    if (pipeline != null) {
      pipeline.close();
    }
    if (spark != null) {
      spark.stop();
    }
  }

  private static IngestOutcome ingest() {
    IngestSettings settings =
        pipeline
            .ingestSettings()
            .withMaxInvalidRatio(1.0)
            .withClock(Clock.fixed(NOW, ZoneOffset.UTC));
    return new IngestJob(spark, settings).run();
  }

  private static EngineRequest fullRequest() {
    return new EngineRequest(
        pipeline.contract(),
        pipeline.catalog(),
        ReconciliationMode.FULL,
        null,
        NOW,
        NOW,
        RuleSpec.SAMPLE_SIZE_MAX,
        Duration.ofHours(1),
        null);
  }

  @Test
  void bothRunsSucceed() {
    assertThat(runs)
        .extracting(o -> o.report().status())
        .as("%s", runs.stream().map(o -> o.report().error()).toList())
        .containsExactly(IngestStatus.SUCCEEDED, IngestStatus.SUCCEEDED);
  }

  @Test
  void theJobsCuratedTableIsTheReconcilersExpectedStateKeyByKey() {
    Map<String, Long> expectedLive = new TreeMap<>();
    for (ExpectedVersion v : DuckDbEngine.rawView(fullRequest()).expected()) {
      if (!v.delete()) {
        expectedLive.put(v.key(), v.marker());
      }
    }
    Map<String, Long> curated = new TreeMap<>();
    for (Row r :
        spark.sql("SELECT customer_id, updated_at FROM " + pipeline.sparkTable()).collectAsList()) {
      curated.put(r.getString(0), micros(((java.sql.Timestamp) r.get(1)).toInstant()));
    }

    assertThat(curated).isEqualTo(expectedLive);
    assertThat(curated)
        .containsOnlyKeys(
            "1001",
            "1002",
            "k-a1",
            "k-q1",
            "k-q",
            "k-star",
            "k-brace",
            "k-colon",
            "k-upper",
            "k-noop",
            "t-row",
            "t-file",
            "k-nullop",
            "k-text1")
        .containsEntry("k-a1", micros(M2))
        .containsEntry("k-text1", micros(M2));
  }

  @Test
  void tiesResolveTheSameWayAndEveryRulePassesButTheStrayFolderAndTheMisshapenFilesFail() {
    Map<String, String> names = new TreeMap<>();
    for (Row r :
        spark
            .sql(
                "SELECT customer_id, customer_name FROM "
                    + pipeline.sparkTable()
                    + " WHERE customer_id LIKE 't-%'")
            .collectAsList()) {
      names.put(r.getString(0), r.getString(1));
    }
    // First delivered row of a file wins; a delete wins a tie; the lower path wins, and a later
    // batch's equal marker does not overwrite.
    assertThat(names)
        .containsExactlyInAnyOrderEntriesOf(Map.of("t-row", "first", "t-file", "from-d0"));

    ReconciliationReport report =
        Reconciler.builder(pipeline.stateRoot())
            .dataset(pipeline.contract(), pipeline.catalog())
            .clock(Clock.fixed(NOW, ZoneOffset.UTC))
            .build()
            .run("customers", ReconciliationMode.FULL, null, null, "test");
    // A folder the layout cannot place is never silently green: no batch will ever read it. Nor
    // are the files the job quarantined whole for their columns: their rows reach no table.
    assertThat(report.results())
        .filteredOn(r -> !Set.of("unprocessed_files", "schema_drift").contains(r.ruleId()))
        .allSatisfy(
            r ->
                assertThat(r.status())
                    .as("%s: %s", r.kind(), r.reason())
                    .isEqualTo(RuleStatus.PASS));
    assertThat(report.results())
        .filteredOn(r -> r.ruleId().equals("unprocessed_files"))
        .singleElement()
        .satisfies(
            r -> {
              assertThat(r.status()).isEqualTo(RuleStatus.FAIL);
              assertThat(r.sampleKeys())
                  .singleElement()
                  .asString()
                  .startsWith("ingest_date=garbage");
            });
    assertThat(report.results())
        .filteredOn(r -> r.ruleId().equals("schema_drift"))
        .singleElement()
        .satisfies(
            r -> {
              assertThat(r.status()).isEqualTo(RuleStatus.FAIL);
              assertThat(r.observed()).isEqualTo(3.0);
              assertThat(r.sampleKeys())
                  .map(k -> k.substring(k.lastIndexOf('/') + 1, k.indexOf(" (")))
                  .containsExactly(
                      "dup-case.parquet: DUPLICATE_COLUMN",
                      "email-bigint.parquet: INCOMPATIBLE_TYPE",
                      "missing-email.parquet: MISSING_COLUMN");
            });
  }

  @Test
  void invalidRowsAndFilesAreTheSameOnBothSidesForTheSameReasons() {
    DuckDbEngine.RawView view = DuckDbEngine.rawView(fullRequest());
    Map<String, String> excludedByReconciler =
        view.excluded().stream()
            .collect(
                Collectors.toMap(
                    e -> Path.of(e.path()).getFileName().toString(), e -> e.reason().name()));
    Map<String, String> quarantinedFilesByJob = new TreeMap<>();
    Map<String, String> quarantinedKeysByJob = new TreeMap<>();
    for (Row r :
        spark
            .sql(
                "SELECT source_file, reason, get_json_object(original_values, '$.customer_id')"
                    + " FROM "
                    + pipeline.catalog().name()
                    + "."
                    + pipeline.contract().quarantineTable())
            .collectAsList()) {
      String file = r.getString(0).substring(r.getString(0).lastIndexOf('/') + 1);
      String reason = r.getString(1);
      if (io.tidemark.model.contract.ReasonCode.valueOf(reason).wholeFile()) {
        quarantinedFilesByJob.put(file, reason);
      } else {
        quarantinedKeysByJob.put(String.valueOf(r.getString(2)), reason);
      }
    }

    assertThat(excludedByReconciler)
        .isEqualTo(quarantinedFilesByJob)
        .isEqualTo(
            Map.of(
                "dup-case.parquet",
                "DUPLICATE_COLUMN",
                "missing-email.parquet",
                "MISSING_COLUMN",
                "email-bigint.parquet",
                "INCOMPATIBLE_TYPE"));
    Map<String, String> expectedKeys = new TreeMap<>();
    expectedKeys.put("null", "NULL_KEY");
    expectedKeys.put("", "NULL_KEY");
    expectedKeys.put("\u200b", "NULL_KEY");
    expectedKeys.put("\0", "NULL_KEY");
    expectedKeys.put("k-space ", "MALFORMED_KEY");
    expectedKeys.put(" k-lead", "MALFORMED_KEY");
    expectedKeys.put("k-zw\u200b", "MALFORMED_KEY");
    expectedKeys.put("k-nomark", "MISSING_CHANGE_MARKER");
    expectedKeys.put("k-future", "FUTURE_CHANGE_MARKER");
    expectedKeys.put("k-badop", "UNKNOWN_OPERATION");
    expectedKeys.put("k-lower-u", "UNKNOWN_OPERATION");
    expectedKeys.put("k-text2", "UNPARSEABLE_CHANGE_MARKER");
    assertThat(quarantinedKeysByJob).isEqualTo(expectedKeys);
    // The reconciler holds none of the invalid keys as a version.
    assertThat(view.expected())
        .extracting(ExpectedVersion::key)
        .doesNotContainAnyElementsOf(expectedKeys.keySet());

    assertThat(view.strays())
        .extracting(StrayEntry::path)
        .containsExactly(datasetRoot.resolve("ingest_date=garbage").toAbsolutePath().toString());
    assertThat(runs)
        .allSatisfy(
            o ->
                assertThat(o.report().ignoredPartitionFolders())
                    .containsExactly("ingest_date=garbage"));
  }

  // ---- raw files, written by DuckDB (and by Spark for a shape DuckDB cannot write) ----

  private static long micros(Instant i) {
    return ChronoUnit.MICROS.between(Instant.EPOCH, i);
  }

  private static String ts(Instant i) {
    return "TIMESTAMPTZ '" + i.toString().replace("T", " ").replace("Z", "+00") + "'";
  }

  /** A text literal; control and format characters as chr() so the SQL text stays plain. */
  private static String lit(String s) {
    StringBuilder out = new StringBuilder("(''");
    for (int cp : s.codePoints().toArray()) {
      int type = Character.getType(cp);
      if (type == Character.CONTROL || type == Character.FORMAT) {
        out.append(" || chr(").append(cp).append(")");
      } else {
        out.append(" || '")
            .append(new String(Character.toChars(cp)).replace("'", "''"))
            .append("'");
      }
    }
    return out.append(")").toString();
  }

  private static String row(String keyExpr, String name, Instant at, String opExpr) {
    return "("
        + keyExpr
        + ", '"
        + name
        + "', 'e@example.com', "
        + (at == null ? "CAST(NULL AS TIMESTAMPTZ)" : ts(at))
        + ", "
        + opExpr
        + ")";
  }

  private static String values(String... rows) {
    return "SELECT * FROM (VALUES "
        + String.join(", ", rows)
        + ") t(customer_id, customer_name, email, updated_at, op)";
  }

  private static String rows(String... keys) {
    return values(
        Stream.of(keys).map(k -> row("'" + k + "'", "n-" + k, M, "'U'")).toArray(String[]::new));
  }

  private static void copy(LocalDate partition, String fileName, String query)
      throws IOException, SQLException {
    Path dir = datasetRoot.resolve("ingest_date=" + partition);
    Files.createDirectories(dir);
    copy(dir.resolve(fileName), query);
  }

  private static void copy(Path file, String query) {
    RawFileWriter.writeQueryOnce(file, query);
  }

  /** Spark, told to mind case, writes {@code email} and {@code EMAIL} side by side. */
  private static void writeWithCaseDuplicates(Path target) throws IOException {
    Path out = work.resolve("dup-case-out");
    spark.conf().set("spark.sql.caseSensitive", "true");
    try {
      spark
          .sql(
              "SELECT 'k-dup' AS customer_id, 'n' AS customer_name, 'a@example.com' AS email,"
                  + " 'b@example.com' AS EMAIL, TIMESTAMP '"
                  + M.toString().replace("T", " ").replace("Z", "")
                  + "' AS updated_at, 'U' AS op")
          .coalesce(1)
          .write()
          .parquet(out.toString());
    } finally {
      spark.conf().set("spark.sql.caseSensitive", "false");
    }
    try (Stream<Path> files = Files.list(out)) {
      Path part =
          files
              .filter(p -> p.getFileName().toString().endsWith(".parquet"))
              .findFirst()
              .orElseThrow();
      Files.createDirectories(target.getParent());
      Files.move(part, target);
    }
  }
}
