package io.tidemark.ingest.lease;

import io.tidemark.ingest.config.IngestSettings;
import io.tidemark.ingest.s3.S3State;
import java.util.Optional;

/**
 * Where a table's run lease lives and whether a run takes one.
 *
 * <p>A run takes a lease when its state root is on S3 (the AWS path, where the curated table is
 * usually in the Glue Data Catalog) and {@code --lease-ttl} is not 0. Iceberg's Glue commit does
 * pass the table's {@code VersionId}, which makes it a compare-and-swap on AWS Glue; the lease
 * keeps a second run from doing a whole batch's work only to lose that race, and it is the
 * exclusion that holds on any Glue implementation. Local state roots use the embedded JDBC catalog,
 * whose commit is an atomic compare-and-swap in its database: no lease there.
 */
public final class RunLeases {
  /** The folder under the state root that holds lease objects. */
  public static final String LEASES_FOLDER = "_leases";

  private RunLeases() {}

  /** {@code <stateRoot>/_leases/<namespace.table>.json}. */
  public static String location(String stateRoot, String table) {
    String root =
        stateRoot.endsWith("/") ? stateRoot.substring(0, stateRoot.length() - 1) : stateRoot;
    return root + "/" + LEASES_FOLDER + "/" + table + ".json";
  }

  /** Whether a run with these settings takes a lease. */
  public static boolean applies(IngestSettings settings) {
    return !settings.leaseTtl().isZero() && S3State.onS3(settings.stateRoot());
  }

  /**
   * The lease store for a run with these settings, empty when it takes none. The S3 client is made
   * from the catalog's properties ({@code s3.endpoint}, {@code client.region}, credentials...), the
   * ones Iceberg's S3FileIO uses for the table's files.
   */
  public static Optional<LeaseStore> store(IngestSettings settings) {
    if (!applies(settings)) {
      return Optional.empty();
    }
    String location = location(settings.stateRoot(), settings.dataset().curatedTable());
    return Optional.of(new S3LeaseStore(S3State.client(settings), S3State.Key.of(location)));
  }
}
