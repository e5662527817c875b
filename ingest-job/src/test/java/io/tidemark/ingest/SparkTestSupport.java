package io.tidemark.ingest;

import io.tidemark.ingest.checkpoint.CheckpointCodec;
import io.tidemark.ingest.commit.RunBranches;
import io.tidemark.ingest.config.IngestSettings;
import io.tidemark.model.config.CatalogSpec;
import io.tidemark.model.contract.DatasetContract;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.spark.Spark3Util;
import org.apache.iceberg.util.SnapshotUtil;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.BeforeAll;

/**
 * The module's one local[2] session ({@link SharedSpark}); each test gets its own warehouse and
 * catalog name (a session keeps a catalog once loaded, so names are never reused).
 */
abstract class SparkTestSupport {
  private static final AtomicInteger CATALOGS = new AtomicInteger();

  /** A fixed "now" after every fixture's change markers. */
  static final Instant NOW = Instant.parse("2024-03-20T00:00:00Z");

  static SparkSession spark;

  @BeforeAll
  static void startSpark() {
    spark = SharedSpark.session();
  }

  /** Settings for the customers dataset under {@code dir}: raw, warehouse and state inside it. */
  static IngestSettings settings(Path dir) {
    return settings(
        dir, Contracts.customers(dir.resolve("raw/customers").toString(), "curated.customers"));
  }

  /** Settings for {@code spec} (its raw location inside {@code dir}), warehouse and state in it. */
  static IngestSettings settings(Path dir, DatasetContract spec) {
    CatalogSpec local = CatalogSpec.localJdbc(dir.resolve("warehouse").toString());
    CatalogSpec catalog = new CatalogSpec("t" + CATALOGS.incrementAndGet(), local.properties());
    return IngestSettings.of(spec, catalog, dir.resolve("state").toString())
        .withClock(Clock.fixed(NOW, ZoneOffset.UTC));
  }

  /** The curated table as key -> [customer_name, email, updated_at as Instant]. */
  static Map<String, List<Object>> curated(IngestSettings s) {
    Map<String, List<Object>> out = new HashMap<>();
    for (Row r :
        spark
            .table(s.curatedSparkName())
            .select("customer_id", "customer_name", "email", "updated_at")
            .collectAsList()) {
      List<Object> previous =
          out.put(
              r.getString(0),
              java.util.Arrays.asList(
                  r.getString(1), r.getString(2), r.getTimestamp(3).toInstant()));
      if (previous != null) {
        throw new AssertionError("key " + r.getString(0) + " is twice in the curated table");
      }
    }
    return out;
  }

  /** How many snapshots in main's ancestry (the published history) carry the batch. */
  static long commitsOnMain(IngestSettings s, String batchId) throws Exception {
    Table t = Spark3Util.loadIcebergTable(spark, s.curatedSparkName());
    if (t.currentSnapshot() == null) {
      return 0;
    }
    long n = 0;
    for (Snapshot snap : SnapshotUtil.ancestorsOf(t.currentSnapshot().snapshotId(), t::snapshot)) {
      if (batchId.equals(snap.summary().get(CheckpointCodec.BATCH_ID))) {
        n++;
      }
    }
    return n;
  }

  /** How many snapshots anywhere in the table's metadata (main or not) carry the batch. */
  static long snapshotsCarrying(IngestSettings s, String batchId) throws Exception {
    Table t = Spark3Util.loadIcebergTable(spark, s.curatedSparkName());
    long n = 0;
    for (Snapshot snap : t.snapshots()) {
      if (batchId.equals(snap.summary().get(CheckpointCodec.BATCH_ID))) {
        n++;
      }
    }
    return n;
  }

  /** The run branches the curated table holds. */
  static List<String> runBranches(IngestSettings s) throws Exception {
    Table t = Spark3Util.loadIcebergTable(spark, s.curatedSparkName());
    return t.refs().keySet().stream().filter(r -> r.startsWith(RunBranches.PREFIX)).toList();
  }

  static long count(String table) {
    return spark.table(table).count();
  }
}
