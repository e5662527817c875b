package io.tidemark.ingest;

import java.util.Objects;

/** A failure of the ingest job, with the code that decides the exit code and the report's code. */
public class IngestException extends RuntimeException {
  private final ErrorCode code;

  public IngestException(ErrorCode code, String message) {
    this(code, message, null);
  }

  public IngestException(ErrorCode code, String message, Throwable cause) {
    super(message, cause);
    this.code = Objects.requireNonNull(code, "code is null");
  }

  public ErrorCode code() {
    return code;
  }
}
