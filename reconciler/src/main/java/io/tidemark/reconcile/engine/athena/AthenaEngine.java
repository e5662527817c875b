package io.tidemark.reconcile.engine.athena;

import io.tidemark.model.config.DatasetSpec;
import io.tidemark.model.config.RawSource;
import io.tidemark.reconcile.engine.EngineNames;
import io.tidemark.reconcile.storage.RawFiles;
import io.tidemark.reconcile.storage.S3RawFiles;
import java.time.Instant;
import java.time.LocalDate;
import java.util.Map;
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

  /** The raw table of a dataset when none is configured: {@code <dataset>_raw}. */
  public static String defaultRawTable(String dataset) {
    return dataset + "_raw";
  }

  /**
   * The engine.
   *
   * @param settings how to reach Athena
   * @param athena the client every reconciliation's runner shares (built without SDK retries)
   * @param s3 lists raw files on S3
   * @param rawTables each dataset's raw table, by dataset name; absent: {@link #defaultRawTable}
   * @param usdPerTb Athena's price per TB scanned
   */
  public static SqlEngine create(
      AthenaSettings settings,
      Supplier<AthenaClient> athena,
      Supplier<S3Client> s3,
      Map<String, String> rawTables,
      double usdPerTb) {
    Objects.requireNonNull(settings, "settings is null");
    Map<String, String> tables = Map.copyOf(rawTables);
    return new SqlEngine(
        EngineNames.ATHENA,
        (DatasetSpec spec) ->
            new SqlEngine.Tables(
                tables.getOrDefault(spec.name(), defaultRawTable(spec.name())),
                spec.curatedTable()),
        () -> new AthenaQueryRunner(settings, athena.get()),
        (RawSource raw, LocalDate fromDate, Instant arrivedSince) -> {
          if (!raw.location().startsWith("s3://")) {
            return RawFiles.list(raw, fromDate, arrivedSince);
          }
          S3RawFiles.S3Listing listing = S3RawFiles.list(s3.get(), raw, fromDate, arrivedSince);
          LOG.debug(
              "Listed {} raw files of {} in {} list calls",
              listing.listing().files().size(),
              raw.location(),
              listing.listCalls());
          return listing.listing();
        },
        path -> path,
        ScanPricing.athena(usdPerTb),
        settings.maxInFlight());
  }
}
