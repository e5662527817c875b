package io.tidemark.reconcile.lineage;

import io.openlineage.client.OpenLineageClient;
import io.openlineage.client.transports.ApiKeyTokenProvider;
import io.openlineage.client.transports.FileConfig;
import io.openlineage.client.transports.FileTransport;
import io.openlineage.client.transports.HttpConfig;
import io.openlineage.client.transports.HttpTransport;
import io.openlineage.client.transports.Transport;
import io.tidemark.model.report.ReconciliationReport;
import io.tidemark.reconcile.config.ReconciledDataset;
import io.tidemark.reconcile.config.TidemarkConfig;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import org.jboss.logging.Logger;

/**
 * Emits each finished reconciliation as an OpenLineage run event ({@link ReconciliationLineage})
 * over HTTP ({@code tidemark.openlineage.url}) or to a file ({@code tidemark.openlineage.file}). An
 * emit that fails is logged and dropped: the report, metrics and alarms stand without it.
 */
@ApplicationScoped
public class LineagePublisher {
  private static final Logger LOG = Logger.getLogger(LineagePublisher.class);

  private final OpenLineageClient client;
  private final Transport transport;
  private final ReconciliationLineage lineage;
  private final String target;

  public LineagePublisher(TidemarkConfig config) {
    TidemarkConfig.Lineage c = config.lineage();
    this.lineage = new ReconciliationLineage(c.namespace());
    if (c.url().isPresent()) {
      HttpConfig http = new HttpConfig();
      http.setUrl(c.url().get());
      http.setEndpoint(c.endpoint());
      http.setTimeoutInMillis(5000);
      c.apiKey()
          .ifPresent(
              k -> {
                ApiKeyTokenProvider token = new ApiKeyTokenProvider();
                token.setApiKey(k);
                http.setAuth(token);
              });
      this.transport = new HttpTransport(http);
      this.target = c.url().get() + c.endpoint();
    } else if (c.file().isPresent()) {
      this.transport = new FileTransport(new FileConfig(c.file().get()));
      this.target = c.file().get();
    } else {
      this.transport = null;
      this.target = null;
    }
    this.client =
        transport == null ? null : OpenLineageClient.builder().transport(transport).build();
    if (client != null) {
      LOG.infof("OpenLineage: every finished reconciliation goes to %s", target);
    }
  }

  /** Whether events are emitted at all. */
  public boolean enabled() {
    return client != null;
  }

  /** Emits the run event of a finished reconciliation of {@code dataset}; never throws. */
  public void finished(ReconciliationReport report, ReconciledDataset dataset) {
    if (client == null || !report.status().finished() || dataset == null) {
      return;
    }
    try {
      client.emit(lineage.event(report, dataset.contract(), dataset.catalog()));
    } catch (RuntimeException e) {
      LOG.warnf(
          "OpenLineage: cannot emit the run of reconciliation %s of %s to %s: %s",
          report.id(), report.dataset(), target, e.getMessage());
    }
  }

  @PreDestroy
  void close() {
    if (transport != null) {
      try {
        transport.close();
      } catch (Exception e) {
        LOG.debugf("OpenLineage: closing the transport: %s", e.getMessage());
      }
    }
  }
}
