package io.tidemark.ingest.kernel;

import io.tidemark.model.report.IngestErrorCode;
import java.util.Objects;

/** A failure of the ingest job, with the code that decides the exit code and the report's code. */
public class IngestException extends RuntimeException {
  private final IngestErrorCode code;

  public IngestException(IngestErrorCode code, String message) {
    this(code, message, null);
  }

  public IngestException(IngestErrorCode code, String message, Throwable cause) {
    super(message, cause);
    this.code = Objects.requireNonNull(code, "code is null");
  }

  public IngestErrorCode code() {
    return code;
  }
}
