package io.tidemark.e2e;

import io.tidemark.ingest.config.IngestSettings;
import io.tidemark.ingest.config.IngestSpark;
import io.tidemark.ingest.kernel.FailurePoints;
import io.tidemark.ingest.run.IngestJob;
import io.tidemark.ingest.run.IngestOutcome;
import io.tidemark.model.config.CatalogSpec;
import io.tidemark.model.contract.ContractFile;
import io.tidemark.model.contract.DatasetContract;
import io.tidemark.model.contract.IngestCommit;
import io.tidemark.model.testing.raw.Delivery;
import io.tidemark.model.testing.raw.ExpectedState;
import io.tidemark.model.testing.raw.RawFile;
import io.tidemark.model.testing.raw.RawFileWriter;
import io.tidemark.reconcile.service.Reconciler;
import io.tidemark.reconcile.storage.IcebergTables;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * The whole pipeline on its embedded default, in one folder: its contract file ({@code
 * tidemark.yaml}, the demo's committed example, see {@link Contracts}), raw Parquet files, a local
 * Iceberg warehouse (JDBC catalog on SQLite), run and reconciliation reports under the state root.
 * The ingest job runs on a caller-owned local Spark session; the reconciler on DuckDB. Both read
 * the dataset from the contract file, as a deployment does.
 */
public final class Pipeline implements AutoCloseable {
  public static final String CURATED_TABLE = "curated.customers";

  /** The demo's dataset, as its contract names it. */
  public static final String DATASET = "customers";

  private static final java.time.format.DateTimeFormatter SPARK_TIMESTAMP =
      java.time.format.DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSSSSS")
          .withZone(java.time.ZoneOffset.UTC);

  private final Path root;
  private final Path rawRoot;
  private final Path warehouse;
  private final Path stateRoot;
  private final Path contractFile;
  private final ContractFile contracts;
  private final DatasetContract contract;
  private final CatalogSpec catalog;
  private final SparkSession spark;
  private final List<RawFile> landed = new ArrayList<>();
  private final RawFileWriter writer = new RawFileWriter();
  private Reconciler reconciler;

  /** A pipeline of the demo's contract alone. */
  public Pipeline(Path root, SparkSession spark) {
    this(root, spark, new String[0]);
  }

  /**
   * A pipeline whose contract declares more datasets beside the demo's (blocks as under {@code
   * datasets:}); they share its catalog, state root and reconciler.
   */
  public Pipeline(Path root, SparkSession spark, String... moreDatasets) {
    this.root = root.toAbsolutePath();
    this.rawRoot = this.root.resolve("raw");
    this.warehouse = this.root.resolve("warehouse");
    this.stateRoot = this.root.resolve("state");
    this.contractFile = Contracts.write(this.root, moreDatasets);
    this.contracts = Contracts.load(contractFile);
    this.contract = contracts.dataset(DATASET);
    this.catalog =
        contracts
            .catalog()
            .orElseThrow(() -> new IllegalStateException(contractFile + " declares no catalog"));
    this.spark = spark;
    try {
      Files.createDirectories(warehouse);
      Files.createDirectories(stateRoot);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  /** A local Spark session (loopback, no UI) that can reach this pipeline's catalog. */
  public static SparkSession localSpark(Path root) {
    return IngestSpark.local(
            CatalogSpec.localJdbc(root.toAbsolutePath().resolve("warehouse").toString()), 2)
        .config("spark.sql.adaptive.enabled", "true")
        .getOrCreate();
  }

  /** Lands a delivery's files in the raw layer. */
  public List<Path> land(Delivery delivery) {
    List<Path> paths = new ArrayList<>();
    for (RawFile f : delivery.files()) {
      paths.add(writer.write(rawRoot.resolve("customers"), f));
      landed.add(f);
    }
    return paths;
  }

  /** Every raw file landed so far. */
  public List<RawFile> landed() {
    return List.copyOf(landed);
  }

  public IngestSettings ingestSettings() {
    return ingestSettings(DATASET);
  }

  /** The job's settings for one dataset of the contract, as {@code --contract --dataset} gives. */
  public IngestSettings ingestSettings(String dataset) {
    return IngestSettings.of(contracts.dataset(dataset), catalog, stateRoot.toString());
  }

  /** One ingest run, with a failure hook (a simulated crash) or {@link FailurePoints#none()}. */
  public IngestOutcome ingest(FailurePoints failurePoints) {
    return new IngestJob(spark, ingestSettings(), failurePoints).run();
  }

  /** The curated table, read through Spark, by key. Fails on a key seen twice. */
  public Map<String, ExpectedState.Row> curated() {
    Map<String, ExpectedState.Row> rows = new TreeMap<>();
    for (Row r :
        spark
            .sql("SELECT customer_id, customer_name, email, updated_at FROM " + sparkTable())
            .collectAsList()) {
      ExpectedState.Row row =
          new ExpectedState.Row(
              r.getString(0),
              r.getString(1),
              r.getString(2),
              ((java.sql.Timestamp) r.get(3)).toInstant());
      if (rows.put(row.customerId(), row) != null) {
        throw new AssertionError("key " + row.customerId() + " is in the curated table twice");
      }
    }
    return rows;
  }

  /** Rows in the curated table, duplicates included. */
  public long curatedCount() {
    return spark.table(sparkTable()).count();
  }

  /** The rows the quarantine table holds. */
  public long quarantinedCount() {
    return spark.table(catalog.name() + "." + contract.quarantineTable()).count();
  }

  /** Commits on the curated table's main history, whatever wrote them. */
  public long snapshotCount() {
    return spark
        .sql("SELECT count(*) FROM " + sparkTable() + ".history WHERE is_current_ancestor")
        .first()
        .getLong(0);
  }

  /**
   * Commits on the curated table's main history that carry a batch (its data and checkpoint). The
   * job writes through a short-lived branch that main is fast-forwarded to, so a crashed run's
   * commits never reach main; a batch with new keys adds their rows in a commit of its own just
   * before, which carries no batch.
   */
  public long batchCommitCount() {
    String t = sparkTable();
    return spark
        .sql(
            "SELECT count(*) FROM "
                + t
                + ".history h JOIN "
                + t
                + ".snapshots s ON h.snapshot_id = s.snapshot_id"
                + " WHERE h.is_current_ancestor AND s.summary['"
                + IngestCommit.BATCH_ID_PROPERTY
                + "'] IS NOT NULL")
        .first()
        .getLong(0);
  }

  public String sparkTable() {
    return catalog.name() + "." + CURATED_TABLE;
  }

  /**
   * The reconciler for this pipeline: one deployment serving every dataset of the contract, with
   * the rules the contract gives them, alarms from alerts/.
   */
  public Reconciler reconciler() {
    if (reconciler == null) {
      Reconciler.Builder b = Reconciler.builder(stateRoot);
      for (DatasetContract d : contracts.datasets().values()) {
        b.dataset(d, catalog);
      }
      reconciler = b.build();
      reconciler.recover();
    }
    return reconciler;
  }

  /**
   * Damages the curated table out of band, as a careless hand or a buggy job would: drops rows,
   * alters a value, and brings back a key that raw deleted.
   */
  public void damage(List<String> dropKeys, String alterKey, ExpectedState.Row resurrect) {
    spark.sql(
        "DELETE FROM "
            + sparkTable()
            + " WHERE customer_id IN ('"
            + String.join("','", dropKeys)
            + "')");
    spark.sql(
        "UPDATE "
            + sparkTable()
            + " SET email = 'tampered@example.com' WHERE customer_id = '"
            + alterKey
            + "'");
    spark.sql(
        "INSERT INTO "
            + sparkTable()
            + " (customer_id, customer_name, email, updated_at) VALUES ('"
            + resurrect.customerId()
            + "', '"
            + resurrect.customerName().replace("'", "''")
            + "', '"
            + resurrect.email()
            + "', TIMESTAMP '"
            + SPARK_TIMESTAMP.format(resurrect.updatedAt())
            + "')");
  }

  public Path root() {
    return root;
  }

  public Path rawRoot() {
    return rawRoot;
  }

  public Path warehouse() {
    return warehouse;
  }

  public Path stateRoot() {
    return stateRoot;
  }

  /** The demo dataset's contract. */
  public DatasetContract contract() {
    return contract;
  }

  /** A dataset's contract, by name. */
  public DatasetContract contract(String dataset) {
    return contracts.dataset(dataset);
  }

  /** The contract file both halves read. */
  public Path contractFile() {
    return contractFile;
  }

  public CatalogSpec catalog() {
    return catalog;
  }

  /** The oldest date folder a delivery landed in. */
  public java.time.LocalDate oldestPartition() {
    return landed.stream()
        .map(RawFile::partition)
        .min(java.time.LocalDate::compareTo)
        .orElseThrow(() -> new IllegalStateException("nothing landed yet"));
  }

  /** The curated table's columns as contract type names, as the reconciler reads them. */
  public Map<String, String> curatedTypes() {
    org.apache.iceberg.catalog.Catalog c = IcebergTables.catalog(catalog);
    try {
      return IcebergTables.contractTypes(IcebergTables.load(c, CURATED_TABLE));
    } finally {
      IcebergTables.close(c);
    }
  }

  public Instant now() {
    return Instant.now();
  }

  @Override
  public void close() {
    writer.close();
  }
}
