package io.tidemark.reconcile.wiring;

import io.tidemark.model.contract.DatasetContract;
import io.tidemark.reconcile.config.AthenaConfig;
import io.tidemark.reconcile.config.TidemarkConfig;
import io.tidemark.reconcile.engine.EngineNames;
import io.tidemark.reconcile.engine.EngineRequest;
import io.tidemark.reconcile.engine.Observations;
import io.tidemark.reconcile.engine.ReconciliationEngine;
import io.tidemark.reconcile.engine.athena.AthenaEngine;
import io.tidemark.reconcile.engine.athena.AthenaQueryRunner;
import io.tidemark.reconcile.engine.athena.AthenaSettings;
import io.tidemark.reconcile.engine.duckdb.DuckDbEngine;
import io.tidemark.reconcile.storage.RawFiles;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;
import java.util.Optional;
import java.util.function.Supplier;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.athena.AthenaClient;
import software.amazon.awssdk.services.s3.S3Client;

/** Makes the engines available to the service; each is found by its {@code name()}. */
@Singleton
public class EngineProducer {
  private final Clients clients = new Clients();

  @Produces
  @Singleton
  ReconciliationEngine duckDb() {
    return new DuckDbEngine();
  }

  /**
   * The Athena engine. Its settings are read when a dataset first uses it; {@link
   * io.tidemark.reconcile.config.ReconcilerSettings} checks at start-up that they are there when a
   * dataset names it.
   */
  @Produces
  @Singleton
  ReconciliationEngine athena(TidemarkConfig config) {
    TidemarkConfig.Athena a = config.athena();
    Supplier<AthenaSettings> settings = () -> AthenaConfig.settings(a);
    return new LazyEngine(
        EngineNames.ATHENA,
        () ->
            AthenaEngine.create(
                settings.get(),
                () -> clients.athena(settings.get()),
                () -> clients.s3(settings.get()),
                a.usdPerTb()));
  }

  @PreDestroy
  void close() {
    clients.close();
  }

  /** The AWS clients, built once, on first use. */
  static final class Clients {
    private AthenaClient athena;
    private S3Client s3;

    synchronized AthenaClient athena(AthenaSettings s) {
      if (athena == null) {
        athena = AthenaQueryRunner.newClient(s, DefaultCredentialsProvider.builder().build());
      }
      return athena;
    }

    synchronized S3Client s3(AthenaSettings s) {
      if (s3 == null) {
        var b =
            S3Client.builder()
                .region(Region.of(s.region()))
                .credentialsProvider(DefaultCredentialsProvider.builder().build())
                .httpClientBuilder(UrlConnectionHttpClient.builder());
        s.endpointOverride().ifPresent(e -> b.endpointOverride(e).forcePathStyle(true));
        s3 = b.build();
      }
      return s3;
    }

    synchronized void close() {
      Optional.ofNullable(athena).ifPresent(AthenaClient::close);
      Optional.ofNullable(s3).ifPresent(S3Client::close);
    }
  }

  /** An engine built on first use, so that a service without Athena datasets needs no settings. */
  public static final class LazyEngine implements ReconciliationEngine {
    private final String name;
    private final Supplier<ReconciliationEngine> factory;
    private ReconciliationEngine engine;

    public LazyEngine(String name, Supplier<ReconciliationEngine> factory) {
      this.name = name;
      this.factory = factory;
    }

    @Override
    public String name() {
      return name;
    }

    @Override
    public Observations observe(EngineRequest request) {
      return engine().observe(request);
    }

    /** Lists where the engine reads: S3 for Athena, not the default's local folders. */
    @Override
    public RawFiles.Listing listRawFiles(DatasetContract contract) {
      return engine().listRawFiles(contract);
    }

    private synchronized ReconciliationEngine engine() {
      if (engine == null) {
        engine = factory.get();
      }
      return engine;
    }
  }
}
