package io.tidemark.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.ingest.config.IngestSettings;
import io.tidemark.ingest.config.OperatorOptions;
import io.tidemark.ingest.run.IngestJob;
import io.tidemark.ingest.run.IngestOutcome;
import io.tidemark.model.config.CatalogSpec;
import io.tidemark.model.contract.DatasetContract;
import io.tidemark.model.contract.layout.DateFolders;
import io.tidemark.model.contract.layout.Layout;
import io.tidemark.model.report.IngestMode;
import io.tidemark.model.report.IngestStatus;
import io.tidemark.model.testing.raw.OrdersScenario;
import io.tidemark.model.testing.raw.RawColumn;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.sql.Date;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.iceberg.spark.Spark3Util;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.types.DataTypes;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An orders table exported by AWS DMS, ingested from its contract: a full load ({@code
 * LOAD00000001.parquet}, no {@code Op} column) then CDC files named by time with {@code Op} I, U or
 * D, flat or in {@code YYYY/MM/DD} folders; a composite key (order_id, line_nr), an exact decimal,
 * a date, a boolean and a sequence change marker; curated partitioned by month(order_date).
 */
@Tag("spark")
class TestOrdersFromDms extends SparkTestSupport {
  private static final List<RawColumn> FULL_LOAD = OrdersScenario.FULL_LOAD;

  /** DMS puts Op first; this export also carries a column the contract does not declare. */
  private static final List<RawColumn> CDC =
      RawColumn.plus(OrdersScenario.CDC, RawColumn.of("commit_ts", "VARCHAR"));

  @TempDir Path dir;

  private IngestSettings settings(Layout layout) {
    CatalogSpec local = CatalogSpec.localJdbc(dir.resolve("warehouse").toString());
    CatalogSpec catalog =
        new CatalogSpec("o" + Math.abs(dir.hashCode() % 100000), local.properties());
    DatasetContract orders =
        Contracts.orders(dir.resolve("raw/orders").toString(), layout, "curated.orders");
    return IngestSettings.of(orders, catalog, dir.resolve("state").toString())
        .withClock(Clock.fixed(NOW, ZoneOffset.UTC))
        .withMaxInvalidRatio(0.5);
  }

  private static List<Object> load(
      String id, int line, String amount, String date, boolean paid, long s) {
    return Arrays.asList(id, line, new BigDecimal(amount), Date.valueOf(date), paid, s);
  }

  private static List<Object> cdc(
      String op, String id, int line, String amount, String date, boolean paid, long s) {
    return Arrays.asList(
        op, id, line, new BigDecimal(amount), Date.valueOf(date), paid, s, "2024-03-01T12:00");
  }

  /** The full load, arrived on the day before the CDC starts. */
  private void fullLoad() throws Exception {
    Path f =
        RawFixtures.write(
            dir.resolve("raw/orders/LOAD00000001.parquet"),
            FULL_LOAD,
            List.of(
                load("o1", 1, "10.10", "2024-01-05", false, 1),
                load("o1", 2, "5.55", "2024-01-05", true, 2),
                load("o2", 1, "99999.99", "2024-02-10", false, 3)));
    Files.setLastModifiedTime(f, FileTime.from(Instant.parse("2024-02-29T23:00:00Z")));
  }

  private List<List<Object>> changes() {
    return List.of(
        cdc("U", "o1", 1, "12.34", "2024-01-05", true, 10),
        cdc("D", "o1", 2, "5.55", "2024-01-05", true, 11),
        cdc("I", "o3", 1, "0.01", "2024-03-01", true, 12),
        cdc("X", "o4", 1, "1.00", "2024-03-01", false, 13));
  }

  /** The curated rows as "order_id/line_nr amount order_date paid change_seq", by key. */
  private List<String> orders(IngestSettings s) {
    List<String> out = new ArrayList<>();
    for (Row r :
        spark
            .table(s.curatedSparkName())
            .orderBy("order_id", "line_nr")
            .select("order_id", "line_nr", "amount", "order_date", "paid", "change_seq")
            .collectAsList()) {
      BigDecimal amount = r.getDecimal(2);
      out.add(
          r.get(0)
              + "/"
              + r.get(1)
              + " "
              + amount.toPlainString()
              + " "
              + r.getDate(3)
              + " "
              + r.getBoolean(4)
              + " "
              + r.getLong(5));
    }
    return out;
  }

