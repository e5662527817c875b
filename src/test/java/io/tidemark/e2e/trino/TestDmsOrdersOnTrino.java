package io.tidemark.e2e.trino;

import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.e2e.Pipeline;
import io.tidemark.ingest.config.IngestSettings;
import io.tidemark.ingest.run.IngestJob;
import io.tidemark.model.config.Aggregate;
import io.tidemark.model.config.ToleranceMode;
import io.tidemark.model.contract.athena.AthenaRawTables;
import io.tidemark.model.report.IngestStatus;
import io.tidemark.model.report.ReconciliationMode;
import io.tidemark.model.testing.raw.OrdersScenario;
import io.tidemark.reconcile.engine.AggregateFinding;
import io.tidemark.reconcile.engine.EngineRequest;
import io.tidemark.reconcile.engine.Observations;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Tags;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Athena engine's SQL on a dataset in AWS DMS's layout, on a real Trino: an {@code orders}
 * table (a full load directly in the table's folder, then CDC files in {@code YYYY/MM/DD} folders;
 * a composite key of text and int, a {@code decimal(12,2)} amount, a sequence change marker) is
 * ingested by the job from its contract, its raw tables are declared on Trino from the contract's
 * shared Athena definition (the projected CDC table and the {@code _all} table over every file),
 * and the SQL reads the raw files by {@code "$path"}, each with the day the listing gives it (a CDC
 * file's folder, the full load's arrival). DuckDB and the SQL on Trino must agree measure by
 * measure, FULL and WINDOW, clean and after damage; and both must name the damaged composite keys
 * whole, an altered amount of one cent found exactly.
 */
@Tags({@Tag("spark"), @Tag("trino")})
class TestDmsOrdersOnTrino {
  private static final String ORDERS = "orders";
  private static final String ORDERS_RAW = "raw/sales/orders";
  private static final int CHANGE_DAYS = 3;

  /** A custom rule over the quarantine, as a line of the orders' rules. */
  private static final String OPERATIONS_UNMAPPED =
      "        operations_unmapped: {kind: custom_sql, sql: \"SELECT source_file || '#' ||"
          + " CAST(row_number AS VARCHAR), reason FROM quarantine WHERE reason ="
          + " 'UNKNOWN_OPERATION'\"}\n";

  @TempDir(cleanup = CleanupMode.ON_SUCCESS)
  Path work;

