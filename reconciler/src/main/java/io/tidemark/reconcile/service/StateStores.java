package io.tidemark.reconcile.service;

import io.tidemark.reconcile.config.AthenaConfig;
import io.tidemark.reconcile.config.ReconcilerSettings;
import io.tidemark.reconcile.config.TidemarkConfig;
import io.tidemark.reconcile.kernel.S3Location;
import io.tidemark.reconcile.report.S3ReportStore;
import io.tidemark.reconcile.report.S3RunReports;
import jakarta.annotation.PreDestroy;
import jakarta.inject.Singleton;
import java.nio.file.Path;
import org.jboss.logging.Logger;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Where the reports live: a local state root (the embedded default), or {@code s3://bucket/prefix},
 * where reconciliation reports are created with conditional writes and run reports are read from
 * {@code _runs/}. The S3 client follows {@code tidemark.athena.region} and {@code endpoint}.
 */
@Singleton
public class StateStores {
  private static final Logger LOG = Logger.getLogger(StateStores.class);
  private S3Client s3;

  /** A reconciler builder reading and writing reports where the settings say. */
  public synchronized Reconciler.Builder builder(
      ReconcilerSettings settings, TidemarkConfig config) {
    if (!settings.stateOnS3()) {
      return Reconciler.builder(Path.of(settings.stateRoot()));
    }
    S3Location root = S3Location.parse(settings.stateRoot());
    s3 = AthenaConfig.s3Client(config.athena());
    LOG.infof("Reports on %s", root);
    return Reconciler.builder(Path.of("."))
        .reportStore(new S3ReportStore(s3, root.bucket(), root.prefix()))
        .runReports(new S3RunReports(s3, root.bucket(), root.prefix()));
  }

  @PreDestroy
  synchronized void close() {
    if (s3 != null) {
      s3.close();
    }
  }
}
