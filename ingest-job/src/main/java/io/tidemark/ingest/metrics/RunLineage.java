package io.tidemark.ingest.metrics;

import io.openlineage.client.OpenLineage;
import io.openlineage.client.OpenLineageClient;
import io.openlineage.client.transports.ApiKeyTokenProvider;
import io.openlineage.client.transports.FileConfig;
import io.openlineage.client.transports.FileTransport;
import io.openlineage.client.transports.HttpConfig;
import io.openlineage.client.transports.HttpTransport;
import io.openlineage.client.transports.Transport;
import io.tidemark.model.config.CatalogSpec;
import io.tidemark.model.contract.DatasetContract;
import io.tidemark.model.lineage.LineageNames;
import io.tidemark.model.report.IngestRunReport;
import io.tidemark.model.report.IngestStatus;
import java.net.URI;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Emits a finished ingest run as an OpenLineage run event, with the OpenLineage Java client: the
 * job {@code ingest.<pipeline>.<dataset>} reads the raw location (its rows and files read as input
 * statistics) and writes the curated table (the rows it wrote as output statistics) and, when it
 * quarantined records, the quarantine table; the same names the reconciler gives them, so a lineage
 * tool links the job's output to the reconciliation that checks it. A run that failed or was
 * rejected is FAIL with an {@code errorMessage} facet; any other end is COMPLETE. The run id is
 * derived from the run's id. An emit that fails is logged and dropped: the run's outcome stands.
 */
public final class RunLineage {
  private static final Logger LOG = LoggerFactory.getLogger(RunLineage.class);

  /** The producer every event names. */
  public static final URI PRODUCER = URI.create("urn:tidemark:ingest-job");

  /**
   * Where events go: an HTTP endpoint ({@code url} plus {@code endpoint}, an optional bearer token)
   * or a file, one JSON line per event.
   *
   * @param url an OpenLineage HTTP endpoint's base URL; empty for a file
   * @param endpoint the path under it
   * @param apiKey a bearer token for it; empty for none
   * @param file a local file to append to; empty for HTTP
   * @param namespace the jobs' namespace
   */
  public record Settings(
      Optional<URI> url,
      String endpoint,
      Optional<String> apiKey,
      Optional<String> file,
      String namespace) {
    public Settings {
      url = url == null ? Optional.empty() : url;
      file = file == null ? Optional.empty() : file;
      apiKey = apiKey == null ? Optional.empty() : apiKey;
      if (url.isPresent() == file.isPresent()) {
        throw new IllegalArgumentException("OpenLineage takes a url or a file, one of them");
      }
      endpoint = endpoint == null ? LineageNames.ENDPOINT_DEFAULT : endpoint;
      namespace = namespace == null ? LineageNames.NAMESPACE_DEFAULT : namespace;
    }

    /** Events to an HTTP endpoint. */
    public static Settings http(URI url) {
      return new Settings(Optional.of(url), null, null, null, null);
    }

    /** Events appended to a file. */
    public static Settings file(String file) {
      return new Settings(null, null, null, Optional.of(file), null);
    }

    public Settings withNamespace(String ns) {
      return new Settings(url, endpoint, apiKey, file, ns);
    }

    public Settings withApiKey(String key) {
      return new Settings(url, endpoint, Optional.ofNullable(key), file, namespace);
    }

    /** Where, in words: never the token. */
    @Override
    public String toString() {
      return url.map(u -> u + endpoint).orElseGet(file::get);
    }
  }

  private RunLineage() {}

  /** Emits the event of a run; false when lineage is off or the emit failed. Never throws. */
  public static boolean emit(
      Optional<Settings> settings,
      IngestRunReport report,
      DatasetContract dataset,
      CatalogSpec catalog) {
    if (settings.isEmpty()) {
      return false;
    }
    Settings s = settings.get();
    try (Transport transport = transport(s)) {
      OpenLineageClient.builder()
          .transport(transport)
          .build()
          .emit(event(s, report, dataset, catalog));
      LOG.info("Run {}: OpenLineage event sent to {}", report.runId(), s);
      return true;
    } catch (Exception e) {
      LOG.warn(
          "Cannot send the OpenLineage event of run {} to {}: {}", report.runId(), s, e.toString());
      return false;
    }
  }