  @Test
  void duckDbAndTheAthenaSqlOnTrinoAgreeOnDmsOrdersCleanAndDamaged() throws Exception {
    LocalDate firstDay = LocalDate.now(ZoneOffset.UTC).minusDays(CHANGE_DAYS + 2);
    OrdersScenario orders = new OrdersScenario(200, CHANGE_DAYS, 11, firstDay);
    Path root = work.resolve("pipeline");
    SparkSession spark = Pipeline.localSpark(root);
    List<OrdersScenario.OrderFile> landed = new ArrayList<>();
    String contract =
        OrdersScenario.withHeadKnown(OrdersScenario.CONTRACT.replace("RAW", ORDERS_RAW))
            .replace("      rules:\n", "      rules:\n" + OPERATIONS_UNMAPPED);
    String headsContract = OrdersScenario.HEADS_CONTRACT.replace("RAW", "raw/sales/order_heads");
    try (Pipeline p = new Pipeline(root, spark, contract, headsContract)) {
      Path dataset = Path.of(p.contract(ORDERS).raw().location());
      // CDC folders older than the full load (which is dated by its arrival, today): discovery
      // must look back to them.
      IngestSettings settings = p.ingestSettings(ORDERS).withLookback(Duration.ofDays(30));
      for (List<OrdersScenario.OrderFile> day : orders.days()) {
        OrdersScenario.write(dataset, day);
        landed.addAll(day);
        assertThat(new IngestJob(spark, settings).run().report().status())
            .as("orders, %s", day.get(0).relativePath())
            .isEqualTo(IngestStatus.SUCCEEDED);
      }
      Map<String, OrdersScenario.Order> expected = OrdersScenario.expected(landed);
      // A row of the job's quarantine table (made with curated), as an unmapped Op leaves one.
      spark.sql(
          "INSERT INTO "
              + p.catalog().name()
              + ".curated.orders_quarantine (batch_id, run_id, quarantined_at, source_file,"
              + " row_number, reason, detail) VALUES ('b-1', 'r-1', current_timestamp(),"
              + " 'x.parquet', 7, 'UNKNOWN_OPERATION', 'Op X is not mapped')");
      // The heads of every order, in a merge-on-read table: a deleted head is a position delete.
      String heads = p.catalog().name() + ".curated.order_heads";
      spark.sql(
          "CREATE TABLE "
              + heads
              + " (order_id string, head_seq bigint) USING iceberg TBLPROPERTIES"
              + " ('format-version' = '2', 'write.delete.mode' = 'merge-on-read')");
      spark.sql(
          "INSERT INTO "
              + heads
              + " SELECT DISTINCT order_id, 1 FROM "
              + p.catalog().name()
              + ".curated.orders");

      try (EngineAgreement agreement =
          new EngineAgreement(p, work, ORDERS, firstDay.minusDays(30))) {
        String name = p.contract(ORDERS).rawTableName();
        assertRawTables(agreement.trino(), name, landed);

        // A WINDOW over the last two CDC days (and the full load, which arrived today).
        Instant windowStart = Instant.now().minus(Duration.ofDays(2)).minusSeconds(3600);
        List<EngineRequest> requests =
            List.of(
                agreement.request(ReconciliationMode.FULL, null, Duration.ofHours(1)),
                agreement.request(ReconciliationMode.WINDOW, windowStart, Duration.ofHours(1)));
        for (EngineRequest r : requests) {
          EngineAgreement.Compared compared = agreement.compare(r);
          assertThat(compared.disagreements()).as("clean, %s", r.mode()).isEmpty();
          Observations o = compared.sql();
          assertThat(o.countDifference().count()).as("clean, %s", r.mode()).isZero();
          assertThat(o.aggregates().values())
              .as("clean aggregates, %s", r.mode())
              .allSatisfy(v -> assertThat(v.deviation(ToleranceMode.ABSOLUTE)).isZero());
          assertThat(o.queried().get("amounts_match_raw"))
              .as("amounts_match_raw, clean, %s", r.mode())
              .isEqualTo(io.tidemark.reconcile.engine.Finding.of(0, List.of()));
          assertThat(o.queried().get("head_known"))
              .as("head_known, clean, %s", r.mode())
              .isEqualTo(io.tidemark.reconcile.engine.Finding.of(0, List.of()));
          assertThat(o.queried().get("operations_unmapped"))
              .as("the quarantine, read on Trino, %s", r.mode())
              .isEqualTo(io.tidemark.reconcile.engine.Finding.of(1, List.of("x.parquet#7")));
          assertThat(o.expectedRows()).as("clean, %s", r.mode()).isPositive();
          if (r.mode() == ReconciliationMode.FULL) {
            assertThat(o.expectedRows())
                .as("FULL expects every live order line")
                .isEqualTo(expected.size());
          }
        }

        // Damage: a line dropped (a line beyond the first, so the key's second part matters) and
        // one cent added to an amount, both of keys the last CDC file changed (in the window).
        List<String> recent =
            landed.get(landed.size() - 1).rows().stream()
                .map(OrdersScenario.Order::key)
                .filter(expected::containsKey)
                .distinct()
                .toList();
        String droppedKey =
            recent.stream().filter(k -> !k.endsWith("|1")).findFirst().orElse(recent.get(0));
        String alteredKey = recent.stream().filter(k -> !k.equals(droppedKey)).findFirst().get();
        String[] dropped = droppedKey.split("\\|");
        String[] altered = alteredKey.split("\\|");
        String table = p.catalog().name() + ".curated.orders";
        spark.sql(
            "DELETE FROM "
                + table
                + " WHERE order_id = '"
                + dropped[0]
                + "' AND line_nr = '"
                + dropped[1]
                + "'");
        spark.sql(
            "UPDATE "
                + table
                + " SET amount = amount + 0.01 WHERE order_id = '"
                + altered[0]
                + "' AND line_nr = '"
                + altered[1]
                + "'");

        // The head of the altered line's order deleted: each of that order's lines still in
        // curated breaks head_known.
        spark.sql("DELETE FROM " + heads + " WHERE order_id = '" + altered[0] + "'");
        List<String> orphans =
            expected.keySet().stream()
                .filter(k -> k.startsWith(altered[0] + "|") && !k.equals(droppedKey))
                .sorted()
                .toList();

        for (EngineRequest r :
            List.of(
                agreement.request(ReconciliationMode.FULL, null, Duration.ofHours(1)),
                agreement.request(ReconciliationMode.WINDOW, windowStart, Duration.ofHours(1)))) {
          EngineAgreement.Compared compared = agreement.compare(r);
          assertThat(compared.disagreements()).as("damaged, %s", r.mode()).isEmpty();
          Observations o = compared.sql();
          assertThat(o.missing().sample()).as("missing, %s", r.mode()).containsExactly(droppedKey);
          assertThat(o.mismatched().sample())
              .as("mismatched, %s", r.mode())
              .containsExactly(alteredKey);
          assertThat(o.unexpected().count()).isZero();
          assertThat(o.stale().count()).isZero();
          assertThat(o.duplicates().count()).isZero();
          // aggregate_match's sum of amounts, exact on both engines: raw holds the dropped line's
          // amount that curated lacks, curated the cent raw never had.
          AggregateFinding.Value sum =
              o.aggregates().find("amount", Aggregate.SUM).orElseThrow(() -> new AssertionError(o));
          assertThat(new BigDecimal(sum.raw()).subtract(new BigDecimal(sum.curated())))
              .as("raw sum - curated sum, %s", r.mode())
              .isEqualByComparingTo(
                  expected.get(droppedKey).amount().subtract(new BigDecimal("0.01")));
          // The contract's own rule, written in SQL once, names the altered line on both.
          assertThat(o.queried().get("amounts_match_raw").sample())
              .as("amounts_match_raw, %s", r.mode())
              .containsExactly(alteredKey);
          // The reference, the same on both: the orphaned lines, by their whole key.
          assertThat(o.queried().get("head_known").sample())
              .as("head_known, %s", r.mode())
              .isNotEmpty()
              .containsExactlyElementsOf(orphans);
        }
      }
    } finally {
      spark.stop();
    }
  }

