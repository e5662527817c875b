package io.tidemark.ingest.discovery;

import io.tidemark.ingest.kernel.RawFile;
import java.util.function.UnaryOperator;

/** Which listed files a batch treats as processed already: discovery skips them. */
@FunctionalInterface
public interface ProcessedFiles {
  /** None: every listed file is new (a full refresh, a backfill, a first batch). */
  ProcessedFiles NONE = (f, fingerprints) -> false;

  /**
   * Whether this version of the file was processed.
   *
   * @param fingerprints gives the file with its content fingerprint, computed only when asked
   */
  boolean contains(RawFile f, UnaryOperator<RawFile> fingerprints);
}
