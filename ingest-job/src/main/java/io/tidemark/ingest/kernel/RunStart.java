package io.tidemark.ingest.kernel;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Which run this is: its id and when it started. The run's branch, its commit properties and where
 * its report is filed are all named from these two.
 *
 * @param runId the run's id (given, or generated from the start time)
 * @param startedAt when the run started
 */
public record RunStart(String runId, Instant startedAt) {
  private static final DateTimeFormatter RUN_ID_TIME =
      DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'").withZone(ZoneOffset.UTC);

  public RunStart {
    Objects.requireNonNull(runId, "runId is null");
    Objects.requireNonNull(startedAt, "startedAt is null");
  }

  /** A run started now with the given id, or a new one from the start time when it is null. */
  public static RunStart of(String runId, Instant startedAt) {
    return new RunStart(runId != null ? runId : newRunId(startedAt), startedAt);
  }

  /** A new run id: the start time and 32 random bits, e.g. {@code 20240101T000000Z-0a1b2c3d}. */
  public static String newRunId(Instant started) {
    return RUN_ID_TIME.format(started)
        + "-"
        + String.format("%08x", ThreadLocalRandom.current().nextInt());
  }
}
