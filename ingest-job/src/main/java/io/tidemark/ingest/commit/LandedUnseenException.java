package io.tidemark.ingest.commit;

import io.tidemark.ingest.kernel.IngestException;
import io.tidemark.model.report.IngestErrorCode;

/**
 * The batch's commit went through, but the batch is not in main's history just after: thrown after
 * the commit, so the run reports it as a failure after its batch was committed.
 */
public final class LandedUnseenException extends IngestException {
  LandedUnseenException(String message) {
    super(IngestErrorCode.INTERNAL_ERROR, message);
  }
}