  /**
   * The raw tables as the shared definition declares them: the projected table reads the CDC
   * folders only, partitioned by their date; the {@code _all} table every file, full load too.
   */
  private static void assertRawTables(
      TrinoServer trino, String name, List<OrdersScenario.OrderFile> landed) throws SQLException {
    long all = landed.stream().mapToLong(f -> f.rows().size()).sum();
    long cdc = landed.stream().filter(f -> !f.fullLoad()).mapToLong(f -> f.rows().size()).sum();
    String schema = EngineAgreement.RAW_SCHEMA + ".";
    try (Connection c = trino.connect()) {
      assertThat(count(c, "SELECT count(*) FROM " + schema + name + AthenaRawTables.ALL_SUFFIX))
          .isEqualTo(all);
      assertThat(count(c, "SELECT count(*) FROM " + schema + name)).isEqualTo(cdc);
      OrdersScenario.OrderFile last = landed.get(landed.size() - 1);
      String folder = last.relativePath().substring(0, last.relativePath().lastIndexOf('/'));
      assertThat(
              count(
                  c,
                  "SELECT count(*) FROM "
                      + schema
                      + name
                      + " WHERE "
                      + AthenaRawTables.DATE_KEY
                      + " = '"
                      + folder
                      + "'"))
          .as("projection prunes to one date folder")
          .isEqualTo(last.rows().size());
    }
  }

  private static long count(Connection c, String sql) throws SQLException {
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }
}
