package io.tidemark.reconcile.engine.athena;

import io.tidemark.model.contract.DatasetContract;
import io.tidemark.model.contract.athena.AthenaRawTables;
import io.tidemark.reconcile.engine.EngineNames;
import io.tidemark.reconcile.storage.RawFiles;
import io.tidemark.reconcile.storage.S3RawFiles;
import java.time.Instant;
import java.time.LocalDate;
import java.util.Objects;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.services.athena.AthenaClient;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * The {@code athena} engine: {@link SqlEngine}'s Trino-dialect queries run by Amazon Athena, raw
 * files listed on S3 (Athena's {@code "$path"} is the object's {@code s3://bucket/key}, as the
 * listing names it), bytes priced at Athena's rate.
 */
public final class AthenaEngine {
  private static final Logger LOG = LoggerFactory.getLogger(AthenaEngine.class);

  private AthenaEngine() {}

  /**
   * The engine.
   *
   * @param settings how to reach Athena
   * @param athena the client every reconciliation's runner shares (built without SDK retries)
   * @param s3 lists raw files on S3
   * @param usdPerTb Athena's price per TB scanned
   */
  public static SqlEngine create(
      AthenaSettings settings,
      Supplier<AthenaClient> athena,
      Supplier<S3Client> s3,
      double usdPerTb) {
    Objects.requireNonNull(settings, "settings is null");
    return new SqlEngine(
        EngineNames.ATHENA,
        (DatasetContract c) ->
            new SqlEngine.Tables(AthenaRawTables.readTable(c).name(), c.curatedTable()),
        () -> new AthenaQueryRunner(settings, athena.get()),
        (DatasetContract c, LocalDate fromDate, Instant arrivedSince) -> {
          if (!c.raw().location().startsWith("s3://")) {
            return RawFiles.list(c, fromDate, arrivedSince);
          }
          S3RawFiles.S3Listing listing = S3RawFiles.list(s3.get(), c, fromDate, arrivedSince);
          LOG.debug(
              "Listed {} raw files of {} in {} list calls",
              listing.listing().files().size(),
              c.raw().location(),
              listing.listCalls());
          return listing.listing();
        },
        path -> path,
        ScanPricing.athena(usdPerTb),
        settings.maxInFlight());
  }
}
