package io.tidemark.e2e.trino;

import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.model.config.RuleSpec;
import io.tidemark.model.report.ReconciliationMode;
import io.tidemark.reconcile.engine.EngineRequest;
import io.tidemark.reconcile.engine.Freshness;
import io.tidemark.reconcile.engine.athena.JdbcQueryRunner;
import io.tidemark.reconcile.engine.athena.RawTable;
import io.tidemark.reconcile.engine.athena.ScanPricing;
import io.tidemark.reconcile.engine.athena.SqlEngine;
import io.tidemark.reconcile.engine.duckdb.DuckDbEngine;
import io.tidemark.reconcile.fixtures.SequenceScenario;
import io.tidemark.reconcile.storage.IcebergTables;
import io.tidemark.reconcile.storage.RawFiles;
import io.trino.jdbc.TrinoResultSet;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Map;
import org.apache.iceberg.catalog.Catalog;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * Freshness for a sequence change marker, measured by file arrival, is the same with the Athena
 * engine's SQL on a real Trino as with the embedded DuckDB engine, in FULL and WINDOW mode, for a
 * table that is caught up and for one a later file is waiting for.
 */
@Tag("trino")
class TestSequenceFreshnessOnTrino {
  private static final String RAW_TABLE = "raw.tidemark.accounts_raw";

  @TempDir(cleanup = CleanupMode.ON_SUCCESS)
  Path work;

  @Test
  void bothEnginesMeasureASequenceDatasetsFreshnessByArrival() throws Exception {
    Instant now = Instant.now().truncatedTo(ChronoUnit.SECONDS);
    SequenceScenario s = SequenceScenario.caughtUp(work, now);
    Map<String, String> curatedTypes;
    Catalog catalog = IcebergTables.catalog(s.catalog());
    try {
      curatedTypes =
          IcebergTables.contractTypes(IcebergTables.load(catalog, SequenceScenario.TABLE));
    } finally {
      IcebergTables.close(catalog);
    }
    try (TrinoServer trino = TrinoServer.shared()) {
      trino.createRawCatalog("raw", work.resolve("trino-metastore"));
      trino.createIcebergCatalog("lake", s.warehouse);
      trino.execute("CREATE SCHEMA raw.tidemark");
      trino.execute(
          RawTable.trinoDdl(
              s.spec(),
              curatedTypes,
              RAW_TABLE,
              TrinoServer.localUri(s.raw),
              now.atZone(java.time.ZoneOffset.UTC).toLocalDate().minusDays(30)));
      SqlEngine onTrino =
          new SqlEngine(
              "trino",
              spec -> new SqlEngine.Tables(RAW_TABLE, "lake." + spec.curatedTable()),
              () ->
                  new JdbcQueryRunner(
                      trino::connect,
                      rs -> rs.unwrap(TrinoResultSet.class).getStats().getPhysicalInputBytes()),
              RawFiles::list,
              path -> TrinoServer.localUri(Path.of(path)),
              ScanPricing.free(),
              2);
      DuckDbEngine duckDb = new DuckDbEngine();

      for (boolean pending : new boolean[] {false, true}) {
        if (pending) {
          s.landPending();
        }
        for (ReconciliationMode mode : ReconciliationMode.values()) {
          EngineRequest request =
              new EngineRequest(
                  s.contract(RuleSpec.defaults()),
                  s.catalog(),
                  mode,
                  mode == ReconciliationMode.WINDOW ? now.minus(Duration.ofHours(1)) : null,
                  now,
                  now,
                  20,
                  Duration.ofHours(1),
                  null);
          Freshness embedded = duckDb.observe(request).freshness();
          Freshness athenaSql = onTrino.observe(request).freshness();
          String when = mode + (pending ? " with a file waiting" : " caught up");

          assertThat(embedded.error()).as(when).isNull();
          assertThat(athenaSql.error()).as(when).isNull();
          assertThat(embedded.lagBehindNow()).as(when).isEqualTo(pending ? 7200.0 : 0.0);
          assertThat(athenaSql.lagBehindNow()).as(when).isEqualTo(embedded.lagBehindNow());
          assertThat(athenaSql.newestCurated()).as(when).isEqualTo(3.0);
          assertThat(athenaSql.newestRaw()).as(when).isEqualTo(embedded.newestRaw());
          assertThat(athenaSql.pending().sample())
              .as(when)
              .isEqualTo(embedded.pending().sample())
              .isEqualTo(pending ? java.util.List.of("a1") : java.util.List.of());
        }
      }
    }
  }
}
