package io.tidemark.reconcile.wiring;

import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.model.contract.DatasetContract;
import io.tidemark.model.contract.RawLayout.StrayEntry;
import io.tidemark.reconcile.engine.EngineRequest;
import io.tidemark.reconcile.engine.Observations;
import io.tidemark.reconcile.engine.ReconciliationEngine;
import io.tidemark.reconcile.fixtures.Contracts;
import io.tidemark.reconcile.storage.RawFiles;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The engine the service builds on first use forwards every call: before, its {@code listRawFiles}
 * was the interface's default (local folders), so unprocessed_files of an Athena dataset listed the
 * local file system instead of S3.
 */
class TestLazyEngine {
  /** An engine that lists where only it can: what the lazy one must return. */
  private static final class RemoteLister implements ReconciliationEngine {
    static final RawFiles.Listing LISTING =
        new RawFiles.Listing(List.of(), List.of(new StrayEntry("s3://lake/x", "remote")));

    @Override
    public String name() {
      return "remote";
    }

    @Override
    public Observations observe(EngineRequest request) {
      throw new AssertionError("the lazy engine observed while asked to list raw files");
    }

    @Override
    public RawFiles.Listing listRawFiles(DatasetContract contract) {
      return LISTING;
    }
  }

  @Test
  void rawFilesAreListedByTheEngineItBuilds() {
    EngineProducer.LazyEngine lazy = new EngineProducer.LazyEngine("remote", RemoteLister::new);
    DatasetContract c = Contracts.customers("customers", "s3://lake/raw/customers", "c.t");
    assertThat(lazy.listRawFiles(c)).isSameAs(RemoteLister.LISTING);
  }
}
