package io.tidemark.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.model.testing.MotoServer;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Tags;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.glue.GlueClient;

/**
 * What moto's Glue does with the table version Iceberg's Glue commits rely on; the reason the job
 * takes a run lease on S3 (see {@link TestStateOnS3}). Moto only: it is moto's behaviour under
 * test.
 */
@Tags({@Tag("aws"), @Tag("spark")})
class TestGlueVersionIdOnMoto {
  /**
   * What the Glue catalog alone guarantees. Iceberg's Glue commit sends the table's {@code
   * VersionId} with UpdateTable, which AWS Glue turns into a compare-and-swap; moto's Glue accepts
   * a stale one, so the catalog's atomicity cannot be shown here, and the lease above is the
   * exclusion these tests prove.
   */
  @Test
  void motoGlueAcceptsAStaleVersionIdSoTheCatalogAloneIsNotProvenHere() {
    try (MotoServer moto = MotoServer.start();
        GlueClient glue = moto.configure(GlueClient.builder()).build()) {
      glue.createDatabase(b -> b.databaseInput(d -> d.name("versions")));
      glue.createTable(
          b ->
              b.databaseName("versions").tableInput(t -> t.name("t").parameters(Map.of("v", "0"))));
      String v1 = glue.getTable(b -> b.databaseName("versions").name("t")).table().versionId();
      glue.updateTable(
          b ->
              b.databaseName("versions")
                  .versionId(v1)
                  .tableInput(t -> t.name("t").parameters(Map.of("v", "1"))));
      // A second writer still holding v1: AWS Glue answers ConcurrentModificationException.
      glue.updateTable(
          b ->
              b.databaseName("versions")
                  .versionId(v1)
                  .tableInput(t -> t.name("t").parameters(Map.of("v", "2"))));
      assertThat(glue.getTable(b -> b.databaseName("versions").name("t")).table().parameters())
          .containsEntry("v", "2");
    }
  }
}
