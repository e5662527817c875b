package io.tidemark.reconcile.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tidemark.model.config.CatalogSpec;
import io.tidemark.model.contract.DatasetContract;
import io.tidemark.model.testing.AwsEmulator;
import io.tidemark.model.testing.AwsService;
import io.tidemark.model.testing.AwsSuite;
import io.tidemark.model.testing.AwsTest;
import io.tidemark.reconcile.fixtures.S3Clients;
import io.tidemark.reconcile.kernel.EngineException;
import java.util.HashMap;
import java.util.Map;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * The curated table registered in the Glue Data Catalog, as on AWS: the reconciler builds Iceberg's
 * Glue catalog from the dataset's catalog properties ({@code type=glue}) and reads the table's
 * contract types from it, which the Athena engine's SQL and the raw-table DDL are typed from. Glue
 * and the table's metadata files on S3 are an emulator's: moto_server's, and LocalStack's where
 * Docker exists and its edition serves Glue.
 */
@AwsSuite(services = {AwsService.S3, AwsService.GLUE})
@Tag("aws")
class TestGlueCatalogOnMoto {
  private static final String BUCKET = "tidemark-warehouse";

  @BeforeAll
  static void credentials() {
    // Iceberg's AWS clients take the default credential chain; the emulators take any keys.
    System.setProperty("aws.accessKeyId", "testing");
    System.setProperty("aws.secretAccessKey", "testing");
  }

  @AfterAll
  static void forgetCredentials() {
    System.clearProperty("aws.accessKeyId");
    System.clearProperty("aws.secretAccessKey");
  }

  private AwsEmulator aws;

  @BeforeEach
  void emulator(AwsEmulator aws) {
    this.aws = aws;
  }

  private CatalogSpec glue() {
    Map<String, String> p = new HashMap<>();
    p.put("type", "glue");
    p.put("warehouse", "s3://" + BUCKET + "/warehouse");
    p.put("client.region", aws.region());
    p.put("glue.endpoint", aws.endpoint().toString());
    p.put("s3.endpoint", aws.endpoint().toString());
    p.put("s3.path-style-access", "true");
    return new CatalogSpec("tidemark", p);
  }

  @AwsTest
  void theCuratedTableIsReadFromGlueWithItsContractTypes() {
    try (S3Client s3 = S3Clients.on(aws)) {
      s3.createBucket(r -> r.bucket(BUCKET));
    }
    // What the ingest job does on AWS: the curated table created through the Glue catalog.
    Catalog writer = IcebergTables.catalog(glue());
    try {
      ((SupportsNamespaces) writer).createNamespace(Namespace.of("curated"));
      writer.createTable(
          TableIdentifier.of("curated", "customers"),
          new Schema(
              Types.NestedField.required(1, "customer_id", Types.StringType.get()),
              Types.NestedField.optional(2, "updated_at", Types.TimestampType.withZone()),
              Types.NestedField.optional(3, "customer_name", Types.StringType.get()),
              Types.NestedField.optional(4, "email", Types.StringType.get()),
              Types.NestedField.optional(5, "balance", Types.DecimalType.of(12, 2))));
    } finally {
      IcebergTables.close(writer);
    }

    Catalog reader = IcebergTables.catalog(glue());
    try {
      Table table = IcebergTables.load(reader, "curated.customers");
      assertThat(table.location()).startsWith("s3://" + BUCKET + "/warehouse/");
      assertThat(IcebergTables.contractTypes(table))
          .containsExactlyInAnyOrderEntriesOf(
              Map.of(
                  "customer_id", "string",
                  "updated_at", "timestamp",
                  "customer_name", "string",
                  "email", "string",
                  "balance", "decimal(12,2)"));
      assertThatThrownBy(() -> IcebergTables.load(reader, "curated.orders"))
          .isInstanceOf(EngineException.class)
          .hasMessageContaining("curated.orders");
    } finally {
      IcebergTables.close(reader);
    }
  }

  /**
   * The verified tag on a Glue table: moved by a compare-and-swap of the table's metadata location
   * in Glue, never back by a reconciler with a stale view, and written as a {@code *.metadata.json}
   * object, the only kind the stack lets the reconciler write in the warehouse.
   */
  private static final String TAG = DatasetContract.Reconcile.VERIFIED_TAG_DEFAULT;

  @AwsTest
  void theVerifiedTagMovesForwardOnlyOnGlue() {
    try (S3Client s3 = S3Clients.on(aws)) {
      s3.createBucket(r -> r.bucket(BUCKET));
    }
    Catalog writer = IcebergTables.catalog(glue());
    long older;
    long newer;
    try {
      ((SupportsNamespaces) writer).createNamespace(Namespace.of("curated"));
      Table t =
          writer.createTable(
              TableIdentifier.of("curated", "tagged"),
              new Schema(Types.NestedField.required(1, "id", Types.StringType.get())));
      t.newAppend().commit();
      older = t.currentSnapshot().snapshotId();
      t.newAppend().commit();
      newer = t.currentSnapshot().snapshotId();
    } finally {
      IcebergTables.close(writer);
    }

    Catalog one = IcebergTables.catalog(glue());
    Catalog other = IcebergTables.catalog(glue());
    try {
      Table first = IcebergTables.load(one, "curated.tagged");
      Table late = IcebergTables.load(other, "curated.tagged");
      assertThat(IcebergTables.tag(first, TAG, newer)).isTrue();
      assertThat(IcebergTables.tag(late, TAG, older)).isFalse();

      Table fresh = IcebergTables.load(one, "curated.tagged");
      assertThat(IcebergTables.tagged(fresh, TAG)).contains(newer);
      String written =
          ((org.apache.iceberg.HasTableOperations) fresh)
              .operations()
              .current()
              .metadataFileLocation();
      assertThat(written)
          .startsWith("s3://" + BUCKET + "/warehouse/curated.db/tagged/metadata/")
          .endsWith(".metadata.json");
    } finally {
      IcebergTables.close(one);
      IcebergTables.close(other);
    }
  }
}