  @Test
  void aFullLoadThenCdcFilesInTheTableFolderMergeByCompositeKeyWithExactTypes() throws Exception {
    IngestSettings s = settings(new Layout.Dms(null));
    fullLoad();
    Files.writeString(dir.resolve("raw/orders/notes.txt"), "not data");
    IngestOutcome first = new IngestJob(spark, s).run();
    assertThat(first.report().status()).isEqualTo(IngestStatus.SUCCEEDED);
    assertThat(first.report().strayEntries())
        .containsExactly("notes.txt (not a .parquet data file)");
    assertThat(orders(s))
        .as("the full load has no Op column: every row upserts")
        .containsExactly(
            "o1/1 10.10 2024-01-05 false 1",
            "o1/2 5.55 2024-01-05 true 2",
            "o2/1 99999.99 2024-02-10 false 3");
    assertThat(spark.table(s.curatedSparkName()).schema().apply("amount").dataType())
        .isEqualTo(DataTypes.createDecimalType(12, 2));
    assertThat(
            Spark3Util.loadIcebergTable(spark, s.curatedSparkName()).spec().fields().stream()
                .map(f -> f.transform().toString())
                .toList())
        .containsExactly("month");

    RawFixtures.write(dir.resolve("raw/orders/20240301-120000000.parquet"), CDC, changes());
    IngestOutcome second = new IngestJob(spark, s).run();
    assertThat(second.report().status()).isEqualTo(IngestStatus.SUCCEEDED);
    assertThat(orders(s))
        .as("U updates o1/1, D deletes o1/2, I inserts o3/1; X is no operation")
        .containsExactly(
            "o1/1 12.34 2024-01-05 true 10",
            "o2/1 99999.99 2024-02-10 false 3",
            "o3/1 0.01 2024-03-01 true 12");
    assertThat(second.report().undeclaredColumns()).containsExactly("commit_ts");
    List<Row> quarantined =
        spark.table(s.quarantineSparkName()).select("reason", "detail").collectAsList();
    assertThat(quarantined).hasSize(1);
    assertThat(quarantined.get(0).getString(0)).isEqualTo("UNKNOWN_OPERATION");
    assertThat(quarantined.get(0).getString(1)).contains("'X'");
    assertThat(spark.table(s.tombstoneSparkName()).select("order_id", "line_nr").collectAsList())
        .extracting(Row::toString)
        .containsExactly("[o1,2]");

    IngestOutcome retried = new IngestJob(spark, s).run();
    assertThat(retried.report().status()).isEqualTo(IngestStatus.NOTHING_TO_DO);
    assertThat(orders(s)).hasSize(3);
    assertThat(count(s.quarantineSparkName())).isEqualTo(1);

    // The contract missed a value; declared, the quarantined row replays by its composite key.
    DatasetContract withX =
        s.dataset().toBuilder().operation("Op", List.of("I", "U", "X"), List.of("D")).build();
    IngestSettings replay =
        IngestSettings.of(withX, s.catalog(), s.stateRoot())
            .withClock(Clock.fixed(NOW, ZoneOffset.UTC))
            .withOperator(
                IngestMode.REPLAY_QUARANTINE,
                OperatorOptions.replay("UNKNOWN_OPERATION", null, null, false));
    IngestOutcome replayed = new IngestJob(spark, replay).run();
    assertThat(replayed.report().status()).isEqualTo(IngestStatus.SUCCEEDED);
    assertThat(orders(s))
        .containsExactly(
            "o1/1 12.34 2024-01-05 true 10",
            "o2/1 99999.99 2024-02-10 false 3",
            "o3/1 0.01 2024-03-01 true 12",
            "o4/1 1.00 2024-03-01 false 13");
  }

  @Test
  void cdcFilesInDateFoldersAndAStrayFileAreNamed() throws Exception {
    IngestSettings s = settings(new Layout.Dms(new DateFolders("YYYY/MM/DD")));
    fullLoad();
    RawFixtures.write(
        dir.resolve("raw/orders/2024/03/01/20240301-120000000.parquet"), CDC, changes());
    RawFixtures.write(
        dir.resolve("raw/orders/2024/03/01/10/late.parquet"),
        CDC,
        List.of(cdc("U", "o2", 1, "1.00", "2024-02-10", true, 20)));
    IngestOutcome run = new IngestJob(spark, s).run();
    assertThat(run.report().status()).isEqualTo(IngestStatus.SUCCEEDED);
    assertThat(orders(s))
        .containsExactly(
            "o1/1 12.34 2024-01-05 true 10",
            "o2/1 99999.99 2024-02-10 false 3",
            "o3/1 0.01 2024-03-01 true 12");
    assertThat(run.report().strayEntries())
        .containsExactly("2024/03/01/10 (a folder inside the date folders 2024/03/01)");
    assertThat(new IngestJob(spark, s).run().report().status())
        .isEqualTo(IngestStatus.NOTHING_TO_DO);
  }
}