  private static Transport transport(Settings s) {
    if (s.file().isPresent()) {
      return new FileTransport(new FileConfig(s.file().get()));
    }
    HttpConfig http = new HttpConfig();
    http.setUrl(s.url().get());
    http.setEndpoint(s.endpoint());
    http.setTimeoutInMillis(5000);
    s.apiKey()
        .ifPresent(
            k -> {
              ApiKeyTokenProvider token = new ApiKeyTokenProvider();
              token.setApiKey(k);
              http.setAuth(token);
            });
    return new HttpTransport(http);
  }

  /** The event of a finished run of a dataset whose tables live in {@code catalog}. */
  public static OpenLineage.RunEvent event(
      Settings s, IngestRunReport r, DatasetContract dataset, CatalogSpec catalog) {
    OpenLineage ol = new OpenLineage(PRODUCER);
    boolean failed = r.status() == IngestStatus.FAILED || r.status() == IngestStatus.REJECTED;
    OpenLineage.RunFacet tidemark = ol.newRunFacet();
    tidemark.getAdditionalProperties().put("runId", r.runId());
    if (r.batchId() != null) {
      tidemark.getAdditionalProperties().put("batchId", r.batchId());
    }
    tidemark.getAdditionalProperties().put("mode", r.mode().name());
    tidemark.getAdditionalProperties().put("status", r.status().name());
    if (r.snapshotId() != null) {
      tidemark.getAdditionalProperties().put("snapshotId", r.snapshotId());
    }
    OpenLineage.RunFacetsBuilder runFacets = ol.newRunFacetsBuilder().put("tidemark", tidemark);
    if (failed) {
      runFacets.errorMessage(
          ol.newErrorMessageRunFacetBuilder()
              .message(
                  (r.errorCode() == null ? "" : r.errorCode() + ": ")
                      + (r.error() == null ? "the run failed" : r.error()))
              .programmingLanguage("JAVA")
              .build());
    }
    LineageNames.Name raw = LineageNames.location(dataset.raw().location());
    OpenLineage.InputDataset input =
        ol.newInputDatasetBuilder()
            .namespace(raw.namespace())
            .name(raw.name())
            .inputFacets(
                ol.newInputDatasetInputFacetsBuilder()
                    .inputStatistics(
                        ol.newInputStatisticsInputDatasetFacetBuilder()
                            .rowCount(r.counts().recordsRead())
                            .fileCount((long) r.inputFiles().size())
                            .build())
                    .build())
            .build();
    List<OpenLineage.OutputDataset> outputs = new ArrayList<>();
    if (r.snapshotId() != null) {
      outputs.add(output(ol, catalog, dataset.curatedTable(), r.counts().recordsWritten()));
      if (r.counts().recordsInvalid() > 0) {
        outputs.add(output(ol, catalog, dataset.quarantineTable(), r.counts().recordsInvalid()));
      }
    }
    return ol.newRunEventBuilder()
        .eventType(
            failed ? OpenLineage.RunEvent.EventType.FAIL : OpenLineage.RunEvent.EventType.COMPLETE)
        .eventTime(r.finishedAt().atZone(ZoneOffset.UTC))
        .run(
            ol.newRunBuilder()
                .runId(LineageNames.runId("ingest-run", r.runId()))
                .facets(runFacets.build())
                .build())
        .job(
            ol.newJobBuilder()
                .namespace(s.namespace())
                .name("ingest." + r.pipeline() + "." + r.dataset())
                .facets(
                    ol.newJobFacetsBuilder()
                        .jobType(
                            ol.newJobTypeJobFacetBuilder()
                                .processingType("BATCH")
                                .integration("TIDEMARK")
                                .jobType("INGEST")
                                .build())
                        .build())
                .build())
        .inputs(List.of(input))
        .outputs(outputs)
        .build();
  }

  private static OpenLineage.OutputDataset output(
      OpenLineage ol, CatalogSpec catalog, String table, long rows) {
    LineageNames.Name name = LineageNames.table(catalog, table);
    return ol.newOutputDatasetBuilder()
        .namespace(name.namespace())
        .name(name.name())
        .outputFacets(
            ol.newOutputDatasetOutputFacetsBuilder()
                .outputStatistics(
                    ol.newOutputStatisticsOutputDatasetFacetBuilder().rowCount(rows).build())
                .build())
        .build();
  }
}
