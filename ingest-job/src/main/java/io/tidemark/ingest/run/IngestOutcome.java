package io.tidemark.ingest.run;

import io.tidemark.model.report.IngestRunReport;
import java.time.LocalDate;
import java.util.List;
import java.util.Objects;

/**
 * How a run ended.
 *
 * @param report the run report (also written to the state root when possible)
 * @param reportLocation where the report was written; null when writing it failed
 * @param exitCode the process exit code the CLI returns: 0 success (also nothing to do and already
 *     committed), 2 bad usage or config, 4 batch rejected, 1 anything else
 * @param partitionsListed the raw partitions whose folders discovery listed, in order: what an
 *     incremental run costs in listing calls
 */
public record IngestOutcome(
    IngestRunReport report, String reportLocation, int exitCode, List<LocalDate> partitionsListed) {
  public IngestOutcome {
    Objects.requireNonNull(report, "report is null");
    partitionsListed = partitionsListed == null ? List.of() : List.copyOf(partitionsListed);
  }
}
