package io.tidemark.ingest.kernel;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The log a run tells its story in, whichever stage speaks: one logger, named {@value #NAME} as
 * before the job was split into stages, so that log configurations that name it and the lines
 * people look for stay as they were.
 */
public final class RunLog {
  public static final String NAME = "io.tidemark.ingest.IngestJob";

  /** The run's log. */
  public static final Logger LOG = LoggerFactory.getLogger(NAME);

  private RunLog() {}
}
